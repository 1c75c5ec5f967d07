#pragma once
// What the device backends (CUDA, OpenCL) share about their uploaded input: the cache of the last
// upload and the kernels' base that keeps it alive.
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "base/vocabulary.hpp"
#include "core/frame/registry.hpp"

namespace accsum {

// The device copy of the problem a backend uploaded last, kept while the same problem (id, x, n)
// comes again: the runs of one benchmark upload their input once. Callers hold mutex() around
// find, the upload and keep, so two threads never upload the same input twice.
template <class Input>
class UploadCache {
 public:
  std::mutex& mutex() { return mutex_; }
  // The copy of p where it is the problem kept; else null, the old copy freed first (before the
  // caller allocates a new one).
  std::shared_ptr<Input> find(const Problem& p) {
    if (input_ && id_ == p.id && x_ == p.x && n_ == p.n) return input_;
    input_.reset();
    return nullptr;
  }
  // Keeps `in` as the copy of p and returns it.
  std::shared_ptr<Input> keep(const Problem& p, std::shared_ptr<Input> in) {
    input_ = std::move(in);
    id_ = p.id;
    x_ = p.x;
    n_ = p.n;
    return input_;
  }
  void clear() {
    input_.reset();
    x_ = nullptr;
    n_ = -1;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<Input> input_;
  uint64_t id_ = ~0ull;
  const double* x_ = nullptr;
  int64_t n_ = -1;
};

// Base of a device backend's scalar kernels: keeps the uploaded input alive while the kernel lives
// and reports the upload's time and the last run's device time (-1 before the first run).
template <class Input>
class DeviceInputKernel : public ScalarKernel {
 public:
  explicit DeviceInputKernel(std::shared_ptr<const Input> in) : in_(std::move(in)) {}
  double last_device_seconds() const override { return last_; }
  double transfer_seconds() const override { return in_->upload_seconds; }

 protected:
  std::shared_ptr<const Input> in_;
  double last_ = -1.0;
};

}  // namespace accsum
