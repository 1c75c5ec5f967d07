#pragma once
// Warp level: the shared-memory area of one warp (its 32 lanes' private digits and a ring of
// residues), the ring that compacts the lanes' residues so that a warp pays for a flush into the
// lane accumulators only when 32 are waiting, and the warp's reduction of its lanes' digits.
// Everything here must be called by a converged warp.
#include <cuda_runtime.h>

#include "backends/cuda/blocks/lane_accumulator.cuh"
#include "backends/cuda/blocks/thread_expansion.cuh"

namespace accsum::cuda {

// Per warp in shared memory: the 32 lanes' private digits, interleaved so that the lanes of a
// warp touch distinct banks ([digit][lane]), and the ring of RING residues waiting for a flush.
template <int RING>
struct WarpArea {
  int64_t digit[kLaneDigits][kWarpThreads];
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

// The warp's 32 lane accumulators summed digit by digit into column 0 of dig (lane l sums
// digits l and l + 32; the rotation (j + l) & 31 keeps the lanes on distinct banks). Digits are
// < 2^50 after normalization, so sums of 32 lanes (and later of 16 warps) stay below 2^59.
__device__ __forceinline__ void warp_reduce_lane_digits(int64_t (*dig)[kWarpThreads], int lane) {
  __syncwarp();
  int64_t s0 = 0, s1 = 0;
#pragma unroll 8
  for (int j = 0; j < kWarpThreads; ++j) {
    const int c = (j + lane) & (kWarpThreads - 1);
    s0 += dig[lane][c];
    if (lane + kWarpThreads < kLaneDigits) s1 += dig[lane + kWarpThreads][c];
  }
  __syncwarp();
  dig[lane][0] = s0;
  if (lane + kWarpThreads < kLaneDigits) dig[lane + kWarpThreads][0] = s1;
}

}  // namespace accsum::cuda
