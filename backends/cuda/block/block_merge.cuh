#pragma once
// Block level: the exact accumulator a block shares in shared memory (core's 32-bit-digit
// layout, whose 31 headroom bits let shared-memory atomics add 2^31 pieces with no carry to
// propagate and none to lose) and the block's merge of its warps' lane digits into it: the
// block's record (Collange, Defour, Graillat, Iakymchuk, Parallel
// Computing 2015, Sec. 3.2, level 3).
#include <cuda_runtime.h>

#include "backends/cuda/warp/warp_ring.cuh"
#include "core/numerics/superacc.hpp"

namespace accsum::cuda {

__device__ __forceinline__ void atomic_add_digit(int64_t* d, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
}

// The block merge's sums per core digit as 32-bit counters (thread/superacc_lanes.cuh:
// piece_low_half, piece_high_half), added with native shared-memory atomics.
template <class Record>
struct DigitHalves {
  uint32_t low[Record::kDigits];
  int32_t high[Record::kDigits];

  __device__ __forceinline__ void add(int d, int64_t piece) {
    atomicAdd(&low[d], piece_low_half(piece));
    atomicAdd(&high[d], piece_high_half(piece));
  }
  __device__ __forceinline__ int64_t value(int d) const { return halves_value(low[d], high[d]); }
};

// Clears a block-shared accumulator's digits, the block's flags and, when there are any, the merge's
// digit halves (call before __syncthreads).
template <class Record>
__device__ __forceinline__ void block_clear(Record* acc, unsigned* flags, DigitHalves<Record>* halves = nullptr) {
  for (int i = threadIdx.x; i < Record::kDigits; i += blockDim.x) {
    acc->digit[i] = 0;
    if (halves) halves->low[i] = 0, halves->high[i] = 0;
  }
  if (threadIdx.x == 0) *flags = 0;
}

// The exact product a*b into the block's SuperaccDot with shared-memory atomics (the dot slow
// path; thread/superacc_lanes.cuh: dot_slow_terms). Returns the flags of the term.
__device__ __forceinline__ unsigned block_add_product(double a, double b, SuperaccDot& acc) {
  return dot_slow_terms(a, b, [&acc](int idx, int64_t v) { atomic_add_digit(&acc.digit[idx], v); });
}

// The block's shared accumulator as level 2 (no private lanes): each finite value is cut into
// core's three pieces (superacc_split) and added with shared-memory atomics. A digit receives at
// most one piece per value, and a block at most 2^29 values (2^28 terms, a dot's product and its
// error): inside the 2^31 pieces the headroom takes without a carry. The interface is
// LaneAccumulator's; clear and normalize have nothing to do (block_clear clears it).
template <class Record>
struct BlockSharedAccumulator {
  Record* record;
  __device__ __forceinline__ void clear() {}
  __device__ __forceinline__ void normalize() {}
  __device__ __forceinline__ void add(double x) {
    if (x == 0.0) return;  // the sign of a zero is tracked by flags, not digits
    int idx;
    int64_t d0, d1, d2;
    superacc_split<Record::kLsbExp>(x, idx, d0, d1, d2);
    atomic_add_digit(&record->digit[idx], d0);
    atomic_add_digit(&record->digit[idx + 1], d1);
    if (d2 != 0) atomic_add_digit(&record->digit[idx + 2], d2);
  }
  __device__ __forceinline__ void add_fast(double x) { add(x); }
};

// Level 3: every warp sums its lanes' digits without carries (warp_reduce_lane_digits) and re-cuts
// its sums into core's 32-bit digits of block_acc with shared-memory atomics (3 pieces below 2^33 per
// lane digit; a core digit gets at most 3 per warp, 48 in a 512-thread block: far inside the 31
// headroom bits). The warps do not wait for each other before that (a block-wide sum over the warps
// first cost a barrier and a 16-step loop in 43 threads). With `halves` the pieces go to its 32-bit
// counters instead (native atomics: no compare-and-swap retries between the warps; block_add_totals
// adds them to the digits), the same integers. Ends with __syncthreads().
template <class Record, int RING>
__device__ __forceinline__ void block_merge_lanes(WarpArea<RING>* areas, Record* block_acc,
                                                  DigitHalves<Record>* halves = nullptr) {
  const int warp = warp_of(threadIdx.x), lane = lane_of(threadIdx.x);
  warp_reduce_lane_digits(areas[warp].digit, lane);
  __syncwarp();
  for (int d = lane; d < kLaneDigits; d += kWarpThreads) {
    int64_t p[3];
    const int pos = lane_digit_pos<Record::kLsbExp>(d);
    const int idx = pos >> kSuperaccDigitLog2;
    int64_pieces(areas[warp].digit[d][0], pos & (kSuperaccDigitBits - 1), p[0], p[1], p[2]);
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      if (halves)
        halves->add(idx + k, p[k]);
      else
        atomic_add_digit(&block_acc->digit[idx + k], p[k]);
    }
  }
  __syncthreads();
}

}  // namespace accsum::cuda
