#include "python/src/cuda_bridge.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/frame/registry.hpp"
#include "core/oracle/ieee_special.hpp"

#if defined(ACCSUM_HAVE_CUDA)
#include <cuda_runtime.h>

#include "backends/cuda/stream_enqueue.hpp"
#include "backends/cuda/superacc_rows.hpp"
#endif

namespace nb = nanobind;

namespace accsum::python {
namespace {

using DeviceArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cuda>;

#if defined(ACCSUM_HAVE_CUDA)
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

bool has_cuda() {
  const BackendInfo* b = registry().backend("cuda");
  try {
    return b && (!b->available || b->available());
  } catch (...) {
    return false;
  }
}

// The IEEE rule on device data reads a host copy, only when the computed result is not finite.
double ieee_on_device(double r, const double* x, const double* y, int64_t n) {
  if (std::isfinite(r) || n == 0) return r;
  std::vector<double> hx(static_cast<size_t>(n)), hy(y ? static_cast<size_t>(n) : 0);
  check(cudaMemcpy(hx.data(), x, hx.size() * sizeof(double), cudaMemcpyDeviceToHost), "copying x to the host");
  if (y) check(cudaMemcpy(hy.data(), y, hy.size() * sizeof(double), cudaMemcpyDeviceToHost), "copying y to the host");
  return ieee_result(r, hx.data(), y ? hy.data() : nullptr, n);
}

// Kernels made for device arrays, kept for the next call on the same arrays: making one allocates device
// memory (cudaMalloc, and cudaFree when it goes), which would cost more than a sum of a few million
// doubles. A kernel on 16-byte aligned device arrays reads them in place at every execute(), so it is
// valid for whatever the arrays hold then (misaligned arrays are copied when the kernel is made: those
// kernels are not kept).
// A kernel queued on a stream is kept per stream (its device counters are reused by the next launch,
// which stream order serialises); dropping kept kernels frees device memory, which waits for the device.
class KernelCache {
 public:
  using Key = std::tuple<std::string, int, const double*, const double*, int64_t, int, uintptr_t>;
  static constexpr size_t kMostKept = 8;

  // Calls use(kernel) on `make`'s kernel (or the one kept for `key`).
  template <class Make, class Use>
  void with(const Key& key, bool keep, Make&& make, Use&& use) {
    std::lock_guard<std::mutex> lock(mutex_);  // one call at a time on a kept kernel
    auto it = kept_.find(key);
    std::shared_ptr<Kernel> k = it != kept_.end() ? it->second : std::shared_ptr<Kernel>(make());
    if (keep && it == kept_.end()) {
      if (kept_.size() >= kMostKept) kept_.clear();
      kept_[key] = k;
    }
    use(*k);
  }

