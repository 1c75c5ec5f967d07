#pragma once
// The superaccumulator kernel's per-thread agent (CUB's "agent" layer): one thread's state and
// the steps of levels 1-2 built from the thread, warp and block pieces in blocks/. See
// superacc_cuda.cu for the scheme and docs/cuda-layers.md for the layering.
#include <cuda_runtime.h>

#include "backends/cuda/blocks/block_merge.cuh"
#include "backends/cuda/blocks/lane_accumulator.cuh"
#include "backends/cuda/blocks/policy.cuh"
#include "backends/cuda/blocks/thread_expansion.cuh"
#include "backends/cuda/blocks/warp_ring.cuh"

namespace accsum::cuda {

template <class Policy>
struct SuperaccAgent {
  static constexpr int kTerms = Policy::kExpansionTerms;
  static constexpr int FPE = Policy::kFpe;
  static constexpr bool EE = Policy::kEarlyExit, DOT = Policy::kDot;
  using Record = typename Policy::Record;

  double a[kTerms];  // level 1: the expansion (FPE > 0)
  double z;          // the sign of an exact zero of the terms that bypass the expansion
  unsigned flags = 0;
  LaneAccumulator acc;                         // level 2: the private superaccumulator
  WarpResidueRing<Policy::kWarpRing> ring;     // level 2: the warp's residues waiting for it
  Record* block_acc;                           // level 3 (and the dot slow path)
  int pieces = 0;                              // pieces a lane digit may have had since normalize()
  // Adaptive mode (warp-uniform): when the expansion leaves residues for too many terms it
  // costs more than it saves, and the warp sends terms straight to its lanes' accumulators for
  // a while, trying the expansion again now and then. Any split of the terms between the two
  // keeps the sum exact, so results do not depend on it.
  bool adaptive = false, direct = false;
  int window = 0, busy_at_start = 0;

  __device__ __forceinline__ void init(WarpArea<Policy::kWarpRing>& area, int lane, Record* bacc, bool adapt) {
    a[0] = -0.0;
#pragma unroll
    for (int i = 1; i < kTerms; ++i) a[i] = 0.0;
    z = -0.0;
    adaptive = adapt && FPE > 0;
    acc.digit = &area.digit[0][lane];
    ring.ring = area.ring;
    ring.lane = lane;
    block_acc = bacc;
    acc.clear();
  }
  __device__ bool bypass() const { return FPE == 0 || direct; }

  // Called once per main-loop iteration (Policy: kAdaptWindow, kAdaptMaxBusy, kAdaptDirect).
  __device__ __forceinline__ void adapt() {
    if (!adaptive) return;
    ++window;
    if (!direct && window == Policy::kAdaptWindow) {
      direct = ring.busy - busy_at_start > Policy::kAdaptMaxBusy;
      window = 0;
    } else if (direct && window == Policy::kAdaptDirect) {
      direct = false;
      window = 0;
    }
    if (!direct && window == 0) busy_at_start = ring.busy;
  }

  // Normalizes the lane accumulator before its digits could overflow (superacc_lanes.cuh).
  template <int PIECES>
  __device__ __forceinline__ void count_pieces() {
    pieces += PIECES;
    if (pieces > kLaneMaxPending - PIECES) {
      acc.normalize();
      pieces = 0;
    }
  }

  // Slow path of a sum term (|x| >= 2^970 or not finite): flags or the private accumulator.
  __device__ void sum_slow(double x) {
    if (abs_hi(x) >= 0x7FF00000u) {
      flags |= sum_special_flags(x);
    } else {
      acc.add_fast(x);  // |x| >= 2^970
      flags |= kFlagNotNegZero;
    }
  }
  // Slow path of a dot term: the exact product into the block's SuperaccDot (atomics).
  __device__ void dot_slow(double x, double y) { flags |= block_add_product(x, y, *block_acc); }

