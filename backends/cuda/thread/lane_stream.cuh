#pragma once
// Thread level of the lane-accumulator kernels (dpsumk fused, fpe-sum, fpe-dot): G lanes in all, a thread
// owns the LPT adjacent lanes g0 .. g0 + LPT - 1, and lane g takes the 16-byte groups j = g, g + G,
// ... (elements 2j, 2j + 1, in order); the odd last element goes to the lane that owns its group.
// U rows of LPT 16-byte streaming loads (per vector) are in flight before any is used, so a warp
// reads 512 * LPT contiguous bytes per row. `elem(l, x_i, y_i)` adds one element to lane g0 + l
// (y_i = 0 for sums); the order of elements within a lane is fixed by n and G alone.
#include <cstdint>

namespace accsum::cuda {

// Every full chunk of W rows of this thread's lanes (row r at groups j + r G .. + LPT - 1), as
// W x LPT 16-byte streaming loads per vector, all in flight before rows(xv, yv) uses them;
// returns the first group j not taken.
template <int W, int LPT, bool Dot, class Rows>
__device__ __forceinline__ int64_t stream_full_rows(const double* __restrict__ x, const double* __restrict__ y,
                                                    int64_t n, int64_t G, int64_t g0, Rows&& rows) {
  const double2* x2 = reinterpret_cast<const double2*>(x);
  const double2* y2 = reinterpret_cast<const double2*>(y);
  int64_t j = g0;
  for (; j + (W - 1) * G + (LPT - 1) < n / 2; j += W * G) {
    double2 xv[W][LPT], yv[W][LPT];
#pragma unroll
    for (int r = 0; r < W; ++r)
#pragma unroll
      for (int l = 0; l < LPT; ++l) {
        xv[r][l] = __ldcs(x2 + j + r * G + l);
        if (Dot) yv[r][l] = __ldcs(y2 + j + r * G + l);
      }
    rows(xv, yv);
  }
  return j;
}

template <int LPT, int U, bool Dot, class Elem>
__device__ __forceinline__ void stream_lanes(const double* __restrict__ x, const double* __restrict__ y, int64_t n,
                                             int64_t G, int64_t g0, Elem&& elem) {
  const double2* x2 = reinterpret_cast<const double2*>(x);
  const double2* y2 = reinterpret_cast<const double2*>(y);
  const int64_t groups = n / 2;
  int64_t j =
      stream_full_rows<U, LPT, Dot>(x, y, n, G, g0, [&](const double2(&xv)[U][LPT], const double2(&yv)[U][LPT]) {
#pragma unroll
        for (int r = 0; r < U; ++r)
#pragma unroll
          for (int l = 0; l < LPT; ++l) {
            elem(l, xv[r][l].x, Dot ? yv[r][l].x : 0.0);
            elem(l, xv[r][l].y, Dot ? yv[r][l].y : 0.0);
          }
      });
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

// The same lanes and order, P elements at a time (P even: RB = P / 2 rows fill a batch):
// `batch(l, xs, ys)` adds lane g0 + l's next P elements (ys only for dots); a lane's last batch
// may hold fewer, padded with zeros (which add what the definition's shorter batch adds).
// W = max(U, RB) rows of LPT 16-byte loads are in flight. A lane's tail (at most W rows and the
// odd last element) is cut into batches the same way; a lane's batches start at its element 0,
// P apart, as in the serial definition.
template <int LPT, int U, int P, bool Dot, class Batch>
__device__ __forceinline__ void stream_lane_batches(const double* __restrict__ x, const double* __restrict__ y,
                                                    int64_t n, int64_t G, int64_t g0, Batch&& batch) {
  static_assert(P % 2 == 0, "a batch is whole rows of 16-byte groups");
  constexpr int RB = P / 2, W = U > RB ? U : RB;
  static_assert(W % RB == 0, "whole batches per iteration");
  const double2* x2 = reinterpret_cast<const double2*>(x);
  const double2* y2 = reinterpret_cast<const double2*>(y);
  const int64_t groups = n / 2;
  const int64_t j =
      stream_full_rows<W, LPT, Dot>(x, y, n, G, g0, [&](const double2(&xv)[W][LPT], const double2(&yv)[W][LPT]) {
#pragma unroll
        for (int b = 0; b < W / RB; ++b)
#pragma unroll
          for (int l = 0; l < LPT; ++l) {
            double xs[P], ys[P];
#pragma unroll
            for (int r = 0; r < RB; ++r) {
              xs[2 * r] = xv[b * RB + r][l].x;
              xs[2 * r + 1] = xv[b * RB + r][l].y;
              ys[2 * r] = Dot ? yv[b * RB + r][l].x : 0.0;
              ys[2 * r + 1] = Dot ? yv[b * RB + r][l].y : 0.0;
            }
            batch(l, xs, ys);
          }
      });
  // The tail: lane l has rows j + r G + l < groups (a prefix of r), then the odd last element
  // if it owns it, at element 2 * rows.
  const int64_t owner = (n & 1) ? groups % G : -1;
#pragma unroll
  for (int l = 0; l < LPT; ++l) {
    const int64_t rows = j + l < groups ? (groups - 1 - j - l) / G + 1 : 0;
    const bool odd = owner == g0 + l;
    const int64_t total = 2 * rows + (odd ? 1 : 0);
#pragma unroll 1
    for (int64_t first = 0; first < total; first += P) {
      double xs[P], ys[P];
#pragma unroll
      for (int r = 0; r < RB; ++r) {
        const int64_t row = first / 2 + r;
        double2 xr = make_double2(0.0, 0.0), yr = make_double2(0.0, 0.0);
        if (row < rows) {
          xr = __ldcs(x2 + j + row * G + l);
          if (Dot) yr = __ldcs(y2 + j + row * G + l);
        }
        xs[2 * r] = xr.x;
        xs[2 * r + 1] = xr.y;
        ys[2 * r] = yr.x;
        ys[2 * r + 1] = yr.y;
      }
      if (odd && first + P > total - 1) {  // the odd element is in this batch, at total - 1
#pragma unroll
        for (int p = 0; p < P; ++p)
          if (first + p == total - 1) {
            xs[p] = x[n - 1];
            ys[p] = Dot ? y[n - 1] : 0.0;
          }
      }
      batch(l, xs, ys);
    }
  }
}

}  // namespace accsum::cuda
