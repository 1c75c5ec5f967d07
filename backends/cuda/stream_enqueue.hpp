#pragma once
// A cuda kernel that can also run on a caller's stream, leaving its one double result in device
// memory without waiting for it (the Python package's CUDA arrays: the result stays a device array,
// ordered on the array library's stream). Host-only header.

namespace accsum::cuda {

class StreamEnqueue {
 public:
  virtual ~StreamEnqueue() = default;
  // Queues the kernel's work on `stream` (a cudaStream_t) writing the result to the device double `out`.
  virtual void enqueue(double* out, void* stream) = 0;
};

}  // namespace accsum::cuda
