// Correctly rounded, reproducible sum and dot product on CUDA: seed 004's five levels mapped
// onto CUB's thread / warp / block / device layering.
//
//   level 1 (thread, registers): a floating-point expansion of FPE doubles per thread (seed 004
//     Alg. 2, core/eft.hpp TwoSum), optionally with early exit, run level by level over a batch
//     of 8 terms (8 independent TwoSum chains in flight, one vote per level). Dot products first
//     split each product exactly: p = fl(a*b), e = fma(a, b, -p) (TwoProductFMA); p enters the
//     expansion at term 0, e at term 1 (e is below ulp(p); any split of the terms among
//     accumulators keeps the sum exact). fpe = 0 skips this level.
//   level 2 (thread, shared memory): what the expansion cannot hold goes to a private
//     superaccumulator per thread (superacc_lanes.cuh: 43 int64 digits of 50 bits, each double
//     cut into two digit pieces by five FP64 operations). A private accumulator needs no atomics,
//     so no carry can be lost to contention. Residues are compacted per warp first (ballot + a
//     64-entry ring): a warp pays for a flush only when 32 are waiting. With `adaptive`, a warp
//     whose expansion keeps leaving residues bypasses it for a while (ThreadState::adapt).
//   level 3 (block): the lanes' digits are summed per warp, then per block, and re-cut into
//     core/superacc.hpp's 32-bit digits: one record per block in device memory.
//   level 4-5 (device): the last block to finish sums the records digit by digit and rounds
//     with core's BasicSuperacc::round(); the host receives one double.
//
// Inputs that break the expansion's preconditions take a slow path (rare on real data): sum
// terms with |x| >= 2^970 or non-finite go straight to the private accumulator or to the
// special-value flags. Dot products outside [2^-968, 2^970) (where e would be inexact or p could
// have overflowed), zero products and special values go to an exact block-shared SuperaccDot
// (range 2^-2148 .. 2^2140) through shared-memory atomics on its 32-bit digits, whose 31
// headroom bits need no carries for 2^31 pieces (core/superacc.hpp). Why 2^-968 is enough: for
// normal a, b, |p| < 2^(ea+eb+2), so |p| >= 2^-968 gives ea+eb >= -969 and the exact product's
// lowest bit 2^(ea+eb-104) >= 2^-1073; if a is subnormal, |b| > 2^54 and the lowest bit is
// >= 2^-1074 * 2^2. Then a*b - p is a double and fma returns it exactly.
//
// The sign of an exact zero: term 0 of every expansion, and the tracker z of the terms that
// bypass it, start at -0.0 and stay -0.0 exactly while every term added was -0 (IEEE: -0 + -0 =
// -0, x + -x = +0); the slow paths set a flag for anything else. The result is -0 only if n > 0
// and no thread saw a term other than -0.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/superacc_lanes.cuh"
#include "core/eft.hpp"
#include "core/superacc.hpp"
#include "core/superacc_partial.hpp"

namespace accsum::cuda {
namespace {

constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr int kRing = 64;  // residues waiting per warp (at most 31 between flushes, + 32 pushed)

// Per warp in shared memory: the 32 lanes' private digits, interleaved so that the lanes of a
// warp touch distinct banks ([digit][lane]), and the ring of residues waiting for a flush.
struct WarpArea {
  int64_t digit[kLaneDigits][32];
  double ring[kRing];
};

template <bool DOT>
using Record = std::conditional_t<DOT, SuperaccDot, Superacc>;

// Loads per thread per iteration: sum 4 x 16 B of x; dot 2 x 16 B of each of x and y. With the
// next iteration's loads issued before this one is processed, 128 B per thread are in flight.
template <bool DOT>
constexpr int kVecs = DOT ? 2 : 4;

__device__ __forceinline__ bool nonzero(double r) {
  // Integer test on the bits (keeps the FP64 pipe for the expansion): +-0 -> false.
  return ((static_cast<unsigned>(__double2hiint(r)) & 0x7FFFFFFFu) | static_cast<unsigned>(__double2loint(r))) != 0;
}
__device__ __forceinline__ unsigned abs_hi(double x) {
  return static_cast<unsigned>(__double2hiint(x)) & 0x7FFFFFFFu;
}

// One lane's private superaccumulator (level 2) and its warp's ring of residues.
struct Lane {
  int64_t* digit;  // &area.digit[0][lane]; digit i at digit[32 * i]
  double* ring;
  int lane;
  int ring_head = 0, ring_count = 0;  // warp-uniform
  int busy = 0;                       // batches that left residues (warp-uniform), for the adaptive mode

