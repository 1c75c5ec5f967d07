// fpe-sum / fpe-dot on CUDA: the lanes of families/sum_dot/fpe_sum.hpp, LPT adjacent lanes per thread, each
// lane's R-term expansion in registers, fed by 16-byte streaming loads (kFusedUnroll in flight
// per input vector, as dpsumk's fused kernel: backends/cuda/agent/dpsumk_agent.cuh); then the lane
// tree: a thread's lanes, warp shuffles, the warps of a block in shared memory, and merge
// launches over the block states until one is left. The root's R terms are rounded on the host
// (fpe_acc_finish), so the bits are those of the cpu serial definition. R = 2 takes one element a
// step, without its zero operations (fpe_acc_add2_*, 2Sum as two_sum_ordered: same values); larger
// R take P = fpe_acc_batch(R) elements a step (stream_lane_batches), unrolled up to R = 8.
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cuda/thread/lane_stream.cuh"
#include "backends/cuda/warp/warp.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/agent/dpsumk_agent.cuh"
#include "backends/cuda/lane_tree.cuh"
#include "core/numerics/fpe_step.hpp"
#include "families/sum_dot/fpe_sum.hpp"

namespace accsum::cuda {
namespace {

using dp::kFusedUnroll;
using dp::kThreads;
constexpr int kWarpsPerBlock = kThreads / kWarpThreads;

template <int R>
constexpr int lanes_per_thread() {
  return R <= 4 ? 2 : 1;  // more lanes per thread only while the state stays in registers
}

// R <= kUnrolledR: the step unrolled for R (core/numerics/fpe_step.hpp), register-resident; larger R the
// readable definition.
constexpr int kUnrolledR = 8;
using StepOps = fpe_step::ScalarOrderedOps;

// R = 2, one element (product) a step: the step without its zero operations.
template <bool Dot>
__device__ __forceinline__ void step2(double* a, double x, double y) {
  if (Dot) {
    double h, t;
    fpe_acc_product(x, y, h, t);
    fpe_acc_add2_dot<TwoSumOrdered>(a, h, t);
  } else {
    fpe_acc_add2_sum<TwoSumOrdered>(a, x);
  }
}

// The lane merge a <- a + b, unrolled for small R.
template <int R>
__device__ __forceinline__ void merge(double* a, const double* b) {
  if (R <= kUnrolledR)
    fpe_step::step<R <= kUnrolledR ? R : 2, R <= kUnrolledR ? R : 2, StepOps>(a, b);
  else
    fpe_acc_merge<R>(a, b, R);
}

// P = fpe_acc_batch(R, Dot) elements (products) into a, P > 1: one step of up to 8 terms.
template <int R, bool Dot>
__device__ __forceinline__ void step_batch(double* a, const double* xs, const double* ys) {
  constexpr int P = fpe_acc_batch(R, Dot), K = Dot ? 2 * P : P;  // terms
  double v[K];
#pragma unroll
  for (int e = 0; e < P; ++e) {
    if (Dot)
      fpe_acc_product(xs[e], ys[e], v[2 * e], v[2 * e + 1]);
    else
      v[e] = xs[e];
  }
  if (R <= kUnrolledR)
    fpe_step::step<R <= kUnrolledR ? R : K, K, StepOps>(a, v);
  else
    fpe_acc_add_terms<R>(a, R, v, K);
}

// The lane tree among the block's threads: threads t and t + off merge for off = 1, 2, ... <
// active (non-nodes compute throw-away merges). Result in thread 0.
template <int R>
__device__ void block_merge(double* a, int active) {
  const int lane = lane_of(threadIdx.x), warp = warp_of(threadIdx.x);
  double b[R];
  for (int off = 1; off < kWarpThreads && off < active; off <<= 1) {
#pragma unroll
    for (int l = 0; l < R; ++l) b[l] = __shfl_down_sync(kFullMask, a[l], off);
    merge<R>(a, b);
  }
  if (active <= kWarpThreads) return;
  __shared__ double sh[R][kWarpsPerBlock];
  if (lane == 0) {
#pragma unroll
    for (int l = 0; l < R; ++l) sh[l][warp] = a[l];
  }
  __syncthreads();
  if (warp == 0) {
    const int nw = active / kWarpThreads;
#pragma unroll
    for (int l = 0; l < R; ++l) a[l] = lane < nw ? sh[l][lane] : 0.0;
    for (int off = 1; off < nw; off <<= 1) {
#pragma unroll
      for (int l = 0; l < R; ++l) b[l] = __shfl_down_sync(kFullMask, a[l], off);
      merge<R>(a, b);
    }
  }
}

template <int R>
__device__ void store_state(const double* a, double* out) {
  if (threadIdx.x == 0) {
#pragma unroll
    for (int l = 0; l < R; ++l) out[int64_t(l) * gridDim.x + blockIdx.x] = a[l];
  }
}

// Lane g takes the 16-byte groups j = g, g + G, ...; block b's root state to out[l * grid + b].
template <int R, bool Dot>
__global__ void __launch_bounds__(kThreads) lanes_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                                         int64_t n, int64_t G, double* __restrict__ out) {
  constexpr int LPT = lanes_per_thread<R>();
  constexpr int U = kFusedUnroll / LPT > 0 ? kFusedUnroll / LPT : 1;  // rows in flight
  double a[LPT][R];
#pragma unroll
  for (int k = 0; k < LPT; ++k)
#pragma unroll
    for (int l = 0; l < R; ++l) a[k][l] = 0.0;
  const int64_t g0 = (int64_t(blockIdx.x) * kThreads + threadIdx.x) * LPT;
  constexpr int P = fpe_acc_batch(R, Dot);
  if (g0 < G) {
    if constexpr (P == 1)
      stream_lanes<LPT, U, Dot>(x, y, n, G, g0, [&](int l, double xi, double yi) { step2<Dot>(a[l], xi, yi); });
    else
      stream_lane_batches<LPT, U, P, Dot>(
          x, y, n, G, g0, [&](int l, const double* xs, const double* ys) { step_batch<R, Dot>(a[l], xs, ys); });
  }
#pragma unroll
  for (int w = 1; w < LPT; w *= 2)
#pragma unroll
    for (int k = 0; k + w < LPT; k += 2 * w)
      if (w < G) merge<R>(a[k], a[k + w]);
  const int64_t threads_used = G / LPT > 0 ? G / LPT : 1;
  block_merge<R>(a[0], threads_used < kThreads ? static_cast<int>(threads_used) : kThreads);
  store_state<R>(a[0], out);
}

// Merges `count` states (in[l * count + i]) by blocks of kThreads, continuing the lane tree.
template <int R>
__global__ void __launch_bounds__(kThreads)
    merge_kernel(const double* __restrict__ in, int64_t count, double* __restrict__ out) {
  double a[R];
  const int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x;
#pragma unroll
  for (int l = 0; l < R; ++l) a[l] = i < count ? in[l * count + i] : 0.0;
  block_merge<R>(a, count < kThreads ? static_cast<int>(count) : kThreads);
  store_state<R>(a, out);
}

class FpeAccCuda : public LaneTreeKernel {
 public:
  using LanesFn = void (*)(const double*, const double*, int64_t, int64_t, double*);
  using MergeFn = void (*)(const double*, int64_t, double*);
  FpeAccCuda(const Problem& p, int R, int lpt, LanesFn lanes, MergeFn merge)
      : LaneTreeKernel(p, R, lpt), pb_(p), lanes_fn_(lanes), merge_(merge) {}
  double run() override {
    if (in_->n == 0) {
      last_ = 0;
      return 0.0;
    }
    const double* root = reduce(
        [&](int64_t blocks, double* out) {
          lanes_fn_<<<blocks, kThreads>>>(in_->x, pb_.y ? in_->y : nullptr, in_->n, lanes_, out);
        },
        [&](int64_t blocks, const double* in, int64_t count, double* out) {
          merge_<<<blocks, kThreads>>>(in, count, out);
        });
    return fpe_acc_finish(root, width_, pb_.x, pb_.y, pb_.n);
  }

