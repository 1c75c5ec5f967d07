#pragma once
// CUDA kernels of dpsumk / dpdotk. Each computes exactly the operations of the serial
// definitions in families/sum_dot/dpsum.hpp (same tree pairs, same lanes, same order), so the results are
// bitwise those of the cpu backend. Layering after CUB: thread (a lane's K levels, TwoSum),
// warp (shuffle trees), block (shared memory between warps), device (launch sequences in
// dpsumk_cuda.cu).
#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/thread/lane_stream.cuh"
#include "backends/cuda/warp/warp.cuh"
#include "families/sum_dot/dpsum.hpp"

namespace accsum::cuda::dp {

constexpr int kThreads = 256;  // threads per block, every kernel here
constexpr int kWarps = kThreads / kWarpThreads;
constexpr int kTermsPerThread = 4;                                 // tree kernels: levels w = 1, 2 in registers
constexpr int64_t kSegment = int64_t(kThreads) * kTermsPerThread;  // terms one tree block handles
constexpr int kFusedUnroll = 4;  // 16-byte loads in flight per lane and per input vector
constexpr int kMaxK = 64;

template <int KC>
struct LaneArray {
  static constexpr int size = KC > 0 ? KC : kMaxK;
};

// ---------------------------------------------------------------------------------------------
// Fused variant.

// The lane tree of a block: lanes t and t + off merge for off = 1, 2, 4, ... < active (the
// pairwise tree on the lane index, as kf_merge_lanes). Lanes that are not tree nodes at a level
// compute a throw-away merge. Result in thread 0.
template <int KC, bool Ordered>
__device__ void block_merge(double* a, int K, int active) {
  constexpr int A = LaneArray<KC>::size;
  const int K_ = KC > 0 ? KC : K;
  const int lane = lane_of(threadIdx.x), warp = warp_of(threadIdx.x);
  double b[A];
  for (int off = 1; off < kWarpThreads && off < active; off <<= 1) {
    ACCSUM_UNROLL
    for (int k = 0; k < K_; ++k) b[k] = __shfl_down_sync(kFullMask, a[k], off);
    kf_merge<KC, Ordered>(a, b, K);
  }
  if (active <= kWarpThreads) return;
  __shared__ double sh[A][kWarps];
  if (lane == 0) {
    ACCSUM_UNROLL
    for (int k = 0; k < K_; ++k) sh[k][warp] = a[k];
  }
  __syncthreads();
  if (warp == 0) {
    const int nw = active / kWarpThreads;
    ACCSUM_UNROLL
    for (int k = 0; k < K_; ++k) a[k] = lane < nw ? sh[k][lane] : -0.0;
    for (int off = 1; off < nw; off <<= 1) {
      ACCSUM_UNROLL
      for (int k = 0; k < K_; ++k) b[k] = __shfl_down_sync(kFullMask, a[k], off);
      kf_merge<KC, Ordered>(a, b, K);
    }
  }
}

template <int KC, bool Dot, bool Dekker, bool Ordered>
__device__ __forceinline__ void fused_elem(double* a, int K, double x, double y) {
  if (Dot)
    kf_dot_elem<KC, Dekker, Ordered>(a, K, x, y);
  else
    kf_sum_elem<KC, Ordered>(a, K, x);
}

// G lanes in all, LPT adjacent lanes per thread, streamed by stream_lanes (thread/lane_stream.cuh).
// The thread merges its lanes (the first levels of the lane tree), then the block's threads
// continue the tree; block b's root state goes to out[k * gridDim.x + b]. LPT and Ordered (two_sum_ordered for TwoSum)
// change only the speed, never the bits.
template <int KC, bool Dot, bool Dekker, int LPT, bool Ordered>
__global__ void __launch_bounds__(kThreads) fused_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                                         int64_t n, int64_t G, int K, double* __restrict__ out) {
  constexpr int A = LaneArray<KC>::size;
  constexpr int U = kFusedUnroll / LPT > 0 ? kFusedUnroll / LPT : 1;  // rows in flight
  const int K_ = KC > 0 ? KC : K;
  double a[LPT][A];
#pragma unroll
  for (int l = 0; l < LPT; ++l) kf_clear<KC>(a[l], K);
  const int64_t g0 = (int64_t(blockIdx.x) * kThreads + threadIdx.x) * LPT;  // this thread's first lane
  if (g0 < G)
    stream_lanes<LPT, U, Dot>(
        x, y, n, G, g0, [&](int l, double xi, double yi) { fused_elem<KC, Dot, Dekker, Ordered>(a[l], K, xi, yi); });
    // The thread's lanes: lane tree levels w < LPT (only among lanes < G, as the serial tree).
#pragma unroll
  for (int w = 1; w < LPT; w *= 2)
#pragma unroll
    for (int l = 0; l + w < LPT; l += 2 * w)
      if (w < G) kf_merge<KC, Ordered>(a[l], a[l + w], K);
  const int64_t threads_used = G / LPT > 0 ? G / LPT : 1;
  block_merge<KC, Ordered>(a[0], K, threads_used < kThreads ? static_cast<int>(threads_used) : kThreads);
  if (threadIdx.x == 0) {
    ACCSUM_UNROLL
    for (int k = 0; k < K_; ++k) out[int64_t(k) * gridDim.x + blockIdx.x] = a[0][k];
  }
}

