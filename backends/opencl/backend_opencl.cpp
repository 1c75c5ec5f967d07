// OpenCL backend registration and its on-device EFT self-test (the baseline sum and dot: plain_cl.cpp).
#include <string>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "core/frame/placement.hpp"

namespace accsum::opencl {
namespace {

const char* kSource =
#include "opencl/eft_self_test.cl.inc"
    ;

cl_program prog() { return program(kSource); }

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

Registrar reg_backend(BackendInfo{
    "opencl", "an fp64 OpenCL device (GPU first; --device=N or $ACCSUM_OPENCL_DEVICE=name picks)", available, self_test,
    [] {
      const Context& c = context();  // binds (and records) the device first
      return c.platform_name + ": " + c.device_name + " [all: " + describe_devices() +
             "]; this process: " + placement::recorded("opencl");
    }}.ranked_for_best(3)
                          .copies_in_host_memory(1));  // PoCL's buffers live in host memory

}  // namespace
}  // namespace accsum::opencl
