// OpenCL backend registration, its on-device EFT self-test, and the plain parallel sum and dot
// that are the OpenCL baseline (the vendor-style fast reduction every row is compared with).
#include <string>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "backends/opencl/eft_cl.hpp"
#include "core/placement.hpp"

namespace accsum::opencl {
namespace {

const char* kSource = R"CLC(
__kernel void eft_self_test(__global const double* in, __global int* ok) {
  double one = in[0], tiny = in[1], big = in[2], s, e, p;
  int good = 1;
  accsum_two_sum(one, tiny, &s, &e); good &= (s == 1.0 && e == tiny);
  accsum_two_sum(big, one, &s, &e); good &= (s == big && e == 1.0);
  double a = one + in[3], b = one - in[3];
  accsum_two_prod_dekker(a, b, &p, &e); good &= (p == 1.0 && e == -in[1]);
  accsum_two_prod_fma(a, b, &p, &e); good &= (p == 1.0 && e == -in[1]);
  if (!good) ok[0] = 0;
}
// Plain reduction: a strided loop per work-item, then a tree in local memory, one partial per
// group. Run twice: over the input, then over the partials with one group.
__kernel void plain_reduce(__global const double* x, __global const double* y, long n, int has_y,
                           __global double* partial, __local double* sh) {
  size_t gid = get_global_id(0), gsz = get_global_size(0), lid = get_local_id(0), ls = get_local_size(0);
  double acc = 0.0;
  if (has_y) for (long i = gid; i < n; i += gsz) acc += x[i] * y[i];
  else for (long i = gid; i < n; i += gsz) acc += x[i];
  sh[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t d = ls / 2; d > 0; d >>= 1) {
    if (lid < d) sh[lid] += sh[lid + d];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = sh[0];
}
)CLC";

cl_program prog() { return program(std::string(eft_prelude) + kSource); }

bool self_test() {
  double in[4] = {1.0, 0x1p-60, 0x1p53, 0x1p-30};
  Buffer bin(sizeof in), bok(sizeof(int));
  bin.write(in, sizeof in);
  int one = 1;
  bok.write(&one, sizeof one);
  cl_kernel k = make_kernel(prog(), "eft_self_test");
  cl_mem a = bin.get(), b = bok.get();
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof b, &b);
  size_t g = 64;
  ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
  int r = 0;
  bok.read(&r, sizeof r);
  clReleaseKernel(k);
  return r == 1;
}

class PlainReduce : public ClKernel {
 public:
  explicit PlainReduce(const Problem& p) : ClKernel(p) {
    Context& c = context();
    local_ = std::min<size_t>(256, c.max_work_group);
    groups_ = c.is_gpu ? 1024 : std::max<cl_uint>(1, c.compute_units) * 4;
    partial_ = Buffer(groups_ * sizeof(double));
    result_ = Buffer(sizeof(double));
    k_ = make_kernel(prog(), "plain_reduce");
  }
  ~PlainReduce() override { clReleaseKernel(k_); }
  double run() override {
    cl_event e1, e2;
    launch(in_->x.get(), in_->y.bytes() ? in_->y.get() : in_->x.get(), in_->n, in_->y.bytes() != 0, partial_.get(),
           groups_, &e1);
    launch(partial_.get(), partial_.get(), static_cast<long>(groups_), 0, result_.get(), 1, &e2);
    return finish(result_, e1, e2);
  }

 private:
  void launch(cl_mem x, cl_mem y, cl_long n, cl_int has_y, cl_mem out, size_t groups, cl_event* ev) {
    clSetKernelArg(k_, 0, sizeof x, &x);
    clSetKernelArg(k_, 1, sizeof y, &y);
    clSetKernelArg(k_, 2, sizeof n, &n);
    clSetKernelArg(k_, 3, sizeof has_y, &has_y);
    clSetKernelArg(k_, 4, sizeof out, &out);
    clSetKernelArg(k_, 5, local_ * sizeof(double), nullptr);
    size_t g = groups * local_;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, k_, 1, nullptr, &g, &local_, 0, nullptr, ev));
  }
  size_t local_ = 256, groups_ = 1;
  Buffer partial_, result_;
  cl_kernel k_{};
};

Registrar reg_backend(BackendInfo{"opencl", "an fp64 OpenCL device (GPU first; --device=N or $ACCSUM_OPENCL_DEVICE=name picks)", available,
                                  self_test, [] {
                                    const Context& c = context();  // binds (and records) the device first
                                    return c.platform_name + ": " + c.device_name + " [all: " +
                                           describe_devices() + "]; this process: " +
                                           placement::recorded("opencl");
                                  }});
std::unique_ptr<Kernel> make_plain(const Problem& p, const Params&) { return std::make_unique<PlainReduce>(p); }
Registrar reg_sum(AlgoEntry("sum", "naive", "opencl",
    "plain parallel sum (OpenCL baseline, not reproducible)")
    .baseline()
    .maker(make_plain));
Registrar reg_dot(AlgoEntry("dot", "dot", "opencl",
    "plain parallel dot (OpenCL baseline, not reproducible)")
    .baseline()
    .maker(make_plain));

}  // namespace
}  // namespace accsum::opencl
