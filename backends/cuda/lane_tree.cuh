#pragma once
// The launch sequence of the fused lane algorithms (dpsumk/dpdotk fused, fpe-sum/fpe-dot): a first
// launch leaves one state of `width` doubles per block (the root of its lanes' tree), then merge
// launches combine kThreads states per block until one is left, which is read back to the host.
// The tree is the serial definition's (families/sum_dot/dpsum.hpp fused_lanes), so are the bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "backends/cuda/agent/dpsumk_agent.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "families/sum_dot/dpsum.hpp"

namespace accsum::cuda {

class LaneTreeKernel : public CudaKernel {
 public:
  // lanes_per_thread: the lanes one thread of the first launch holds.
  LaneTreeKernel(const Problem& p, int width, int lanes_per_thread)
      : CudaKernel(p),
        width_(width),
        lanes_(fused_lanes(p.n)),
        blocks_(std::max<int64_t>(1, ceil_div(lanes_ / lanes_per_thread, dp::kThreads))),
        a_(width * blocks_),
        b_(width * ceil_div(blocks_, dp::kThreads)),
        state_(width) {}

 protected:
  // first(blocks, out) launches the lanes; merge(blocks, in, count, out) merges `count` states.
  // Timed on the device (last_); returns the root state, on the host.
  template <class First, class Merge>
  double* reduce(const First& first, const Merge& merge) {
    timer_.start();
    first(blocks_, a_.get());
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    double *src = a_.get(), *dst = b_.get();
    for (int64_t count = blocks_; count > 1;) {
      const int64_t nb = ceil_div(count, dp::kThreads);
      merge(nb, src, count, dst);
      ACCSUM_CUDA_CHECK(cudaGetLastError());
      std::swap(src, dst);
      count = nb;
    }
    last_ = timer_.stop_seconds();
    ACCSUM_CUDA_CHECK(cudaMemcpy(state_.data(), src, width_ * sizeof(double), cudaMemcpyDeviceToHost));
    return state_.data();
  }

  const int width_;
  const int64_t lanes_;  // fused_lanes(n)

 private:
  int64_t blocks_;
  DeviceBuffer<double> a_, b_;
  std::vector<double> state_;
  EventTimer timer_;
};

}  // namespace accsum::cuda