  // x finite with lane_fast_ok(x): the FP64 cut, two pieces.
  __device__ __forceinline__ void add_fast(double x) {
    int k;
    int64_t lo, hi;
    lane_split_fast(x, k, lo, hi);
    digit[32 * k] += lo;
    digit[32 * (k + 1)] += hi;
  }
  // Any finite x (the integer cut, three pieces, for the rare tiny ones).
  __device__ __forceinline__ void add(double x) {
    if (lane_fast_ok(x)) {
      add_fast(x);
    } else {
      int k;
      int64_t p0, p1, p2;
      lane_split_exact(x, k, p0, p1, p2);
      digit[32 * k] += p0;
      digit[32 * (k + 1)] += p1;
      digit[32 * (k + 2)] += p2;
    }
  }
  __device__ void normalize() { lane_normalize(digit, 32); }

  // Queues the lanes' non-zero residues; when 32 are waiting each lane adds one of them.
  // Must be called by the whole warp (converged).
  __device__ __forceinline__ void push(double r) {
    bool nz = nonzero(r);
    unsigned mask = __ballot_sync(kFull, nz);
    if (mask == 0) return;
    int slot = ring_count + __popc(mask & ((1u << lane) - 1));
    if (nz) ring[(ring_head + slot) & (kRing - 1)] = r;
    ring_count += __popc(mask);
    if (ring_count >= 32) {
      __syncwarp();
      double v = ring[(ring_head + lane) & (kRing - 1)];
      __syncwarp();
      ring_head = (ring_head + 32) & (kRing - 1);
      ring_count -= 32;
      add(v);
    }
  }
  // Pushes a batch of residues; the common case (none anywhere in the warp) costs one vote.
  template <int B>
  __device__ __forceinline__ void push_batch(const double (&r)[B]) {
    bool any = false;
#pragma unroll
    for (int j = 0; j < B; ++j) any |= nonzero(r[j]);
    if (!__any_sync(kFull, any)) return;
    ++busy;
#pragma unroll
    for (int j = 0; j < B; ++j) push(r[j]);
  }
  // Adds what is left in the ring (fewer than 32 residues).
  __device__ void drain() {
    __syncwarp();
    double v = lane < ring_count ? ring[(ring_head + lane) & (kRing - 1)] : 0.0;
    add(v);
    ring_count = 0;
  }
};

// Alg. 2 of seed 004 for a batch of B terms, level by level: term i of the expansion absorbs,
// with TwoSum, the residues that term i-1 left (term 0 takes only v[0..SPLIT): a dot's product
// errors enter at term 1, being below ulp(p)). Afterwards v[] holds what the expansion could not
// absorb. Level-major order keeps B independent chains in flight and needs one vote per level
// for early exit (the warp stops when no lane has a residue left) instead of one per term.
template <int N, bool EE, int B, int SPLIT = B>
__device__ __forceinline__ void fpe_batch(double (&a)[N], double (&v)[B]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < (i == 0 ? SPLIT : B); ++j) two_sum(a[i], v[j], a[i], v[j]);
    if (EE && i + 1 < N) {
      bool any = false;
#pragma unroll
      for (int j = 0; j < B; ++j) any |= nonzero(v[j]);
      if (!__any_sync(kFull, any)) return;
    }
  }
}

// Slow path of a sum term (|x| >= 2^970 or not finite): flags or the private accumulator.
__device__ void sum_slow(double x, Lane& lane, unsigned& flags) {
  if (abs_hi(x) >= 0x7FF00000u) {
    flags |= sum_special_flags(x);
  } else {
    lane.add_fast(x);  // |x| >= 2^970
    flags |= kFlagNotNegZero;
  }
}

