#pragma once
// Device level: the blocks add their records into device-wide digit totals, and in the last
// block to finish one warp propagates the carries and rounds to what core's
// BasicSuperacc::round() gives; the host receives one double (Collange, Defour, Graillat, Iakymchuk, Parallel Computing
// 2015, Sec. 3.3, levels 4-5). The usual fence-and-count pattern picks the last block, as CUB's single-pass reductions
// do without a second launch.
#include <cuda_runtime.h>

#include "backends/cuda/block/block_merge.cuh"
#include "backends/cuda/warp/warp.cuh"
#include "backends/cuda/thread/superacc_lanes.cuh"
#include "core/numerics/superacc.hpp"

namespace accsum::cuda {

// True in every thread of the last block to arrive (each block's record is visible device-wide
// before its count is). The last block resets the counter for the next launch with
// reset_block_counter() once it is done. One fence by thread 0 after the barrier covers the
// whole block's writes (PTX fences are cumulative; cooperative groups' grid sync does the same),
// instead of a fence in every warp.
__device__ __forceinline__ bool last_block_done(unsigned* done) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(done, 1u) == gridDim.x - 1;
    if (last) __threadfence();
  }
  __syncthreads();
  return last;
}
__device__ __forceinline__ void reset_block_counter(unsigned* done) {
  if (threadIdx.x == 0) *done = 0;
}

// Level 5, carry propagation on one warp: lane l holds digits l + 32 r (r < RW; zero from D on)
// of a D-digit core accumulator, each below 2^63 in magnitude; afterwards they are what
// accsum_normalize leaves (digits below the top in [0, 2^32), the top signed). Two local passes
// bring every carry into {-1, 0, 1}, then a prefix of carry functions over the warp
// (thread/superacc_lanes.cuh: carry_fn) resolves chains of any length in 5 shuffle steps per row of 32.
template <int D, int RW>
__device__ __forceinline__ void warp_normalize(int64_t (&v)[RW], int lane) {
  constexpr int64_t kMask = static_cast<int64_t>(kDigitMask);
  const int from = (lane + kWarpThreads - 1) & (kWarpThreads - 1);
  for (int pass = 0; pass < 2; ++pass) {
    int64_t c[RW], below[RW];
#pragma unroll
    for (int r = 0; r < RW; ++r) {
      const bool low = lane + kWarpThreads * r < D - 1;
      c[r] = low ? v[r] >> kSuperaccDigitBits : 0;
      if (low) v[r] &= kMask;
      below[r] = __shfl_sync(kFullMask, c[r], from);
    }
#pragma unroll
    for (int r = 0; r < RW; ++r) v[r] += lane > 0 ? below[r] : (r > 0 ? below[r - 1] : 0);
  }
  int row_carry = 0;  // into digit 32 r
#pragma unroll
  for (int r = 0; r < RW; ++r) {
    const int d = lane + kWarpThreads * r;
    unsigned f = d < D - 1 ? carry_fn(v[r]) : kCarryIdentity;  // then: digits 32 r .. d composed
#pragma unroll
    for (int off = 1; off < kWarpThreads; off <<= 1) {
      const unsigned g = __shfl_up_sync(kFullMask, f, off);
      if (lane >= off) f = carry_compose(f, g);
    }
    const unsigned lower = __shfl_up_sync(kFullMask, f, 1);
    const int carry = lane > 0 ? carry_apply(lower, row_carry) : row_carry;
    if (d < D - 1)
      v[r] = (v[r] + carry) & kMask;
    else if (d == D - 1)
      v[r] += carry;
    row_carry = carry_apply(__shfl_sync(kFullMask, f, kWarpThreads - 1), row_carry);
  }
}

// -v of a normalized negative v on one warp, in one pass (negated_normalized_digit): one vote per
// row finds the lowest non-zero digit.
template <int D, int RW>
__device__ __forceinline__ void warp_negate_normalized(int64_t (&v)[RW], int lane) {
  int lowest = D - 1;
#pragma unroll
  for (int r = RW - 1; r >= 0; --r) {
    const unsigned m = __ballot_sync(kFullMask, v[r] != 0);
    if (m) lowest = kWarpThreads * r + __ffs(m) - 1;
  }
#pragma unroll
  for (int r = 0; r < RW; ++r) v[r] = negated_normalized_digit(v[r], lane + kWarpThreads * r, lowest, D);
}

// Level 5 on one warp (all 32 lanes call it; every lane returns the result): core's
// BasicSuperacc<D, L>::round() of the digits (shared memory, any int64 below 2^63 in magnitude)
// with the merged flags: normalize, negate when negative (one_pass_negate: warp_negate_normalized,
// else a second normalization of the negated digits: the same digits), find the top digit and the
// sticky bit by votes, and round the top three digits (round_window).
template <class R>
__device__ __forceinline__ double warp_round(const int64_t* digit, unsigned flags, int64_t n, int lane,
                                             bool one_pass_negate) {
  constexpr int D = R::kDigits, RW = (D + kWarpThreads - 1) / kWarpThreads;
  int64_t v[RW];
#pragma unroll
  for (int r = 0; r < RW; ++r) v[r] = lane + kWarpThreads * r < D ? digit[lane + kWarpThreads * r] : 0;
  warp_normalize<D>(v, lane);
  const bool negative = __shfl_sync(kFullMask, v[(D - 1) / kWarpThreads], (D - 1) % kWarpThreads) < 0;
  if (negative && one_pass_negate) {
    warp_negate_normalized<D>(v, lane);
  } else if (negative) {
#pragma unroll
    for (int r = 0; r < RW; ++r) v[r] = -v[r];
    warp_normalize<D>(v, lane);
  }
  int k = -1;
#pragma unroll
  for (int r = RW - 1; r >= 0; --r) {
    const unsigned m = __ballot_sync(kFullMask, v[r] != 0);
    if (k < 0 && m) k = kWarpThreads * r + kWarpThreads - 1 - __clz(m);
  }
  bool below = false;
#pragma unroll
  for (int r = 0; r < RW; ++r) below |= lane + kWarpThreads * r < k - 2 && v[r] != 0;
  const bool sticky = __any_sync(kFullMask, below);
  auto digit_at = [&](int d) {  // warp-uniform d; 0 below digit 0
    int64_t out = 0;
#pragma unroll
    for (int r = 0; r < RW; ++r) {
      const int64_t t = __shfl_sync(kFullMask, v[r], d & (kWarpThreads - 1));
      if (d >= 0 && d / kWarpThreads == r) out = t;
    }
    return out;
  };
  const int64_t dk = digit_at(k), dk1 = digit_at(k - 1), dk2 = digit_at(k - 2);
  return round_window<R::kLsbExp>(flags, n, negative, k, dk, dk1, dk2, sticky);
}

