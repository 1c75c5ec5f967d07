#pragma once
// Entries the Python package's CUDA arrays reach on the caller's device memory. Host-only header.

namespace accsum::cuda {

// A cuda kernel that can also run on a caller's stream, leaving its one double result in device
// memory without waiting for it (the result stays a device array, ordered on the array library's
// stream).
class StreamEnqueue {
 public:
  virtual ~StreamEnqueue() = default;
  // Queues the kernel's work on `stream` (a cudaStream_t) writing the result to the device double `out`.
  virtual void enqueue(double* out, void* stream) = 0;
};

// A cuda GEMM kernel made on a Problem with on_device set (its matrices named at each call): the
// product of a caller's device matrices written into a caller's device matrix, no copy of either.
class DeviceProduct {
 public:
  virtual ~DeviceProduct() = default;
  // out = a b for column-major device matrices of the kernel's shape and element type: a (rows x
  // inner), b (inner x cols), out (rows x cols), each starting on a 16-byte boundary. Runs after the
  // work queued on `stream` (a cudaStream_t) and returns once out is written.
  virtual void multiply_into(const void* a, const void* b, void* out, void* stream) = 0;
};

}  // namespace accsum::cuda
