#pragma once
// Thread level: one thread's ("lane's") private superaccumulator in shared memory, in the compact
// 50-bit digit layout of thread/superacc_lanes.cuh (read its comment first). Private means no atomics
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
  __device__ __forceinline__ void add_fast(double x) {
    int k;
    int64_t lo, hi;
    lane_split_fast(x, k, lo, hi);
    digit[kStride * k] += lo;
    digit[kStride * (k + 1)] += hi;
  }
  // Any finite x (the integer cut, three pieces, for the rare tiny ones).
  __device__ __forceinline__ void add(double x) {
    if (lane_fast_ok(x)) {
      add_fast(x);
    } else {
      int k;
      int64_t p0, p1, p2;
      lane_split_exact(x, k, p0, p1, p2);
      digit[kStride * k] += p0;
      digit[kStride * (k + 1)] += p1;
      digit[kStride * (k + 2)] += p2;
    }
  }
  __device__ void normalize() { lane_normalize(digit, kStride); }
};

}  // namespace accsum::cuda