// Level 4, device-wide: every block adds its record (the block accumulator's digits and flags) into
// device-memory totals with atomics that return nothing, instead of storing a record for the last
// block to sum: the sums are spread over the blocks as they finish, and the last block reads a
// fixed number of words whatever G is. Block b adds into slot b % kTotalSlots: atomics on one
// address are serialized, and G blocks on one set of D digits would queue for microseconds. Each
// digit is added as its low 32 bits and its high part (DigitSum: no carries, exact for G < 2^31
// records of any int64 digits), and integer additions commute, so the totals are the same bits in
// any order of the blocks. The last block resets them to zero for the next launch (zero from
// cudaMemset before the first).
constexpr int kTotalSlots = 16;

template <class R>
struct DeviceTotals {
  struct Slot {
    DigitSum digit[R::kDigits];
    unsigned flags;
  } slot[kTotalSlots];
};

// With `halves` (block_merge_lanes' 32-bit counters) their values are added to the record's digits.
template <class R>
__device__ __forceinline__ void block_add_totals(const R* block_acc, const unsigned* flags, DeviceTotals<R>& totals,
                                                 const DigitHalves<R>* halves = nullptr) {
  auto& slot = totals.slot[blockIdx.x % kTotalSlots];
  for (int d = threadIdx.x; d < R::kDigits; d += blockDim.x) {
    const int64_t v = block_acc->digit[d] + (halves ? halves->value(d) : 0);
    atomicAdd(reinterpret_cast<unsigned long long*>(&slot.digit[d].low),
              static_cast<unsigned long long>(v & static_cast<int64_t>(kDigitMask)));
    atomicAdd(reinterpret_cast<unsigned long long*>(&slot.digit[d].high),
              static_cast<unsigned long long>(v >> kSuperaccDigitBits));
  }
  if (threadIdx.x == 0) atomicOr(&slot.flags, *flags);
}

// Levels 4-5 in the last block: the slots summed and re-cut into digits (merged_digit), rounded by
// one warp (warp_round), and reset. `scratch` is shared memory the block no longer needs
// (finish_scratch_bytes). When `merged` is set, the merged record (digits unnormalized, counters
// from the flags) is also stored there: the exact, unrounded result that the mpi backend's ranks
// combine. one_pass_negate: warp_round's.
template <class R>
__device__ __noinline__ void finish_totals(DeviceTotals<R>& totals, int64_t n, double* out, unsigned char* scratch,
                                           R* merged, bool one_pass_negate) {
  constexpr int D = R::kDigits;
  R& acc = *reinterpret_cast<R*>(scratch);
  DigitSum* sums = reinterpret_cast<DigitSum*>(scratch + sizeof(R));  // [D]
  unsigned* flags = reinterpret_cast<unsigned*>(sums + D);
  auto load = [](const int64_t& v) { return static_cast<int64_t>(__ldcg(reinterpret_cast<const long long*>(&v))); };
  if (threadIdx.x == 0) *flags = 0;
  __syncthreads();
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    DigitSum s{};
#pragma unroll
    for (int k = 0; k < kTotalSlots; ++k) {
      s.low += load(totals.slot[k].digit[d].low);
      s.high += load(totals.slot[k].digit[d].high);
    }
    sums[d] = s;
  }
  if (threadIdx.x < kTotalSlots) atomicOr(flags, __ldcg(&totals.slot[threadIdx.x].flags));
  __syncthreads();
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    acc.digit[d] = merged_digit<D>(d, sums[d], d > 0 ? &sums[d - 1] : nullptr);
    if (merged) merged->digit[d] = acc.digit[d];
  }
  for (int i = threadIdx.x; i < kTotalSlots * D; i += blockDim.x) totals.slot[i / D].digit[i % D] = DigitSum{};
  if (threadIdx.x < kTotalSlots) totals.slot[threadIdx.x].flags = 0;
  if (merged && threadIdx.x == 0) set_flags(*merged, *flags, n);
  __syncthreads();
  if (threadIdx.x < kWarpThreads) {
    const double r = warp_round<R>(acc.digit, *flags, n, static_cast<int>(threadIdx.x), one_pass_negate);
    if (threadIdx.x == 0) *out = r;
  }
}

// Bytes of shared memory finish_totals needs.
template <class R>
constexpr size_t finish_scratch_bytes() {
  return sizeof(R) + sizeof(DigitSum) * R::kDigits + 16;
}

}  // namespace accsum::cuda
