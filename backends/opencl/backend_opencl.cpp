// OpenCL backend registration and its on-device EFT self-test (the baseline sum and dot: plain_cl.cpp).
#include <string>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "backends/opencl/eft_cl.hpp"
#include "core/frame/placement.hpp"

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

Registrar reg_backend(BackendInfo{"opencl", "an fp64 OpenCL device (GPU first; --device=N or $ACCSUM_OPENCL_DEVICE=name picks)", available,
                                  self_test, [] {
                                    const Context& c = context();  // binds (and records) the device first
                                    return c.platform_name + ": " + c.device_name + " [all: " +
                                           describe_devices() + "]; this process: " +
                                           placement::recorded("opencl");
                                  }}
                          .ranked_for_best(3)
                          .copies_in_host_memory(1));  // PoCL's buffers live in host memory

}  // namespace
}  // namespace accsum::opencl