__device__ __forceinline__ void atomic_add_digit(int64_t* d, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
}

// Slow path of a dot term: the exact product into the block's SuperaccDot, shared by the whole
// block, with atomic adds (31 headroom bits: no carry to propagate, none to lose).
__device__ void dot_slow(double a, double b, SuperaccDot& acc, unsigned& flags) {
  flags |= dot_slow_terms(a, b, [&acc](int idx, int64_t v) { atomic_add_digit(&acc.digit[idx], v); });
}

// Per-thread state of the main kernel.
template <int FPE, bool EE, bool DOT>
struct ThreadState {
  static constexpr int kTerms = FPE > 0 ? FPE : 1;
  double a[kTerms];  // the expansion (FPE > 0)
  double z;          // the sign of an exact zero of the terms that bypass the expansion
  unsigned flags = 0;
  Lane lane;
  Record<DOT>* block_acc;
  // Adaptive mode (warp-uniform): when the expansion leaves residues for too many terms it
  // costs more than it saves, and the warp sends terms straight to its lanes' accumulators for
  // a while, trying the expansion again now and then. Any split of the terms between the two
  // keeps the sum exact, so results do not depend on it.
  bool adaptive = false, direct = false;
  int window = 0, busy_at_start = 0;

  __device__ void init(bool adapt) {
    a[0] = -0.0;
#pragma unroll
    for (int i = 1; i < kTerms; ++i) a[i] = 0.0;
    z = -0.0;
    adaptive = adapt && FPE > 0;
  }
  __device__ bool bypass() const { return FPE == 0 || direct; }

  // Called once per main-loop iteration. The expansion is judged over 16 iterations: if more
  // than 4 of them left a residue anywhere in the warp (each costs a round of pushes), the warp
  // goes direct for 240 iterations, then tries the expansion again.
  __device__ __forceinline__ void adapt() {
    if (!adaptive) return;
    ++window;
    if (!direct && window == 16) {
      direct = lane.busy - busy_at_start > 4;
      window = 0;
    } else if (direct && window == 240) {
      direct = false;
      window = 0;
    }
    if (!direct && window == 0) busy_at_start = lane.busy;
  }

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
    if (__any_sync(kFull, worst >= span)) {
#pragma unroll
      for (int j = 0; j < B; ++j)
        if (abs_hi(v[j]) - lo >= span) {
          if (abs_hi(v[j]) >= 0x7FF00000u) flags |= sum_special_flags(v[j]);
          else lane.add(v[j]);
          v[j] = 0.0;
        }
    }
#pragma unroll
    for (int j = 0; j < B; ++j) lane.add_fast(v[j]);
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
      if (__any_sync(kFull, worst >= kSumSlowHi)) {
#pragma unroll
        for (int j = 0; j < B; ++j)
          if (abs_hi(v[j]) >= kSumSlowHi) {
            sum_slow(v[j], lane, flags);
            v[j] = -0.0;
          }
      }
      fpe_batch<kTerms, EE>(a, v);
      lane.push_batch(v);
    }
  }

  // B dot terms x[j]*y[j] per lane; bit j of `valid` clear makes term j pass nothing.
  template <int B>
  __device__ __forceinline__ void dot_batch(const double (&x)[B], const double (&y)[B], unsigned valid) {
    double v[2 * B];  // products, then their errors (TwoProductFMA)
    bool slow[B], any_slow = false;
#pragma unroll
    for (int j = 0; j < B; ++j) {
      v[j] = __dmul_rn(x[j], y[j]);
      v[B + j] = __fma_rn(x[j], y[j], -v[j]);
      slow[j] = ((valid >> j) & 1) && !dot_fast_range(abs_hi(v[j]));
      any_slow |= slow[j];
    }
    if (__any_sync(kFull, any_slow)) {
#pragma unroll
      for (int j = 0; j < B; ++j)
        if (slow[j]) dot_slow(x[j], y[j], *block_acc, flags);
    }
#pragma unroll
    for (int j = 0; j < B; ++j)
      if (slow[j] || !((valid >> j) & 1)) v[j] = v[B + j] = -0.0;
    if (bypass()) {
#pragma unroll
      for (int j = 0; j < B; ++j) {
        z = __dadd_rn(z, v[j]);
        lane.add_fast(v[j]);  // |p| >= 2^-968, or -0
      }
#pragma unroll
      for (int j = 0; j < B; ++j) lane.add(v[B + j]);  // an error may be tiny
    } else if constexpr (FPE > 0) {
      fpe_batch<kTerms, EE, 2 * B, B>(a, v);
      lane.push_batch(v);
    }
  }
};