  // Terms straight to the lane accumulator: cut by the FP64 unit (lane_split_fast) unless tiny,
  // zero or not finite (biased exponent outside [51, 2046]: one unsigned compare).
  template <int B>
  __device__ __forceinline__ void sum_direct(double (&v)[B]) {
    constexpr unsigned lo = kLaneFastMinBiased << 20, span = 0x7FF00000u - lo;
    unsigned worst = 0;
#pragma unroll
    for (int j = 0; j < B; ++j) {
      z = __dadd_rn(z, v[j]);  // sign of an exact zero (NaN/inf make it "not -0")
      worst = max(worst, abs_hi(v[j]) - lo);
    }
    if (__any_sync(kFullMask, worst >= span)) {
#pragma unroll
      for (int j = 0; j < B; ++j)
        if (abs_hi(v[j]) - lo >= span) {
          if (abs_hi(v[j]) >= 0x7FF00000u) flags |= sum_special_flags(v[j]);
          else acc.add(v[j]);
          v[j] = 0.0;
        }
    }
#pragma unroll
    for (int j = 0; j < B; ++j) acc.add_fast(v[j]);
  }

  // B sum terms per lane (a converged warp). Lanes without data pass -0.0, which changes nothing.
  template <int B>
  __device__ __forceinline__ void sum_batch(double (&v)[B]) {
    if (bypass()) {
      sum_direct(v);
      return;
    }
    if constexpr (FPE > 0) {
      unsigned worst = 0;
#pragma unroll
      for (int j = 0; j < B; ++j) worst = max(worst, abs_hi(v[j]));
      if (__any_sync(kFullMask, worst >= kSumSlowHi)) {
#pragma unroll
        for (int j = 0; j < B; ++j)
          if (abs_hi(v[j]) >= kSumSlowHi) {
            sum_slow(v[j]);
            v[j] = -0.0;
          }
      }
      fpe_batch<kTerms, EE>(a, v);
      ring.push_batch(v, acc);
    }
  }

  // B dot terms x[j]*y[j] per lane; bit j of `valid` clear makes term j pass nothing.
  template <int B>
  __device__ __forceinline__ void dot_batch(const double (&x)[B], const double (&y)[B], unsigned valid) {
    double v[2 * B];  // products, then their errors (TwoProductFMA, ORO 2005 Alg. 3.5)
    bool slow[B], any_slow = false;
#pragma unroll
    for (int j = 0; j < B; ++j) {
      two_prod_fma(x[j], y[j], v[j], v[B + j]);
      slow[j] = ((valid >> j) & 1) && !dot_fast_range(abs_hi(v[j]));
      any_slow |= slow[j];
    }
    if (__any_sync(kFullMask, any_slow)) {
#pragma unroll
      for (int j = 0; j < B; ++j)
        if (slow[j]) dot_slow(x[j], y[j]);
    }
#pragma unroll
    for (int j = 0; j < B; ++j)
      if (slow[j] || !((valid >> j) & 1)) v[j] = v[B + j] = -0.0;
    if (bypass()) {
#pragma unroll
      for (int j = 0; j < B; ++j) {
        z = __dadd_rn(z, v[j]);
        acc.add_fast(v[j]);  // |p| >= 2^-968, or -0
      }
#pragma unroll
      for (int j = 0; j < B; ++j) acc.add(v[B + j]);  // an error may be tiny
    } else if constexpr (FPE > 0) {
      fpe_batch<kTerms, EE, 2 * B, B>(a, v);
      ring.push_batch(v, acc);
    }
  }

