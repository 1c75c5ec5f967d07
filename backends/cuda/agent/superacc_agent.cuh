#pragma once
// The superaccumulator kernel's per-thread agent (CUB's "agent" layer): one thread's state and
// the steps of levels 1-2 built from the thread, warp and block pieces in blocks/. See
// superacc_cuda.cu for the scheme and docs/cuda-layers.md for the layering.
#include <cuda_runtime.h>

#include <type_traits>

#include "backends/cuda/block/block_merge.cuh"
#include "backends/cuda/thread/lane_accumulator.cuh"
#include "backends/cuda/agent/superacc_policy.cuh"
#include "backends/cuda/thread/thread_expansion.cuh"
#include "backends/cuda/warp/warp_ring.cuh"

namespace accsum::cuda {

template <class Policy>
struct SuperaccAgent {
  static constexpr int kTerms = Policy::kExpansionTerms;
  static constexpr int FPE = Policy::kFpe;
  static constexpr bool EE = Policy::kEarlyExit, DOT = Policy::kDot;
  static constexpr int kVecs = Policy::kVecsPerThread;
  static constexpr int64_t kLinePairs = 8;  // 16-byte pairs per 128-byte line
  static __device__ __forceinline__ int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
  static __device__ __forceinline__ int64_t lesser(int64_t a, int64_t b) { return a < b ? a : b; }
  using Record = typename Policy::Record;
  // Level 2: a private lane accumulator in the warp's area, or the block's shared accumulator.
  using Accumulator = std::conditional_t<Policy::kLanes, LaneAccumulator, BlockSharedAccumulator<Record>>;
  using Area = std::conditional_t<Policy::kLanes, WarpArea<Policy::kWarpRing>, WarpRingArea<Policy::kWarpRing>>;

  double a[kTerms];  // level 1: the expansion (FPE > 0)
  double z;          // the sign of an exact zero of the terms that bypass the expansion
  unsigned flags = 0;
  Accumulator acc;                          // level 2
  WarpResidueRing<Policy::kWarpRing> ring;  // level 2: the warp's residues waiting for it
  Record* block_acc;                        // level 3 (and the dot slow path)
  int pieces = 0;                           // pieces a lane digit may have had since normalize()
  // Adaptive mode (warp-uniform): when the expansion leaves residues for too many terms it
  // costs more than it saves, and the warp sends terms straight to its lanes' accumulators for
  // a while, trying the expansion again now and then. Any split of the terms between the two
  // keeps the sum exact, so results do not depend on it.
  bool adaptive = false, direct = false;
  int window = 0, busy_at_start = 0;