// Level 4-5, run by the last block to finish (seed 004 §3.3): the G records summed digit by
// digit and rounded with core's round(); the host receives one double. Record digits may be
// anything below 2^63 in magnitude: each is summed as its low 32 bits and its high part
// (DigitSum), so that G < 2^31 records cannot overflow. Thread t sums digit t % D of every
// (threads / D)-th record: consecutive threads read consecutive digits, many loads in flight.
// `scratch` is shared memory the block no longer needs.
template <bool DOT>
__device__ __noinline__ void finish_records(const Record<DOT>* records, int blocks, int64_t n, double* out, unsigned char* scratch) {
  using R = Record<DOT>;
  constexpr int D = R::kDigits;
  const int groups = blockDim.x >= D ? static_cast<int>(blockDim.x) / D : 1;
  R& acc = *reinterpret_cast<R*>(scratch);
  DigitSum* part = reinterpret_cast<DigitSum*>(scratch + sizeof(R));  // [groups][D]
  unsigned* flags = reinterpret_cast<unsigned*>(part + groups * D);
  if (threadIdx.x == 0) *flags = 0;
  for (int i = threadIdx.x; i < groups * D; i += blockDim.x) {
    const int g = i / D, j = i % D;
    DigitSum s{};
#pragma unroll 8
    for (int b = g; b < blocks; b += groups) s.add(__ldcg(reinterpret_cast<const long long*>(&records[b].digit[j])));
    part[i] = s;
  }
  unsigned f = 0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    R r;  // the counters only
    r.nan_count = __ldcg(reinterpret_cast<const long long*>(&records[b].nan_count));
    r.pos_inf_count = __ldcg(reinterpret_cast<const long long*>(&records[b].pos_inf_count));
    r.neg_inf_count = __ldcg(reinterpret_cast<const long long*>(&records[b].neg_inf_count));
    r.not_neg_zero_count = __ldcg(reinterpret_cast<const long long*>(&records[b].not_neg_zero_count));
    f |= record_flags(r);
  }
  __syncthreads();
  atomicOr(flags, f);
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    DigitSum here{}, below{};
    for (int q = 0; q < groups; ++q) {
      here.low += part[q * D + d].low;
      here.high += part[q * D + d].high;
      if (d > 0) below.high += part[q * D + d - 1].high;
    }
    acc.digit[d] = merged_digit<D>(d, here, &below);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    set_flags(acc, *flags, n);
    *out = acc.round();
  }
}

// Bytes of shared memory finish_records needs.
template <bool DOT>
constexpr size_t finish_scratch_bytes(int block) {
  using R = Record<DOT>;
  const int groups = block >= R::kDigits ? block / R::kDigits : 1;
  return sizeof(R) + sizeof(DigitSum) * groups * R::kDigits + 16;
}

