#pragma once
// Thread level: one thread's ("lane's") private superaccumulator in shared memory, in the compact
// 50-bit digit layout of core/numerics/superacc_lanes.h (read its comment first). Private means no atomics
// and no carry lost to contention, whatever the data (Collange, Defour, Graillat, Iakymchuk,
// Parallel Computing 2015, Sec. 3.2, level 2). The lanes of a warp interleave their digits
// ([digit][lane], see WarpArea) so that they touch distinct banks.
#include <cuda_runtime.h>

#include "backends/cuda/thread/superacc_lanes.cuh"

namespace accsum::cuda {

struct LaneAccumulator {
  int64_t* digit;  // digit i at digit[kStride * i]
  static constexpr int kStride = 32;

  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int i = 0; i < kLaneDigits; ++i) digit[kStride * i] = 0;
  }
  // x finite with lane_fast_ok(x): the FP64 cut, two pieces.
  __device__ __forceinline__ void add_fast(double x) { accsum_lane_add_fast(digit, kStride, x); }
  // Any finite x (the integer cut, three pieces, for the rare tiny ones).
  __device__ __forceinline__ void add(double x) { accsum_lane_add(digit, kStride, x); }
  __device__ void normalize() { lane_normalize(digit, kStride); }
};

}  // namespace accsum::cuda
