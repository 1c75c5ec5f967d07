#pragma once
// Shared CUDA plumbing: error checks, device buffers, the cached device copy of the input,
// and event timing. Kernels live in their own files; this one holds no numerics.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/frame/registry.hpp"
#include "core/frame/upload_cache.hpp"

namespace accsum::cuda {

[[noreturn]] void throw_cuda(cudaError_t e, const char* what, const char* file, int line);
#define ACCSUM_CUDA_CHECK(call)                                                                         \
  do {                                                                                                  \
    cudaError_t accsum_err_ = (call);                                                                   \
    if (accsum_err_ != cudaSuccess) ::accsum::cuda::throw_cuda(accsum_err_, #call, __FILE__, __LINE__); \
  } while (0)

bool available();  // a CUDA device is present and usable

// Makes this thread compute on the device core/frame/placement.hpp picks (--device, $ACCSUM_CUDA_DEVICE,
// or the node-local MPI rank modulo the devices visible) and records it for the report. Every
// allocation, timer and library handle calls it first, so no context is made on another device.
int bind_device();
// An attribute of the device this thread computes on (cudaDeviceGetAttribute).
int device_attribute(cudaDeviceAttr attr);
// The streaming multiprocessors of the device this thread computes on.
int sm_count();
// The bound device's L2 cache size in bytes (cudaDevAttrL2CacheSize).
int64_t l2_cache_bytes();

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    bind_device();
    if (count) ACCSUM_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) {
    o.ptr_ = nullptr;
    o.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// The input on the device, shared by every CUDA kernel of a run (uploaded once per Problem.id).
struct DeviceInput {
  const double* x = nullptr;
  const double* y = nullptr;  // null for sums
  int64_t n = 0;
  double upload_seconds = 0;
};
// Uploads problem (or returns the cached copy); the cache holds one problem at a time. A
// problem described by a recipe (Problem::generated) is made on the device instead.
std::shared_ptr<const DeviceInput> device_input(const Problem& p);
// Drops the cached copy (frees device memory).
void release_device_input();

// Elements [first, first + n) of a recipe into device arrays x (and y for a dot): same bits as
// the host generator (backends/cuda/generate_cuda.cu).
void generate_on_device(const ElementRecipe& r, int64_t first, int64_t n, double* x, double* y);
bool recipe_has_y(const ElementRecipe& r);

// Times a region of GPU work on the default stream with CUDA events.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  void start();
  double stop_seconds();  // records stop, synchronises, returns elapsed seconds

 private:
  cudaEvent_t a_{}, b_{};
};

// Base for CUDA kernels: keeps the device input alive and records the last device time.
class CudaKernel : public DeviceInputKernel<DeviceInput> {
 public:
  explicit CudaKernel(const Problem& p) : DeviceInputKernel<DeviceInput>(device_input(p)) {}
};

// A kernel whose run is one library call writing one double to the device: timed with events,
// then the result is copied back (the vendor baselines and peers).
class LibraryCallKernel : public CudaKernel {
 public:
  using CudaKernel::CudaKernel;

 protected:
  // launch(double* device_result) -> cudaError_t
  template <class Launch>
  double timed_call(Launch launch) {
    timer_.start();
    ACCSUM_CUDA_CHECK(launch(out_.get()));
    last_ = timer_.stop_seconds();
    double r = 0;
    ACCSUM_CUDA_CHECK(cudaMemcpy(&r, out_.get(), sizeof r, cudaMemcpyDeviceToHost));
    return r;
  }

 private:
  DeviceBuffer<double> out_{1};
  EventTimer timer_;
};

}  // namespace accsum::cuda