// Level 1-3: each block reduces a grid-stride share of the data into one record.
// x (and y) are 16-byte aligned; nvec = n / 2 pairs, plus the last element when n is odd.
template <int FPE, bool EE, bool DOT>
__global__ void __launch_bounds__(512, 1) superacc_blocks(const double* __restrict__ x, const double* __restrict__ y,
                                                       int64_t n, Record<DOT>* __restrict__ records,
                                                       unsigned* __restrict__ done, double* __restrict__ out,
                                                       int adapt) {
  constexpr int U = kVecs<DOT>;
  // Pieces a lane digit may receive per value: one slow-path or direct add and one ring flush.
  // Normalize before the bound of superacc_lanes.cuh can be reached.
  constexpr int kPerIter = 2 * (DOT ? 4 * U : 2 * U), kPerTail = 2 * (DOT ? 4 : 2);
  extern __shared__ __align__(16) unsigned char smem[];
  const int warps = blockDim.x >> 5, warp = threadIdx.x >> 5, lane_id = threadIdx.x & 31;
  WarpArea* areas = reinterpret_cast<WarpArea*>(smem);
  auto* block_acc = reinterpret_cast<Record<DOT>*>(smem + sizeof(WarpArea) * warps);
  auto* block_flags = reinterpret_cast<unsigned*>(block_acc + 1);

  ThreadState<FPE, EE, DOT> st;
  st.init(adapt != 0);
  st.lane.digit = &areas[warp].digit[0][lane_id];
  st.lane.ring = areas[warp].ring;
  st.lane.lane = lane_id;
  st.block_acc = block_acc;
#pragma unroll
  for (int i = 0; i < kLaneDigits; ++i) st.lane.digit[32 * i] = 0;
  for (int i = threadIdx.x; i < Record<DOT>::kDigits; i += blockDim.x) block_acc->digit[i] = 0;
  if (threadIdx.x == 0) *block_flags = 0;
  __syncthreads();

  const double2* xv = reinterpret_cast<const double2*>(x);
  const double2* yv = reinterpret_cast<const double2*>(y);
  const int64_t nvec = n / 2;
  const int64_t tile = static_cast<int64_t>(blockDim.x) * U;
  const int64_t full_tiles = nvec / tile;
  int pending = 0;

  // Main loop over full tiles, the next tile's loads in flight while this one is processed.
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
    // (Prefetching the tile after next into L2 as well was measured slower: it capped the H200
    // at about 3.95 TB/s for every configuration, against 4.25 TB/s without.)
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
      st.dot_batch(bx, by, (1u << (2 * U)) - 1);
    } else {
      double b[2 * U];
#pragma unroll
      for (int j = 0; j < U; ++j) {
        b[2 * j] = vx[j].x;
        b[2 * j + 1] = vx[j].y;
      }
      st.sum_batch(b);
    }
    st.adapt();
    pending += kPerIter;
    if (pending > kLaneMaxPending - kPerIter) {
      st.lane.normalize();
      pending = 0;
    }
#pragma unroll
    for (int j = 0; j < U; ++j) {
      vx[j] = wx[j];
      if constexpr (DOT) vy[j] = wy[j];
    }
    t = tn;
  }

  // The pairs after the last full tile, one per thread (a block-uniform loop: votes need the
  // whole warp), then the last element when n is odd.
  for (int64_t base = full_tiles * tile + static_cast<int64_t>(blockIdx.x) * blockDim.x; base < nvec + 1;
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
      st.dot_batch(bx, by, (v0 ? 1u : 0u) | (v1 ? 2u : 0u));
    } else {
      double b[2] = {x0, x1};
      st.sum_batch(b);
    }
    pending += kPerTail;
    if (pending > kLaneMaxPending - kPerTail) {
      st.lane.normalize();
      pending = 0;
    }
  }

  // Level 2 done: empty the ring and the expansion into the private accumulator.
  st.lane.normalize();
  st.lane.drain();
  if constexpr (FPE > 0) {
#pragma unroll
    for (int i = 0; i < FPE; ++i) st.lane.add(st.a[i]);
  }
  if (double_bits(st.a[0]) != (uint64_t(1) << 63) || double_bits(st.z) != (uint64_t(1) << 63))
    st.flags |= kFlagNotNegZero;
  st.lane.normalize();
  unsigned wflags = __reduce_or_sync(kFull, st.flags);
  if (lane_id == 0) atomicOr(block_flags, wflags);

  // Level 3: the warp's 32 private accumulators, digit by digit (lane l sums digits l and l+32;
  // the rotation (j + l) & 31 keeps the lanes on distinct banks). Digits are < 2^50 after the
  // normalization, so sums of 32 lanes and of 16 warps stay below 2^59.
  __syncwarp();
  int64_t(*dig)[32] = areas[warp].digit;
  int64_t s0 = 0, s1 = 0;
