// The OpenCL baseline: a plain parallel sum and dot, as fast as the device allows and no more
// accurate than recursive summation (the vendor-style reduction every OpenCL row is compared with).
//
// Stage 1: each work-item adds VW-wide vector loads into UNROLL independent accumulators, so
// UNROLL loads are in flight and the add latency is hidden; then a tree in local memory leaves
// one partial per work-group. Stage 2: one work-group sums the partials. On a GPU (STRIDED)
// vector j of work-item g is g + j G: a warp's loads are contiguous (coalesced). On a CPU device
// (PoCL) each work-item streams a contiguous run of vectors: one prefetch-friendly stream per core.
// The n mod VW scalars after the last full vector are added by the first work-items.
#include <algorithm>
#include <memory>
#include <string>

#include "backends/opencl/cl_common.hpp"

namespace accsum::opencl {
namespace {

// kernels/plain.cl, its includes inlined (cmake/embed_opencl.cmake).
const char* kSource =
#include "opencl/plain.cl.inc"
    ;

// Launch shape. A GPU: 256 work-items per group and enough groups for 2048 resident work-items
// per compute unit, 16-byte loads (the widest a GPU load takes), 4 in flight. A CPU device: one
// work-item per group (its contiguous run is one core's stream), 4 groups per core to balance, and
// 4 x 8 doubles in flight (four AVX2 adds per step, as the cpu-mt baseline's 16 lanes).
struct Shape {
  int vw, unroll;
  size_t local, groups;
  bool strided;
};
constexpr int kGpuResidentPerUnit = 2048;

Shape shape_for(const Context& c, int64_t n) {
  Shape s = c.is_gpu ? Shape{2, 4, 256, 0, true} : Shape{8, 4, 1, 0, false};
  while (s.local > c.max_work_group) s.local /= 2;
  const int64_t per_group = static_cast<int64_t>(s.local) * s.vw * s.unroll;  // one full step
  const int64_t fill =
      c.is_gpu ? int64_t(c.compute_units) * kGpuResidentPerUnit / int64_t(s.local) : 4 * int64_t(c.compute_units);
  s.groups = static_cast<size_t>(std::clamp<int64_t>((n + per_group - 1) / per_group, 1, std::max<int64_t>(fill, 1)));
  return s;
}

class PlainReduce : public ClKernel {
 public:
  PlainReduce(const Problem& p, bool dot) : ClKernel(p), dot_(dot), s_(shape_for(context(), p.n)) {
    std::string opts = "-DVW=" + std::to_string(s_.vw) + " -DUNROLL=" + std::to_string(s_.unroll) +
                       " -DLS=" + std::to_string(s_.local) + " -DSTRIDED=" + (s_.strided ? "1" : "0") +
                       " -DDOT=" + (dot ? "1" : "0");
    cl_program prog = program(kSource, opts);
    stage1_ = make_kernel(prog, "plain_stage1");
    stage2_ = make_kernel(prog, "plain_stage2");
    partial_ = Buffer(s_.groups * sizeof(double));
    result_ = Buffer(sizeof(double));
  }
  ~PlainReduce() override {
    clReleaseKernel(stage1_);
    clReleaseKernel(stage2_);
  }
  double run() override {
    if (in_->n == 0) {  // the empty sum is +0
      last_ = 0;
      return 0.0;
    }
    cl_mem x = in_->x.get(), y = dot_ ? in_->y.get() : x, part = partial_.get(), res = result_.get();
    cl_long n = in_->n;
    cl_int count = static_cast<cl_int>(s_.groups);
    set_args(stage1_, x, y, n, part);
    set_args(stage2_, part, count, res);
    size_t global = s_.groups * s_.local;
    cl_event e1, e2;
    cl_command_queue q = context().queue;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(q, stage1_, 1, nullptr, &global, &s_.local, 0, nullptr, &e1));
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(q, stage2_, 1, nullptr, &s_.local, &s_.local, 0, nullptr, &e2));
    return finish(result_, e1, e2);
  }

 private:
  bool dot_;
  Shape s_;
  Buffer partial_, result_;
  cl_kernel stage1_{}, stage2_{};
};

Registrar reg_sum(AlgoEntry("sum", "naive", "opencl",
                            "plain parallel sum (OpenCL baseline, not reproducible): vector loads, 2-stage reduction")
                      .baseline()
                      .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                        return std::make_unique<PlainReduce>(p, false);
                      }));
Registrar reg_dot(AlgoEntry("dot", "dot", "opencl",
                            "plain parallel dot (OpenCL baseline, not reproducible): vector loads, 2-stage reduction")
                      .baseline()
                      .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                        return std::make_unique<PlainReduce>(p, true);
                      }));

}  // namespace
}  // namespace accsum::opencl
