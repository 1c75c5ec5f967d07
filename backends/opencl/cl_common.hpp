#pragma once
// Shared OpenCL plumbing: one context/queue on the chosen device (a GPU with fp64 first, else
// any fp64 device; $ACCSUM_OPENCL_DEVICE picks by name substring), program builds cached by
// source, buffers, the cached device copy of the input, and event timing.
#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/frame/registry.hpp"
#include "core/frame/upload_cache.hpp"

namespace accsum::opencl {

[[noreturn]] void throw_cl(cl_int err, const char* what);
#define ACCSUM_CL_CHECK(call)                                                      \
  do {                                                                             \
    cl_int accsum_err_ = (call);                                                   \
    if (accsum_err_ != CL_SUCCESS) ::accsum::opencl::throw_cl(accsum_err_, #call); \
  } while (0)

struct Context {
  cl_platform_id platform{};
  cl_device_id device{};
  cl_context ctx{};
  cl_command_queue queue{};  // in order, profiling enabled
  std::string device_name, platform_name;
  size_t max_work_group = 256;
  cl_uint compute_units = 1;
  bool is_gpu = false;
};

bool available();                // an fp64-capable OpenCL device exists
Context& context();              // throws UsageError when none
std::string describe_devices();  // every platform/device, for `info` and the report

// Builds (once per source+options) and returns the program; kernels are built without
// -cl-mad-enable or fast-math options so EFTs stay exact (sources also say FP_CONTRACT OFF).
cl_program program(const std::string& source, const std::string& options = "");
cl_kernel make_kernel(cl_program prog, const char* name);  // caller releases

// A __local kernel argument of `bytes` (set_args takes it in place of a value).
struct LocalBytes {
  size_t bytes;
};
inline void set_arg(cl_kernel k, cl_uint i, LocalBytes local) {
  ACCSUM_CL_CHECK(clSetKernelArg(k, i, local.bytes, nullptr));
}
template <class T>
void set_arg(cl_kernel k, cl_uint i, const T& v) {
  ACCSUM_CL_CHECK(clSetKernelArg(k, i, sizeof(T), &v));
}
// Sets k's arguments 0, 1, ... to `v` in order.
template <class... T>
void set_args(cl_kernel k, const T&... v) {
  cl_uint i = 0;
  (set_arg(k, i++, v), ...);
}

class Buffer {
 public:
  Buffer() = default;
  Buffer(size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : mem_(o.mem_), bytes_(o.bytes_) { o.mem_ = nullptr; }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(mem_, o.mem_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  cl_mem get() const { return mem_; }
  size_t bytes() const { return bytes_; }
  void write(const void* src, size_t bytes, size_t offset = 0);
  void read(void* dst, size_t bytes, size_t offset = 0) const;

 private:
  cl_mem mem_ = nullptr;
  size_t bytes_ = 0;
};

struct DeviceInput {
  Buffer x, y;  // y empty for sums
  int64_t n = 0;
  double upload_seconds = 0;
};
std::shared_ptr<const DeviceInput> device_input(const Problem& p);

// Seconds between the start of `first` and the end of `last` (profiling info).
double event_span_seconds(cl_event first, cl_event last);

// Base for OpenCL kernels: keeps the input alive, records device time.
class ClKernel : public DeviceInputKernel<DeviceInput> {
 public:
  explicit ClKernel(const Problem& p) : DeviceInputKernel<DeviceInput>(device_input(p)) {}

 protected:
  // Reads the one-double result, records the device time from `first` to `last` and releases
  // both events: the common end of every OpenCL run().
  double finish(const Buffer& result, cl_event first, cl_event last);
};

}  // namespace accsum::opencl
