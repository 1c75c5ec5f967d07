#pragma once
// Warp level: the shared-memory area of one warp (its 32 lanes' private digits and a ring of
// residues), the ring that compacts the lanes' residues so that a warp pays for a flush into the
// lane accumulators only when 32 are waiting, and the warp's reduction of its lanes' digits.
// Everything here must be called by a converged warp.
#include <cuda_runtime.h>

#include "backends/cuda/thread/lane_accumulator.cuh"
#include "backends/cuda/thread/thread_expansion.cuh"

namespace accsum::cuda {

// Per warp in shared memory: the 32 lanes' private digits, interleaved so that the lanes of a
// warp touch distinct banks ([digit][lane]), and the ring of RING residues waiting for a flush.
template <int RING>
struct WarpArea {
  int64_t digit[kLaneDigits][kWarpThreads];
  double ring[RING];
};

// Per warp in shared memory when the block's shared accumulator takes the residues: the ring alone.
template <int RING>
struct WarpRingArea {
  double ring[RING];
};

// The warp's ring of residues (RING a power of two >= 64). head/count/busy are warp-uniform.
template <int RING>
struct WarpResidueRing {
  double* ring;
  int lane;
  int head = 0, count = 0;
  int busy = 0;  // batches that left residues, for the adaptive mode

  // Queues the lanes' non-zero residues; when 32 are waiting each lane adds one of them to its
  // accumulator (Acc: add(double)).
  template <class Acc>
  __device__ __forceinline__ void push(double r, Acc& acc) {
    bool nz = nonzero(r);
    unsigned mask = __ballot_sync(kFullMask, nz);
    if (mask == 0) return;
    int slot = count + __popc(mask & ((1u << lane) - 1));
    if (nz) ring[(head + slot) & (RING - 1)] = r;
    count += __popc(mask);
    if (count >= kWarpThreads) {
      __syncwarp();
      double v = ring[(head + lane) & (RING - 1)];
      __syncwarp();
      head = (head + kWarpThreads) & (RING - 1);
      count -= kWarpThreads;
      acc.add(v);
    }
  }
  // Pushes a batch of residues; the common case (none anywhere in the warp) costs one vote.
  template <int B, class Acc>
  __device__ __forceinline__ void push_batch(const double (&r)[B], Acc& acc) {
    bool any = false;
#pragma unroll
    for (int j = 0; j < B; ++j) any |= nonzero(r[j]);
    if (!__any_sync(kFullMask, any)) return;
    ++busy;
#pragma unroll
    for (int j = 0; j < B; ++j) push(r[j], acc);
  }
  // Adds what is left in the ring (fewer than 32 residues).
  template <class Acc>
  __device__ void drain(Acc& acc) {
    __syncwarp();
    double v = lane < count ? ring[(head + lane) & (RING - 1)] : 0.0;
    acc.add(v);
    count = 0;
  }
};

// The warp's 32 lane accumulators summed digit by digit into column 0 of dig, with no carry
// propagated (thread/superacc_lanes.cuh, LaneSum): the lanes' digits may still hold up to
// kLaneMaxPending pending pieces, so no lane is normalized at the end. Row d (digit d of the 32
// lanes) becomes low[d] + high[d-1], its low and high parts summed over the lanes. Lane l sums
// row l, and lanes 2i, 2i+1 each half of row 32 + i (i < 11); the rotations keep each half-warp
// on distinct banks. Results stay below 2^56 in magnitude.
__device__ __forceinline__ void warp_reduce_lane_digits(int64_t (*dig)[kWarpThreads], int lane) {
  constexpr int kHalf = kWarpThreads / 2, kUpperRows = kLaneDigits - kWarpThreads;
  const int row1 = kWarpThreads + (lane >> 1), half = (lane & 1) * kHalf;
  __syncwarp();
  uint64_t t0 = 0, t1 = 0;  // the digits summed modulo 2^64 (lane_sum_from_total)
  int h0 = 0, h1 = 0;       // their high parts: |.| <= 32 * 2^13
  const int64_t* row0_digits = dig[lane];
  const int64_t* row1_digits = dig[lane < 2 * kUpperRows ? row1 : kWarpThreads] + half;
#pragma unroll 8
  for (int j = 0; j < kWarpThreads; ++j) {
    const int64_t v = row0_digits[(j + lane) & (kWarpThreads - 1)];
    t0 += static_cast<uint64_t>(v);
    h0 += static_cast<int>(v >> kLaneDigitBits);
  }
  if (lane < 2 * kUpperRows) {
#pragma unroll 8
    for (int j = 0; j < kHalf; ++j) {
      const int64_t v = row1_digits[(j + lane) & (kHalf - 1)];
      t1 += static_cast<uint64_t>(v);
      h1 += static_cast<int>(v >> kLaneDigitBits);
    }
  }
  t1 += __shfl_xor_sync(kFullMask, t1, 1);
  h1 += __shfl_xor_sync(kFullMask, h1, 1);
  // The high part of the row below: row l - 1 in lane l - 1; row 31 in lane 31 (below row 32);
  // row 32 + i - 1 in lane 2 (i - 1).
  const int below_l = __shfl_sync(kFullMask, h0, (lane + kWarpThreads - 1) & (kWarpThreads - 1));
  const int below_31 = __shfl_sync(kFullMask, h0, kWarpThreads - 1);
  const int below_up = __shfl_sync(kFullMask, h1, (lane + kWarpThreads - 2) & (kWarpThreads - 1));
  const LaneSum below0{0, lane > 0 ? below_l : 0}, below1{0, row1 == kWarpThreads ? below_31 : below_up};
  __syncwarp();
  dig[lane][0] = merged_digit<kLaneDigits, kLaneDigitBits>(lane, lane_sum_from_total(t0, h0), &below0);
  if (lane < 2 * kUpperRows && half == 0)
    dig[row1][0] = merged_digit<kLaneDigits, kLaneDigitBits>(row1, lane_sum_from_total(t1, h1), &below1);
}

}  // namespace accsum::cuda
