#pragma once
// Warp geometry, named once for every CUDA kernel here (superacc, dpsumk).
#include <cuda_runtime.h>

namespace accsum::cuda {

constexpr int kWarpLog2 = 5;
constexpr int kWarpThreads = 1 << kWarpLog2;  // 32
constexpr unsigned kFullMask = 0xFFFFFFFFu;   // every lane of a warp in a vote or shuffle

// Lane and warp of a thread index (threadIdx.x, or an int copy of it: the shift keeps its type).
template <class T>
__device__ __forceinline__ int lane_of(T thread) {
  return static_cast<int>(thread & (kWarpThreads - 1));
}
template <class T>
__device__ __forceinline__ int warp_of(T thread) {
  return static_cast<int>(thread >> kWarpLog2);
}

}  // namespace accsum::cuda
