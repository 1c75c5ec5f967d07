#pragma once
// Warp geometry, named once for every CUDA kernel here (superacc, dpsumk).
#include <cuda_runtime.h>

namespace accsum::cuda {

constexpr int kWarpLog2 = 5;
constexpr int kWarpThreads = 1 << kWarpLog2;  // 32
constexpr unsigned kFullMask = 0xFFFFFFFFu;   // every lane of a warp in a vote or shuffle

__device__ __forceinline__ int lane_of(int thread) { return thread & (kWarpThreads - 1); }
__device__ __forceinline__ int warp_of(int thread) { return thread >> kWarpLog2; }

}  // namespace accsum::cuda
