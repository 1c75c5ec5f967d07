// fpe-sum / fpe-dot on CUDA: the lanes of core/numerics/fpe_sum.hpp, LPT adjacent lanes per thread, each
// lane's R-term expansion in registers, fed by 16-byte streaming loads (kFusedUnroll in flight
// per input vector, as dpsumk's fused kernel: backends/cuda/agent/dpsumk_agent.cuh); then the lane
// tree: a thread's lanes, warp shuffles, the warps of a block in shared memory, and merge
// launches over the block states until one is left. The root's R terms are rounded on the host
// (fpe_acc_finish), so the bits are those of the cpu serial definition. R = 2 takes the step
// without its zero operations (fpe_acc_add2_*, 2Sum as two_sum_ordered: same values).
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cuda/thread/lane_stream.cuh"
#include "backends/cuda/warp/warp.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/agent/dpsumk_agent.cuh"
#include "core/numerics/fpe_step.hpp"
#include "core/numerics/fpe_sum.hpp"

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

template <int R, bool Dot>
__device__ __forceinline__ void step(double* a, double x, double y) {
  if (Dot) {
    double v[2];
    fpe_acc_product(x, y, v[0], v[1]);
    if (R == 2)
      fpe_acc_add2_dot<TwoSumOrdered>(a, v[0], v[1]);
    else if (R <= kUnrolledR)
      fpe_step::step<R <= kUnrolledR ? R : 2, 2, StepOps>(a, v);
    else
      fpe_acc_add<R>(a, R, v[0], v[1]);
  } else if (R == 2) {
    fpe_acc_add2_sum<TwoSumOrdered>(a, x);
  } else if (R <= kUnrolledR) {
    fpe_step::step<R <= kUnrolledR ? R : 2, 1, StepOps>(a, &x);
  } else {
    fpe_acc_add<R>(a, R, x, 0.0);
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
  if (g0 < G)
    stream_lanes<LPT, U, Dot>(x, y, n, G, g0, [&](int l, double xi, double yi) { step<R, Dot>(a[l], xi, yi); });
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

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

class FpeAccCuda : public CudaKernel {
 public:
  using LanesFn = void (*)(const double*, const double*, int64_t, int64_t, double*);
  using MergeFn = void (*)(const double*, int64_t, double*);
  FpeAccCuda(const Problem& p, int R, int lpt, LanesFn lanes, MergeFn merge)
      : CudaKernel(p),
        pb_(p),
        R_(R),
        G_(fused_lanes(p.n)),
        blocks_(std::max<int64_t>(1, ceil_div(G_ / lpt, kThreads))),
        a_(R * blocks_),
        b_(R * ceil_div(blocks_, kThreads)),
        state_(R),
        lanes_(lanes),
        merge_(merge) {}
  double run() override {
    if (in_->n == 0) {
      last_ = 0;
      return 0.0;
    }
    timer_.start();
    lanes_<<<blocks_, kThreads>>>(in_->x, pb_.y ? in_->y : nullptr, in_->n, G_, a_.get());
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    double *src = a_.get(), *dst = b_.get();
    for (int64_t count = blocks_; count > 1;) {
      const int64_t nb = ceil_div(count, kThreads);
      merge_<<<nb, kThreads>>>(src, count, dst);
      ACCSUM_CUDA_CHECK(cudaGetLastError());
      std::swap(src, dst);
      count = nb;
    }
    last_ = timer_.stop_seconds();
    ACCSUM_CUDA_CHECK(cudaMemcpy(state_.data(), src, R_ * sizeof(double), cudaMemcpyDeviceToHost));
    return fpe_acc_finish(state_.data(), R_, pb_.x, pb_.y, pb_.n);
  }

 private:
  Problem pb_;
  int R_;
  int64_t G_, blocks_;
  DeviceBuffer<double> a_, b_;
  std::vector<double> state_;
  LanesFn lanes_;
  MergeFn merge_;
  EventTimer timer_;
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