  // The full tiles of kVecsPerThread 16-byte vectors per thread, grid-stride, the next tile's
  // loads in flight while this one is processed. x (and y) are 16-byte aligned. Returns the
  // first pair after the full tiles.
  // (Prefetching the tile after next into L2 as well was measured slower: it capped the H200 at
  // about 3.95 TB/s for every configuration, against 4.25 TB/s without.)
  __device__ __forceinline__ int64_t consume_tiles(const double2* xv, const double2* yv, int64_t nvec) {
    constexpr int U = Policy::kVecsPerThread;
    const int64_t tile = static_cast<int64_t>(blockDim.x) * U;
    const int64_t full_tiles = nvec / tile;
    double2 vx[U], vy[U];
    int64_t t = blockIdx.x;
    auto load = [&](int64_t tt, double2(&bx)[U], double2(&by)[U]) {
      const int64_t base = tt * tile + threadIdx.x;
#pragma unroll
      for (int j = 0; j < U; ++j) {
        bx[j] = __ldcs(xv + base + j * blockDim.x);
        if constexpr (DOT) by[j] = __ldcs(yv + base + j * blockDim.x);
      }
    };
    if (t < full_tiles) load(t, vx, vy);
    while (t < full_tiles) {
      const int64_t tn = t + gridDim.x;
      double2 wx[U], wy[U];
      if (tn < full_tiles) load(tn, wx, wy);
      if constexpr (DOT) {
        double bx[2 * U], by[2 * U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
          bx[2 * j] = vx[j].x;
          bx[2 * j + 1] = vx[j].y;
          by[2 * j] = vy[j].x;
          by[2 * j + 1] = vy[j].y;
        }
        dot_batch(bx, by, (1u << (2 * U)) - 1);
      } else {
        double b[2 * U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
          b[2 * j] = vx[j].x;
          b[2 * j + 1] = vx[j].y;
        }
        sum_batch(b);
      }
      adapt();
      count_pieces<Policy::kPiecesPerIter>();
#pragma unroll
      for (int j = 0; j < U; ++j) {
        vx[j] = wx[j];
        if constexpr (DOT) vy[j] = wy[j];
      }
      t = tn;
    }
    return full_tiles * tile;
  }

  // The pairs from `first` on (those after the last full tile), one per thread (a block-uniform
  // loop: votes need the whole warp), then the last element when n is odd.
  __device__ __forceinline__ void consume_tail(const double* x, const double* y, int64_t n, int64_t first) {
    const double2* xv = reinterpret_cast<const double2*>(x);
    const double2* yv = reinterpret_cast<const double2*>(y);
    const int64_t nvec = n / 2;
    for (int64_t base = first + static_cast<int64_t>(blockIdx.x) * blockDim.x; base < nvec + 1;
         base += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      const int64_t i = base + threadIdx.x;
      double x0 = -0.0, x1 = -0.0, y0 = 1.0, y1 = 1.0;
      bool v0 = false, v1 = false;
      if (i < nvec) {
        double2 p = xv[i];
        x0 = p.x;
        x1 = p.y;
        if constexpr (DOT) {
          double2 q = yv[i];
          y0 = q.x;
          y1 = q.y;
        }
        v0 = v1 = true;
      } else if (i == nvec && (n & 1)) {
        x0 = x[n - 1];
        if constexpr (DOT) y0 = y[n - 1];
        v0 = true;
      }
      if constexpr (DOT) {
        double bx[2] = {x0, x1}, by[2] = {y0, y1};
        dot_batch(bx, by, (v0 ? 1u : 0u) | (v1 ? 2u : 0u));
      } else {
        double b[2] = {x0, x1};
        sum_batch(b);
      }
      count_pieces<Policy::kPiecesPerTail>();
    }
  }

  // Level 2 done: the ring and the expansion emptied into the private accumulator, which is
  // left normalized; returns the warp's flags (OR over its lanes).
  __device__ __forceinline__ unsigned finish_thread() {
    acc.normalize();
    ring.drain(acc);
    if constexpr (FPE > 0) {
#pragma unroll
      for (int i = 0; i < FPE; ++i) acc.add(a[i]);
    }
    if (double_bits(a[0]) != kSignBit || double_bits(z) != kSignBit) flags |= kFlagNotNegZero;
    acc.normalize();
    return __reduce_or_sync(kFullMask, flags);
  }
  static constexpr uint64_t kSignBit = uint64_t(1) << 63;  // the bits of -0.0
};

}  // namespace accsum::cuda
