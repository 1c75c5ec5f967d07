#pragma once
// Thread level of the lane-accumulator kernels (dpsumk fused, fpe-sum): G lanes in all, a thread
// owns the LPT adjacent lanes g0 .. g0 + LPT - 1, and lane g takes the 16-byte groups j = g, g + G,
// ... (elements 2j, 2j + 1, in order); the odd last element goes to the lane that owns its group.
// U rows of LPT 16-byte streaming loads (per vector) are in flight before any is used, so a warp
// reads 512 * LPT contiguous bytes per row. `elem(l, x_i, y_i)` adds one element to lane g0 + l
// (y_i = 0 for sums); the order of elements within a lane is fixed by n and G alone.
#include <cstdint>

namespace accsum::cuda {

template <int LPT, int U, bool Dot, class Elem>
__device__ __forceinline__ void stream_lanes(const double* __restrict__ x, const double* __restrict__ y, int64_t n,
                                             int64_t G, int64_t g0, Elem&& elem) {
  const double2* x2 = reinterpret_cast<const double2*>(x);
  const double2* y2 = reinterpret_cast<const double2*>(y);
  const int64_t groups = n / 2;
  int64_t j = g0;
  for (; j + (U - 1) * G + (LPT - 1) < groups; j += U * G) {
    double2 xv[U][LPT], yv[U][LPT];
#pragma unroll
    for (int r = 0; r < U; ++r)
#pragma unroll
      for (int l = 0; l < LPT; ++l) {
        xv[r][l] = __ldcs(x2 + j + r * G + l);
        if (Dot) yv[r][l] = __ldcs(y2 + j + r * G + l);
      }
#pragma unroll
    for (int r = 0; r < U; ++r)
#pragma unroll
      for (int l = 0; l < LPT; ++l) {
        elem(l, xv[r][l].x, Dot ? yv[r][l].x : 0.0);
        elem(l, xv[r][l].y, Dot ? yv[r][l].y : 0.0);
      }
  }
  for (; j < groups; j += G) {
#pragma unroll
    for (int l = 0; l < LPT; ++l)
      if (j + l < groups) {
        double2 xv = __ldcs(x2 + j + l), yv = Dot ? __ldcs(y2 + j + l) : double2{0, 0};
        elem(l, xv.x, yv.x);
        elem(l, xv.y, yv.y);
      }
  }
  if (n & 1) {
    const int64_t owner = groups % G;
#pragma unroll
    for (int l = 0; l < LPT; ++l)
      if (owner == g0 + l) elem(l, x[n - 1], Dot ? y[n - 1] : 0.0);
  }
}

}  // namespace accsum::cuda