 private:
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<Kernel>> kept_;
};

KernelCache& kernel_cache() {
  static KernelCache* cache = new KernelCache;  // never destroyed: no CUDA call after the runtime is gone
  return *cache;
}

// The current device's number, after checking that the array is on it.
int device_of(const DeviceArray& x) {
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (x.device_id() != current)
    throw nb::value_error(("the array is on cuda:" + std::to_string(x.device_id()) +
                           ", the current device is cuda:" + std::to_string(current))
                              .c_str());
  return current;
}

// Float64 device vectors x (and, for a dot, y) of n elements, checked.
struct DeviceVectors {
  const double* x = nullptr;
  const double* y = nullptr;
  int64_t n = 0;
  int device = 0;
};

DeviceVectors device_vectors(const std::string& algo, const DeviceArray& x, nb::object y_obj) {
  if (!has_cuda()) throw std::runtime_error("no CUDA device is present");
  if (x.dtype() != nb::dtype<double>()) throw nb::type_error("CUDA arrays must be float64");
  DeviceVectors v;
  if (algo == "superacc-dot" || algo == "dpdotk") {
    const auto y = nb::cast<DeviceArray>(y_obj);
    if (y.dtype() != x.dtype() || y.size() != x.size()) throw nb::value_error("y must have x's shape and dtype");
    if (y.device_id() != x.device_id()) throw nb::value_error("x and y are on different devices");
    v.y = static_cast<const double*>(y.data());
  }
  v.device = device_of(x);
  v.x = static_cast<const double*>(x.data());
  v.n = static_cast<int64_t>(x.size());
  return v;
}

// Runs use(kernel) on the cuda entry `algo`'s kernel for v, kept for the next call on the same arrays
// and stream when they are 16-byte aligned (the kernels load pairs of doubles; misaligned arrays are
// copied when the kernel is made).
template <class Use>
void with_kernel(const std::string& algo, const DeviceVectors& v, int K, uintptr_t stream, Use&& use) {
  const AlgoEntry* e = registry().find(algo, "cuda");
  if (!e) throw UsageError(algo + " is not built in on cuda");
  Params user;
  if (algo == "dpsumk" || algo == "dpdotk") user["K"] = std::to_string(K);
  constexpr uintptr_t kAligned = 16;
  const bool aligned = ((reinterpret_cast<uintptr_t>(v.x) | reinterpret_cast<uintptr_t>(v.y)) % kAligned) == 0;
  const KernelCache::Key key{algo, K, v.x, v.y, v.n, v.device, stream};
  kernel_cache().with(
      key, aligned,
      [&] {
        Problem p = Problem::vectors(v.x, v.y, v.n, next_dataset_id());
        p.on_device = true;
        auto made = e->make(p, registry().resolve_params(*e, user));
        // The kernel cleared its device counters on the legacy default stream, which a caller's
        // non-blocking stream does not wait for.
        check(cudaStreamSynchronize(cudaStreamLegacy), "clearing the kernel's counters");
        return made;
      },
      use);
}

// The cuda entry `algo` on float64 device vectors x (and y) of n elements, after the work queued on
// `stream` (a cudaStream_t as an integer, 0: the legacy default stream), waited for; the result on
// the host.
double reduce_cuda(const std::string& algo, const DeviceArray& x, nb::object y_obj, uintptr_t stream, int K) {
  const DeviceVectors v = device_vectors(algo, x, y_obj);
  nb::gil_scoped_release unlocked;
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "waiting for the array's stream");
  double r = 0;
  with_kernel(algo, v, K, 0, [&](Kernel& k) {
    k.execute();
    r = k.result().scalar();
  });
  return ieee_on_device(r, v.x, v.y, v.n);
}

// The cuda entry `algo` (superacc, superacc-dot: their kernels follow the IEEE rule on the device)
// queued on `stream` with its result written to the 0-d device array out; not waited for.
void enqueue_cuda(const std::string& algo, const DeviceArray& x, nb::object y_obj,
                  nb::ndarray<nb::c_contig, nb::device::cuda> out, uintptr_t stream) {
  const DeviceVectors v = device_vectors(algo, x, y_obj);
  if (out.size() != 1 || out.dtype() != nb::dtype<double>() || out.device_id() != x.device_id())
    throw nb::value_error("out must be one float64 on x's device");
  nb::gil_scoped_release unlocked;
  with_kernel(algo, v, 0, stream, [&](Kernel& k) {
    auto* q = dynamic_cast<cuda::StreamEnqueue*>(&k);
    if (!q) throw UsageError(algo + " on cuda cannot be queued on a stream");
    q->enqueue(static_cast<double*>(out.data()), reinterpret_cast<void*>(stream));
  });
}

// Row sums (dots) of (rows x n) C-ordered float64 device matrices into out (rows,), one launch queued on
// `stream` (not waited for: out is ready in stream order).
void reduce_rows_cuda(const DeviceArray& x, nb::object y_obj, nb::ndarray<nb::c_contig, nb::device::cuda> out,
                      uintptr_t stream) {
  if (!has_cuda()) throw std::runtime_error("no CUDA device is present");
  if (x.ndim() != 2 || x.dtype() != nb::dtype<double>()) throw nb::type_error("x must be a 2-D float64 CUDA array");
  if (out.ndim() != 1 || out.shape(0) != x.shape(0) || out.dtype() != x.dtype() || out.device_id() != x.device_id())
    throw nb::value_error("out must be a float64 CUDA vector with one entry per row, on x's device");
  const double* py = nullptr;
  DeviceArray y;
  if (!y_obj.is_none()) {
    y = nb::cast<DeviceArray>(y_obj);
    if (y.ndim() != 2 || y.shape(0) != x.shape(0) || y.shape(1) != x.shape(1) || y.dtype() != x.dtype() ||
        y.device_id() != x.device_id())
      throw nb::value_error("y must have x's shape, dtype and device");
    py = static_cast<const double*>(y.data());
  }
  device_of(x);
  cuda::superacc_rows(static_cast<const double*>(x.data()), py, static_cast<int64_t>(x.shape(0)),
                      static_cast<int64_t>(x.shape(1)), static_cast<double*>(out.data()),
                      reinterpret_cast<void*>(stream));
}
#else
bool has_cuda() { return false; }
void reduce_rows_cuda(const DeviceArray&, nb::object, nb::ndarray<nb::c_contig, nb::device::cuda>, uintptr_t) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass a NumPy (host) array");
}
double reduce_cuda(const std::string&, const DeviceArray&, nb::object, uintptr_t, int) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass a NumPy (host) array");
}
void enqueue_cuda(const std::string&, const DeviceArray&, nb::object, nb::ndarray<nb::c_contig, nb::device::cuda>,
                  uintptr_t) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass a NumPy (host) array");
}
#endif

}  // namespace

void bind_cuda(nb::module_& m) {
  m.def("has_cuda", &has_cuda, "Whether this build has the CUDA backend and a device is present.");
  m.def("reduce_rows_cuda", &reduce_rows_cuda, nb::arg("x"), nb::arg("y").none(), nb::arg("out"), nb::arg("stream"));
  m.def("enqueue_cuda", &enqueue_cuda, nb::arg("algo"), nb::arg("x"), nb::arg("y").none(), nb::arg("out"),
        nb::arg("stream"));
  m.def("reduce_cuda", &reduce_cuda, nb::arg("algo"), nb::arg("x"), nb::arg("y").none(), nb::arg("stream"),
        nb::arg("K") = 0);
}

}  // namespace accsum::python