#pragma unroll 8
  for (int j = 0; j < 32; ++j) {
    const int c = (j + lane_id) & 31;
    s0 += dig[lane_id][c];
    if (lane_id + 32 < kLaneDigits) s1 += dig[lane_id + 32][c];
  }
  __syncwarp();
  dig[lane_id][0] = s0;
  if (lane_id + 32 < kLaneDigits) dig[lane_id + 32][0] = s1;
  __syncthreads();
  if (threadIdx.x < kLaneDigits) {
    int64_t s = 0;
    for (int w = 0; w < warps; ++w) s += areas[w].digit[threadIdx.x][0];
    // Re-cut into core's 32-bit digits (each digit gets at most 3 pieces per lane digit).
    int64_t p0, p1, p2;
    const int pos = lane_digit_pos<Record<DOT>::kLsbExp>(threadIdx.x);
    int64_pieces(s, pos & 31, p0, p1, p2);
    atomic_add_digit(&block_acc->digit[(pos >> 5)], p0);
    atomic_add_digit(&block_acc->digit[(pos >> 5) + 1], p1);
    atomic_add_digit(&block_acc->digit[(pos >> 5) + 2], p2);
  }
  __syncthreads();
  Record<DOT>& rec = records[blockIdx.x];
  for (int i = threadIdx.x; i < Record<DOT>::kDigits; i += blockDim.x) rec.digit[i] = block_acc->digit[i];
  if (threadIdx.x == 0) set_flags(rec, *block_flags, 0);

  // Level 4-5 in the last block to finish (the usual fence-and-count pattern: each block's
  // record is visible device-wide before its count is).
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  finish_records<DOT>(records, gridDim.x, n, out, smem);
  if (threadIdx.x == 0) *done = 0;  // ready for the next launch
}

// ---- host side ----

template <int FPE, bool EE, bool DOT>
void launch_blocks(const double* x, const double* y, int64_t n, void* records, unsigned* done, double* out, int adapt,
                   int grid, int block, size_t smem) {
  superacc_blocks<FPE, EE, DOT><<<grid, block, smem>>>(x, y, n, static_cast<Record<DOT>*>(records), done, out, adapt);
}

using LaunchFn = void (*)(const double*, const double*, int64_t, void*, unsigned*, double*, int, int, int, size_t);

template <bool DOT>
std::pair<LaunchFn, const void*> pick(int fpe, bool ee) {
#define ACCSUM_PICK(F)                                                                                    \
  if (fpe == F)                                                                                          \
    return ee ? std::pair<LaunchFn, const void*>{launch_blocks<F, true, DOT>,                            \
                                                 reinterpret_cast<const void*>(superacc_blocks<F, true, DOT>)} \
              : std::pair<LaunchFn, const void*>{launch_blocks<F, false, DOT>,                           \
                                                 reinterpret_cast<const void*>(superacc_blocks<F, false, DOT>)};
  if (fpe == 0)
    return {launch_blocks<0, false, DOT>, reinterpret_cast<const void*>(superacc_blocks<0, false, DOT>)};
  ACCSUM_PICK(2)
  ACCSUM_PICK(3)
  ACCSUM_PICK(4)
  ACCSUM_PICK(6)
  ACCSUM_PICK(8)
#undef ACCSUM_PICK
  throw UsageError("superacc: fpe must be one of 0, 2, 3, 4, 6, 8");
}