 private:
  Problem pb_;
  LanesFn lanes_fn_;
  MergeFn merge_;
};

template <int R>
std::unique_ptr<Kernel> make_r(const Problem& p, bool dot) {
  return std::make_unique<FpeAccCuda>(p, R, lanes_per_thread<R>(), dot ? lanes_kernel<R, true> : lanes_kernel<R, false>,
                                      merge_kernel<R>);
}

std::unique_ptr<Kernel> make(const Problem& p, const Params& prm, bool dot) {
  switch (fpe_acc_r(prm)) {
    case 2:
      return make_r<2>(p, dot);
    case 4:
      return make_r<4>(p, dot);
    case 8:
      return make_r<8>(p, dot);
    case 16:
      return make_r<16>(p, dot);
    default:
      return make_r<32>(p, dot);
  }
}

Registrar reg_sum(fpe_acc_entry(false, "cuda",
                                "R-term expansion accumulator on the GPU: per-lane expansions in registers, "
                                "shuffle/block lane tree; same bits as cpu")
                      .maker([](const Problem& p, const Params& prm) { return make(p, prm, false); }));
Registrar reg_dot(fpe_acc_entry(true, "cuda",
                                "R-term expansion accumulator of the exact products on the GPU; same bits as cpu")
                      .maker([](const Problem& p, const Params& prm) { return make(p, prm, true); }));

}  // namespace
}  // namespace accsum::cuda