  __device__ __forceinline__ void init(Area& area, int lane, Record* bacc, bool adapt) {
    a[0] = -0.0;
#pragma unroll
    for (int i = 1; i < kTerms; ++i) a[i] = 0.0;
    z = -0.0;
    adaptive = adapt && FPE > 0 && Policy::kLanes;  // the bypass would make every term an atomic
    if constexpr (Policy::kLanes)
      acc.digit = &area.digit[0][lane];
    else
      acc.record = bacc;
    ring.ring = area.ring;
    ring.lane = lane;
    block_acc = bacc;  // the lane digits are cleared by consume(), under the first loads
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

  // Normalizes the lane accumulator before its digits could overflow (core/numerics/superacc_lanes.h).
  template <int PIECES>
  __device__ __forceinline__ void count_pieces() {
    if constexpr (!Policy::kLanes) return;  // BlockSharedAccumulator: no pending-piece bound per lane
    pieces += PIECES;
    if (pieces > kLaneMaxPending - PIECES) {
      acc.normalize();
      pieces = 0;
    }
  }

  // Slow path of a sum term (|x| >= 2^970 or not finite): flags or the private accumulator.
  __device__ void sum_slow(double x) {
    if (abs_hi(x) >= ACCSUM_HI_INF) {
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
    constexpr unsigned lo = ACCSUM_LANE_FAST_LO_HI, span = ACCSUM_HI_INF - lo;
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
          if (abs_hi(v[j]) >= ACCSUM_HI_INF)
            flags |= sum_special_flags(v[j]);
          else
            acc.add(v[j]);
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

  // One chunk of the pairs (16-byte vectors): vector j of this thread is pair
  // base + threadIdx.x + j * blockDim.x. FULL: every pair is below `end` (no test); otherwise
  // pairs at or past `end` are not read and stand as x = -0.0, y = 1.0, which add nothing.
  template <bool FULL>
  __device__ __forceinline__ void load(const double2* xv, const double2* yv, int64_t base, int64_t end,
                                       double2 (&bx)[kVecs], double2 (&by)[kVecs]) const {
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
      const int64_t i = base + threadIdx.x + static_cast<int64_t>(j) * blockDim.x;
      if (FULL || i < end) {
        bx[j] = __ldg(xv + i);  // cached as CUB's loads are: data that fits in L2 stays there
        if constexpr (DOT) by[j] = __ldg(yv + i);
      } else {
        bx[j] = make_double2(-0.0, -0.0);
        if constexpr (DOT) by[j] = make_double2(1.0, 1.0);
      }
    }
  }

  // The terms of one chunk; bits 2j and 2j+1 of `valid` belong to vector j (dot: the others
  // pass nothing; sum: they hold -0.0 already).
  __device__ __forceinline__ void process(const double2 (&vx)[kVecs], const double2 (&vy)[kVecs], unsigned valid) {
    if constexpr (DOT) {
      double bx[2 * kVecs], by[2 * kVecs];
#pragma unroll
      for (int j = 0; j < kVecs; ++j) {
        bx[2 * j] = vx[j].x;
        bx[2 * j + 1] = vx[j].y;
        by[2 * j] = vy[j].x;
        by[2 * j + 1] = vy[j].y;
      }
      dot_batch(bx, by, valid);
    } else {
      double b[2 * kVecs];
#pragma unroll
      for (int j = 0; j < kVecs; ++j) {
        b[2 * j] = vx[j].x;
        b[2 * j + 1] = vx[j].y;
      }
      sum_batch(b);
    }
  }

  // Levels 1-2 over this block's share of the n terms (x, y 16-byte aligned). Tiles of
  // kVecsPerThread vectors per thread: first `rounds` full tiles per block, grid-stride, the
  // next tile's loads in flight while one is processed; the pairs after them are split evenly,
  // a contiguous run of whole 128-byte lines per block (no block waits for others' extra tile),
  // whose first chunk is loaded during the last full tile. The odd last term goes to warp 0 of
  // the last block. The lane digits are cleared, then `ready()` runs (the block's clear and
  // barrier), while the first loads are in flight.
  // (Prefetching the tile after next into L2 as well was measured slower: it capped the H200 at
  // about 3.95 TB/s for every configuration, against 4.25 TB/s without.)
  template <class Ready>
  __device__ __forceinline__ void consume(const double* x, const double* y, int64_t n, Ready&& ready) {
    consume_part(x, y, n, ready, blockIdx.x, gridDim.x);
  }

  // consume() as block `part` of `parts` blocks sharing the n terms (parts = 1: the block takes
  // them all, as a segmented reduction's block takes its row).
  template <class Ready>
  __device__ __forceinline__ void consume_part(const double* x, const double* y, int64_t n, Ready&& ready, int64_t part,
                                               int64_t parts) {
    constexpr unsigned kAllValid = (1u << (2 * kVecs)) - 1;
    const auto* xv = reinterpret_cast<const double2*>(x);
    const auto* yv = reinterpret_cast<const double2*>(y);
    const int64_t nvec = n / 2, tile = static_cast<int64_t>(blockDim.x) * kVecs, stride = tile * parts;
    const int64_t rounds = nvec / stride, rest0 = rounds * stride;
    const int64_t share = round_up((nvec - rest0 + parts - 1) / parts, kLinePairs);
    const int64_t rb = lesser(nvec, rest0 + share * part), re = lesser(nvec, rb + share);
    double2 vx[kVecs], vy[kVecs];
    int64_t t = part * tile;
    if (rounds > 0)
      load<true>(xv, yv, t, 0, vx, vy);
    else
      load<false>(xv, yv, rb, re, vx, vy);
    acc.clear();
    ready();
    auto full_tile = [&](const double2(&wx)[kVecs], const double2(&wy)[kVecs]) {
      process(vx, vy, kAllValid);
      adapt();
      count_pieces<Policy::kPiecesPerIter>();
#pragma unroll
      for (int j = 0; j < kVecs; ++j) {
        vx[j] = wx[j];
        if constexpr (DOT) vy[j] = wy[j];
      }
      t += stride;
    };
    for (int64_t k = 1; k < rounds; ++k) {
      double2 wx[kVecs], wy[kVecs];
      load<true>(xv, yv, t + stride, 0, wx, wy);
      full_tile(wx, wy);
    }
    if (rounds > 0) {  // the last full tile, the first chunk of the share loaded meanwhile
      double2 wx[kVecs], wy[kVecs];
      load<false>(xv, yv, rb, re, wx, wy);
      full_tile(wx, wy);
    }
    // The share (usually one chunk, loaded above). Block-uniform; a warp with no pair skips.
    for (int64_t base = rb; base < re; base += tile) {
      if (base != rb) load<false>(xv, yv, base, re, vx, vy);
      const int64_t first = base + threadIdx.x;
      if (__any_sync(kFullMask, first < re)) {
        unsigned valid = 0;
#pragma unroll
        for (int j = 0; j < kVecs; ++j)
          if (first + static_cast<int64_t>(j) * blockDim.x < re) valid |= 3u << (2 * j);
        process(vx, vy, valid);
      }
      count_pieces<Policy::kPiecesPerIter>();
    }
    if ((n & 1) && part == parts - 1 && warp_of(threadIdx.x) == 0) single_term(x + n - 1, DOT ? y + n - 1 : nullptr);
  }

  // One term (*x, or the product *x * *y) from thread 0, called by the whole of warp 0 after consume
  // (its other lanes pass terms that change nothing): the odd last term, or a segmented
  // reduction's first term before its 16-byte aligned rest.
  __device__ __forceinline__ void single_term(const double* x, const double* y) {
    const bool mine = threadIdx.x == 0;
    double b[2] = {mine ? *x : -0.0, -0.0};
    if constexpr (DOT) {
      double c[2] = {mine ? *y : 1.0, 1.0};
      dot_batch(b, c, mine ? 1u : 0u);
    } else {
      sum_batch(b);
    }
    count_pieces<Policy::kPiecesPerTail>();
  }

  // Level 2 done: the ring and the expansion emptied into the private accumulator. Its digits
  // are left unnormalized (the warp reduction splits them instead), so normalize only if these
  // last 1 + FPE additions could pass the bound of core/numerics/superacc_lanes.h; returns the warp's
  // flags (OR over its lanes).
  __device__ __forceinline__ unsigned finish_thread() {
    constexpr int kLastPieces = 1 + FPE;
    if (double_bits(a[0]) != kSignBit || double_bits(z) != kSignBit) flags |= kFlagNotNegZero;
    if constexpr (!Policy::kLanes) {
      merge_warp_expansions();
    } else if (pieces > kLaneMaxPending - kLastPieces) {
      acc.normalize();
    }
    ring.drain(acc);
    if constexpr (FPE > 0) {
      const bool flush = Policy::kLanes || ring.lane == 0;  // without lanes only lane 0 holds terms now
#pragma unroll
      for (int i = 0; i < FPE; ++i)
        if (flush) acc.add(a[i]);
    }
    return __reduce_or_sync(kFullMask, flags);
  }

  // Without private lanes: the warp's 32 expansions absorbed into lane 0's in five halving steps
  // (TwoSum is error-free and the residues go through the ring as in the main loop), so that the
  // block's shared digits receive FPE values per warp at the end instead of per thread, on the
  // few digits all the expansions' leading terms share. A lane that sent its terms passes -0.0.
  __device__ __forceinline__ void merge_warp_expansions() {
#pragma unroll
    for (int off = kWarpThreads / 2; off > 0; off >>= 1) {
      double v[kTerms];
      const bool takes = ring.lane < off;
#pragma unroll
      for (int i = 0; i < kTerms; ++i) {
        const double t = __shfl_down_sync(kFullMask, a[i], off);
        v[i] = takes ? t : -0.0;
        if (ring.lane >= off) a[i] = -0.0;  // sent: the taker holds them now
      }
      fpe_batch<kTerms, EE>(a, v);
      ring.push_batch(v, acc);
    }
  }
  static constexpr uint64_t kSignBit = uint64_t(1) << 63;  // the bits of -0.0
};

}  // namespace accsum::cuda
