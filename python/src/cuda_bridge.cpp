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
#include "core/frame/ieee_special.hpp"

#if defined(ACCSUM_HAVE_CUDA)
#include <cuda_runtime.h>

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
class KernelCache {
 public:
  using Key = std::tuple<std::string, int, const double*, const double*, int64_t, int>;
  static constexpr size_t kMostKept = 8;

  // Runs `make`'s kernel (or the one kept for `key`) and returns its scalar result.
  template <class Make>
  double run(const Key& key, bool keep, Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);  // one call at a time on a kept kernel
    auto it = kept_.find(key);
    std::shared_ptr<Kernel> k = it != kept_.end() ? it->second : std::shared_ptr<Kernel>(make());
    if (keep && it == kept_.end()) {
      if (kept_.size() >= kMostKept) kept_.clear();
      kept_[key] = k;
    }
    k->execute();
    return k->result().scalar();
  }

 private:
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<Kernel>> kept_;
};

KernelCache& kernel_cache() {
  static KernelCache* cache = new KernelCache;  // never destroyed: no CUDA call after the runtime is gone
  return *cache;
}

// The cuda entry `algo` on float64 device vectors x (and y) of n elements, after the work queued on
// `stream` (a cudaStream_t as an integer, 0: the legacy default stream).
double reduce_cuda(const std::string& algo, const DeviceArray& x, nb::object y_obj, uintptr_t stream, int K) {
  if (!has_cuda()) throw std::runtime_error("no CUDA device is present");
  if (x.dtype() != nb::dtype<double>()) throw nb::type_error("CUDA arrays must be float64");
  const bool dot = algo == "superacc-dot" || algo == "dpdotk";
  DeviceArray y;
  if (dot) {
    y = nb::cast<DeviceArray>(y_obj);
    if (y.dtype() != x.dtype() || y.size() != x.size()) throw nb::value_error("y must have x's shape and dtype");
    if (y.device_id() != x.device_id()) throw nb::value_error("x and y are on different devices");
  }
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (x.device_id() != current)
    throw nb::value_error(("the array is on cuda:" + std::to_string(x.device_id()) +
                           ", the current device is cuda:" + std::to_string(current))
                              .c_str());
  const int64_t n = static_cast<int64_t>(x.size());
  const double* px = static_cast<const double*>(x.data());
  const double* py = dot ? static_cast<const double*>(y.data()) : nullptr;
  nb::gil_scoped_release unlocked;
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "waiting for the array's stream");
  const AlgoEntry* e = registry().find(algo, "cuda");
  if (!e) throw UsageError(algo + " is not built in on cuda");
  Params user;
  if (algo == "dpsumk" || algo == "dpdotk") user["K"] = std::to_string(K);
  constexpr uintptr_t kAligned = 16;  // the kernels load pairs of doubles
  const bool aligned = ((reinterpret_cast<uintptr_t>(px) | reinterpret_cast<uintptr_t>(py)) % kAligned) == 0;
  const KernelCache::Key key{algo, K, px, py, n, current};
  const double r = kernel_cache().run(key, aligned, [&] {
    Problem p = Problem::vectors(px, py, n, next_dataset_id());
    p.on_device = true;
    return e->make(p, registry().resolve_params(*e, user));
  });
  return ieee_on_device(r, px, py, n);
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
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (x.device_id() != current)
    throw nb::value_error(("the array is on cuda:" + std::to_string(x.device_id()) +
                           ", the current device is cuda:" + std::to_string(current))
                              .c_str());
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
#endif

}  // namespace

void bind_cuda(nb::module_& m) {
  m.def("has_cuda", &has_cuda, "Whether this build has the CUDA backend and a device is present.");
  m.def("reduce_rows_cuda", &reduce_rows_cuda, nb::arg("x"), nb::arg("y").none(), nb::arg("out"), nb::arg("stream"));
  m.def("reduce_cuda", &reduce_cuda, nb::arg("algo"), nb::arg("x"), nb::arg("y").none(), nb::arg("stream"),
        nb::arg("K") = 0);
}

}  // namespace accsum::python