// Merges `count` states (in[k * count + i]) by blocks of kThreads, continuing the lane tree.
template <int KC>
__global__ void __launch_bounds__(kThreads)
    merge_states_kernel(const double* __restrict__ in, int64_t count, int K, double* __restrict__ out) {
  constexpr int A = LaneArray<KC>::size;
  const int K_ = KC > 0 ? KC : K;
  double a[A];
  const int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  ACCSUM_UNROLL
  for (int k = 0; k < K_; ++k) a[k] = i < count ? in[k * count + i] : -0.0;
  block_merge<KC, false>(a, K, count < kThreads ? static_cast<int>(count) : kThreads);
  if (threadIdx.x == 0) {
    ACCSUM_UNROLL
    for (int k = 0; k < K_; ++k) out[int64_t(k) * gridDim.x + blockIdx.x] = a[k];
  }
}

// ---------------------------------------------------------------------------------------------
// Tree variant: one launch runs levels w = 1 .. kSegment/2 of a DPSum (or DPRed) pass over the
// terms p[i * stride], i < N, in segments of kSegment terms; the next launch, with stride times
// kSegment, continues with the segment leaders: together they are the paper's global tree.

enum class Source { in_place, copy_x, dot_fma, dot_dekker };

// The node (a, b) of the tree (core/numerics/dpsum.h): TwoSum keeps the sum at a and the error at b
// (DPSum); plain adds into a (DPRed). Both sides of a shuffle compute the same TwoSum and keep
// their half.
template <bool Plain>
__device__ __forceinline__ void node(double& a, double& b) {
  accsum_dp_node(&a, &b, Plain);
}

// Levels among one value per lane, pairing lanes t and t + off for off = 1, 2, ... < width.
template <bool Plain>
__device__ __forceinline__ double warp_levels(double v, int t, int width) {
  for (int off = 1; off < width; off <<= 1) {
    double below = __shfl_down_sync(kFullMask, v, off);  // b's value, for a
    double above = __shfl_up_sync(kFullMask, v, off);    // a's value, for b
    if ((t & (2 * off - 1)) == 0) {
      node<Plain>(v, below);
    } else if ((t & (2 * off - 1)) == off && !Plain) {
      node<Plain>(above, v);
    }
  }
  return v;
}

template <bool Plain, Source Src>
__global__ void __launch_bounds__(kThreads) tree_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                                        double* p, int64_t N, int64_t stride, double* top_out) {
  const int t = threadIdx.x;
  const int64_t i0 = int64_t(blockIdx.x) * kSegment + int64_t(t) * kTermsPerThread;  // first term of this thread
  double v[4];
  if (Src == Source::dot_fma || Src == Source::dot_dekker) {
    // Terms 2i, 2i+1 are (x_i, y_i) turned into TwoProduct(x_i, y_i): DPDot's level d = 0.
    const int64_t e0 = i0 / 2;
    const int64_t nx = N / 2;
    double xs[2], ys[2];
    if (e0 + 1 < nx) {
      double2 xv = __ldcs(reinterpret_cast<const double2*>(x + e0)),
              yv = __ldcs(reinterpret_cast<const double2*>(y + e0));
      xs[0] = xv.x, xs[1] = xv.y, ys[0] = yv.x, ys[1] = yv.y;
    } else {
      for (int q = 0; q < 2; ++q) xs[q] = e0 + q < nx ? x[e0 + q] : 0.0, ys[q] = e0 + q < nx ? y[e0 + q] : 0.0;
    }
    for (int q = 0; q < 2; ++q) {
      if (e0 + q < nx) {
        if (Src == Source::dot_dekker)
          two_prod_dekker(xs[q], ys[q], v[2 * q], v[2 * q + 1]);
        else
          two_prod_fma(xs[q], ys[q], v[2 * q], v[2 * q + 1]);
      } else {
        v[2 * q] = v[2 * q + 1] = -0.0;
      }
    }
  } else {
    const double* src = Src == Source::copy_x ? x : p;
    if (stride == 1 && i0 + 3 < N) {
      double2 lo = __ldcs(reinterpret_cast<const double2*>(src + i0));
      double2 hi = __ldcs(reinterpret_cast<const double2*>(src + i0 + 2));
      v[0] = lo.x, v[1] = lo.y, v[2] = hi.x, v[3] = hi.y;
    } else {
      for (int q = 0; q < 4; ++q) v[q] = i0 + q < N ? src[(i0 + q) * stride] : -0.0;  // -0: a skipped pair
    }
    node<Plain>(v[0], v[1]);  // w = 1 (for a dot, the TwoProducts were that level)
    node<Plain>(v[2], v[3]);
  }
  node<Plain>(v[0], v[2]);  // w = 2
  // w = 4 .. 128: thread leaders v[0] within the warp.
  const int lane = lane_of(t), warp = warp_of(t);
  v[0] = warp_levels<Plain>(v[0], lane, kWarpThreads);
  // w = 128 .. 512: warp leaders, in warp 0.
  __shared__ double lead[kWarps];
  if (lane == 0) lead[warp] = v[0];
  __syncthreads();
  if (warp == 0) {
    double w = lane < kWarps ? lead[lane] : -0.0;
    w = warp_levels<Plain>(w, lane, kWarps);
    if (lane < kWarps) lead[lane] = w;
  }
  __syncthreads();
  if (lane == 0) v[0] = lead[warp];
  if (Plain) {
    if (t == 0) {
      p[i0 * stride] = v[0];
      if (top_out) *top_out = v[0];
    }
    return;
  }
  if (stride == 1 && i0 + 3 < N) {
    *reinterpret_cast<double2*>(p + i0) = double2{v[0], v[1]};
    *reinterpret_cast<double2*>(p + i0 + 2) = double2{v[2], v[3]};
  } else {
    for (int q = 0; q < 4; ++q)
      if (i0 + q < N) p[(i0 + q) * stride] = v[q];
  }
  if (t == 0 && top_out) *top_out = v[0];
}

}  // namespace accsum::cuda::dp