template <bool DOT>
class SuperaccCuda : public CudaKernel {
 public:
  SuperaccCuda(const Problem& p, const Params& params) : CudaKernel(p), out_(1), done_(1) {
    const int fpe = static_cast<int>(param_int(params, "fpe"));
    const bool ee = param_int(params, "early_exit") != 0;
    block_ = static_cast<int>(param_int(params, "block"));
    adaptive_ = static_cast<int>(param_int(params, "adaptive"));
    auto [fn, func] = pick<DOT>(fpe, ee);
    launch_ = fn;
    if ((reinterpret_cast<uintptr_t>(in_->x) | reinterpret_cast<uintptr_t>(in_->y)) & 15)
      throw std::logic_error("superacc (cuda): device input is not 16-byte aligned");
    smem_ = std::max(sizeof(WarpArea) * (block_ / 32) + sizeof(Record<DOT>) + 16, finish_scratch_bytes<DOT>(block_));
    ACCSUM_CUDA_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_)));
    int dev = 0, sms = 0, per_sm = 0;
    ACCSUM_CUDA_CHECK(cudaGetDevice(&dev));
    ACCSUM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    ACCSUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, block_, smem_));
    if (per_sm < 1) throw UsageError("superacc (cuda): block=" + std::to_string(block_) + " does not fit on this GPU");
    const int64_t grid_param = param_int(params, "grid");
    int64_t grid = grid_param > 0 ? grid_param : static_cast<int64_t>(sms) * per_sm;
    if (grid_param == 0) {  // no more blocks than there is work for
      const int64_t work = (in_->n / 2 + static_cast<int64_t>(block_) * kVecs<DOT> - 1) /
                           (static_cast<int64_t>(block_) * kVecs<DOT>);
      grid = std::max<int64_t>(1, std::min(grid, work));
    }
    // Bound the terms per block so that block-shared digits (dot slow path) stay under 2^31 pieces.
    grid = std::max(grid, (in_->n >> 28) + 1);
    grid_ = static_cast<int>(std::min<int64_t>(grid, 1 << 20));
    records_ = DeviceBuffer<Record<DOT>>(grid_);
    ACCSUM_CUDA_CHECK(cudaMemset(done_.get(), 0, sizeof(unsigned)));
  }

  double run() override {
    timer_.start();
    launch_(in_->x, in_->y, in_->n, records_.get(), done_.get(), out_.get(), adaptive_, grid_, block_, smem_);
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    last_ = timer_.stop_seconds();
    double r = 0;
    ACCSUM_CUDA_CHECK(cudaMemcpy(&r, out_.get(), sizeof r, cudaMemcpyDeviceToHost));
    return r;
  }

  // The exact, unrounded result of the last run(): the block records summed on the host the way
  // finish_records sums them on the device (levels 4 without 5), for the mpi backend's inner=cuda.
  Record<DOT> merged_records() const {
    using R = Record<DOT>;
    constexpr int D = R::kDigits;
    std::vector<R> recs(grid_);
    ACCSUM_CUDA_CHECK(cudaMemcpy(recs.data(), records_.get(), sizeof(R) * grid_, cudaMemcpyDeviceToHost));
    std::vector<DigitSum> sums(D, DigitSum{});
    unsigned flags = 0;
    for (const R& r : recs) {
      for (int d = 0; d < D; ++d) sums[d].add(r.digit[d]);
      flags |= record_flags(r);
    }
    R acc;
    acc.clear();
    for (int d = 0; d < D; ++d) acc.digit[d] = merged_digit<D>(d, sums[d], d > 0 ? &sums[d - 1] : nullptr);
    set_flags(acc, flags, in_->n);
    acc.normalize();
    return acc;
  }

 private:
  LaunchFn launch_ = nullptr;
  int block_ = 256, grid_ = 1, adaptive_ = 1;
  size_t smem_ = 0;
  DeviceBuffer<Record<DOT>> records_;
  DeviceBuffer<double> out_;
  DeviceBuffer<unsigned> done_;  // blocks finished; the last one resets it
  EventTimer timer_;
};

// Defaults: the configuration measured fastest on the H200 (results/superacc_cuda_*.json).
std::vector<ParamSpec> superacc_params(const char* fpe, const char* early_exit, const char* adaptive,
                                       const char* block) {
  return {
      ParamSpec{"fpe", "level-1 expansion size n (0 = pure superaccumulator)", true, 0, 8,
                {"0", "2", "3", "4", "6", "8"}, fpe},
      ParamSpec{"early_exit", "stop the expansion when the residue is zero (warp-wide vote)", true, 0, 1, {}, early_exit},
      ParamSpec{"adaptive", "bypass the expansion while it leaves residues in more than 4 of 16 batches", true, 0, 1,
                {}, adaptive},
      ParamSpec{"block", "threads per block", true, 128, 512, {"128", "256", "512"}, block},
      ParamSpec{"grid", "blocks (0 = as many as fit on the GPU at once)", true, 0, 1 << 20, {}, "0"},
  };
}

// Launch shapes that must give the same bits (correct rounding makes any shape agree).
std::vector<Params> superacc_shapes(const Params& p) {
  std::vector<Params> v;
  for (const char* b : {"128", "256", "512"}) {
    Params q = p;
    q["block"] = b;
    if (q != p) v.push_back(q);
  }
  Params q = p;
  q["grid"] = "37";
  if (q != p) v.push_back(q);
  return v;
}

const char* kCite =
    "Collange, Defour, Graillat, Iakymchuk, Numerical Reproducibility for the Parallel Reduction on Multi- and "
    "Many-Core Architectures (ExBLAS), 2015 (seed 004)";

Registrar reg_superacc(AlgoEntry("sum", "superacc", "cuda",
    "correctly rounded sum: per-thread FP expansion + private shared-memory superaccumulators (seed 004)")
    .promises(Guarantee::correctly_rounded)
    .promises_reproducible()
    .with_params(superacc_params("0", "0", "1", "512"))
    .maker([](const Problem& p, const Params& params) -> std::unique_ptr<Kernel> {
      return std::make_unique<SuperaccCuda<false>>(p, params);
    })
    .shapes(superacc_shapes));

Registrar reg_superacc_dot(AlgoEntry("dot", "superacc-dot", "cuda",
    "correctly rounded dot: TwoProductFMA + per-thread FP expansion + superaccumulators (seed 004)")
    .promises(Guarantee::correctly_rounded)
    .promises_reproducible()
    .with_params(superacc_params("0", "0", "1", "512"))
    .maker([](const Problem& p, const Params& params) -> std::unique_ptr<Kernel> {
      return std::make_unique<SuperaccCuda<true>>(p, params);
    })
    .shapes(superacc_shapes));

// The mpi backend's inner=cuda: each rank sums its slice on the GPU and hands back the exact,
// unrounded superaccumulator; MPI merges them and rounds once (seed 004 level 4).
template <bool DOT>
class SuperaccCudaPartial : public SuperaccPartial {
 public:
  SuperaccCudaPartial(const Problem& slice, const Params& mpi_params) : kernel_(slice, cuda_params(mpi_params)) {}
  void accumulate_sum(Superacc& acc) override {
    if constexpr (DOT) throw std::logic_error("superacc partial: a dot slice asked for a sum");
    else accumulate(acc);
  }
  void accumulate_dot(SuperaccDot& acc) override {
    if constexpr (!DOT) throw std::logic_error("superacc partial: a sum slice asked for a dot");
    else accumulate(acc);
  }

 private:
  // The cuda entry's parameters with the mpi entry's fpe / early_exit, defaults for the rest.
  static Params cuda_params(const Params& q) {
    const AlgoEntry* e = registry().find(DOT ? "superacc-dot" : "superacc", "cuda");
    Params user;
    for (const char* k : {"fpe", "early_exit"})
      if (q.count(k)) user[k] = q.at(k);
    return registry().resolve_params(*e, user);
  }
  void accumulate(Record<DOT>& acc) {
    kernel_.run();
    acc.merge(kernel_.merged_records());
  }
  SuperaccCuda<DOT> kernel_;
};

SuperaccPartialRegistrar reg_partial("cuda", [](const Problem& slice, const Params& q) -> std::unique_ptr<SuperaccPartial> {
  if (slice.y) return std::make_unique<SuperaccCudaPartial<true>>(slice, q);
  return std::make_unique<SuperaccCudaPartial<false>>(slice, q);
});

}  // namespace
}  // namespace accsum::cuda
