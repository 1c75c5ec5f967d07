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
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    kept_.clear();
  }

 private:
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<Kernel>> kept_;
};

KernelCache& kernel_cache() {
  static KernelCache* cache = new KernelCache;  // never destroyed: no CUDA call after the runtime is gone
  return *cache;
}

// Checks that the current device is `device` (the array's).
void check_device(int device) {
  if (!has_cuda()) throw std::runtime_error("no CUDA device is present");
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (device != current)
    throw nb::value_error(
        ("the array is on cuda:" + std::to_string(device) + ", the current device is cuda:" + std::to_string(current))
            .c_str());
}

// Float64 device vectors x (and, for a dot, y) of n elements, checked.
struct DeviceVectors {
  const double* x = nullptr;
  const double* y = nullptr;
  int64_t n = 0;
  int device = 0;
};

DeviceVectors device_vectors(const std::string& algo, const DeviceArray& x, nb::object y_obj) {
  if (x.dtype() != nb::dtype<double>()) throw nb::type_error("CUDA arrays must be float64");
  DeviceVectors v;
  if (algo == "superacc-dot" || algo == "dpdotk") {
    const auto y = nb::cast<DeviceArray>(y_obj);
    if (y.dtype() != x.dtype() || y.size() != x.size()) throw nb::value_error("y must have x's shape and dtype");
    if (y.device_id() != x.device_id()) throw nb::value_error("x and y are on different devices");
    v.y = static_cast<const double*>(y.data());
  }
  v.device = x.device_id();
  check_device(v.device);
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

// The device pointers of torch and CuPy arrays come as integers, checked by the caller (float64, C
// order, 16-byte aligned, x and y of n elements on device `device`): exporting them through DLPack
// costs more host time per call than the launches.
const double* device_pointer(uintptr_t p) { return reinterpret_cast<const double*>(p); }

// The cuda entry `algo` (superacc, superacc-dot: their kernels follow the IEEE rule on the device)
// queued on `stream` with its result written to the device double at out; not waited for.
void enqueue_cuda(const std::string& algo, uintptr_t x, uintptr_t y, int64_t n, int device, uintptr_t out,
                  uintptr_t stream) {
  check_device(device);
  const DeviceVectors v{device_pointer(x), device_pointer(y), n, device};
  nb::gil_scoped_release unlocked;
  with_kernel(algo, v, 0, stream, [&](Kernel& k) {
    auto* q = dynamic_cast<cuda::StreamEnqueue*>(&k);
    if (!q) throw UsageError(algo + " on cuda cannot be queued on a stream");
    q->enqueue(reinterpret_cast<double*>(out), reinterpret_cast<void*>(stream));
  });
}

// The Ozaki GEMM kept for the next product of the same shape, format, accuracy and device: making one
// allocates its residue planes (gigabytes at 8192^2), and the int8 products' tuning is per kernel.
// One is kept; another shape frees it.
class KeptProduct {
 public:
  using Key = std::tuple<bool, int64_t, int64_t, int64_t, std::string, int>;

  template <class Make>
  cuda::DeviceProduct& get(const Key& key, Make&& make) {
    if (!kernel_ || key != key_) {
      kernel_.reset();  // its device memory goes before the next is allocated
      kernel_ = make();
      key_ = key;
    }
    auto* d = dynamic_cast<cuda::DeviceProduct*>(kernel_.get());
    if (!d) throw std::logic_error("the cuda Ozaki entry does not take device matrices");
    return *d;
  }
  void release() { kernel_.reset(); }
  std::mutex mutex;

 private:
  Key key_;
  std::unique_ptr<Kernel> kernel_;
};

KeptProduct& kept_product() {
  static KeptProduct* kept = new KeptProduct;  // never destroyed: no CUDA call after the runtime is gone
  return *kept;
}

// out = a b for C-ordered device matrices (float32 with `single`, else float64) on `device`: a (M x K),
// b (K x N), out (M x N), each 16-byte aligned (checked by the caller), after the work queued on
// `stream`; returns when out is written. C = A B in C order is C^T = B^T A^T in column order, so the
// product is the column-ordered one of (b's buffer) x (a's buffer), as on the host.
void matmul_cuda(uintptr_t a, uintptr_t b, uintptr_t out, int64_t M, int64_t K, int64_t N, bool single,
                 const std::string& accuracy, int device, uintptr_t stream) {
  check_device(device);
  const char* algo = single ? "sgemm-ozaki" : "dgemm-ozaki";
  const AlgoEntry* e = registry().find(algo, "cuda");
  if (!e) throw UsageError(std::string(algo) + " is not built in on cuda");
  const Params params = registry().resolve_params(*e, {{"accuracy", accuracy}});
  nb::gil_scoped_release unlocked;
  KeptProduct& kept = kept_product();
  std::lock_guard<std::mutex> lock(kept.mutex);
  cuda::DeviceProduct& product = kept.get({single, M, K, N, accuracy, device}, [&] {
    Problem p;
    p.rows = N;
    p.cols = M;
    p.inner = K;
    p.on_device = true;
    p.id = next_dataset_id();
    return e->make(p, params);
  });
  product.multiply_into(reinterpret_cast<const void*>(b), reinterpret_cast<const void*>(a),
                        reinterpret_cast<void*>(out), reinterpret_cast<void*>(stream));
}

// Frees the kept kernels' device memory (the kept product's residue planes, the kept reductions).
void release_cuda_memory() {
  nb::gil_scoped_release unlocked;
  std::lock_guard<std::mutex> lock(kept_product().mutex);
  kept_product().release();
  kernel_cache().clear();
}

// Row sums (dots, y non-zero) of (rows x n) C-ordered float64 device matrices into the device vector
// out (rows,), one launch queued on `stream` (not waited for: out is ready in stream order); block:
// threads per row (0: the kernel's default).
void reduce_rows_cuda(uintptr_t x, uintptr_t y, int64_t rows, int64_t n, int device, uintptr_t out, uintptr_t stream,
                      int block) {
  check_device(device);
  cuda::superacc_rows(device_pointer(x), device_pointer(y), rows, n, reinterpret_cast<double*>(out),
                      reinterpret_cast<void*>(stream), block ? block : cuda::kRowsBlock);
}
#else
bool has_cuda() { return false; }
void matmul_cuda(uintptr_t, uintptr_t, uintptr_t, int64_t, int64_t, int64_t, bool, const std::string&, int, uintptr_t) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass NumPy (host) arrays");
}
void release_cuda_memory() {}
void reduce_rows_cuda(uintptr_t, uintptr_t, int64_t, int64_t, int, uintptr_t, uintptr_t, int) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass a NumPy (host) array");
}
double reduce_cuda(const std::string&, const DeviceArray&, nb::object, uintptr_t, int) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass a NumPy (host) array");
}
void enqueue_cuda(const std::string&, uintptr_t, uintptr_t, int64_t, int, uintptr_t, uintptr_t) {
  throw std::runtime_error("this accsum was built without the CUDA backend; pass a NumPy (host) array");
}
#endif

}  // namespace

void bind_cuda(nb::module_& m) {
  m.def("has_cuda", &has_cuda, "Whether this build has the CUDA backend and a device is present.");
  m.def("reduce_rows_cuda", &reduce_rows_cuda, nb::arg("x"), nb::arg("y"), nb::arg("rows"), nb::arg("n"),
        nb::arg("device"), nb::arg("out"), nb::arg("stream"), nb::arg("block") = 0);
  m.def("enqueue_cuda", &enqueue_cuda, nb::arg("algo"), nb::arg("x"), nb::arg("y"), nb::arg("n"), nb::arg("device"),
        nb::arg("out"), nb::arg("stream"));
  m.def("matmul_cuda", &matmul_cuda, nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("M"), nb::arg("K"),
        nb::arg("N"), nb::arg("single"), nb::arg("accuracy"), nb::arg("device"), nb::arg("stream"));
  m.def("release_cuda_memory", &release_cuda_memory,
        "Frees the device memory accsum keeps for the next call (kept kernels, a product's residue planes).");
  m.def("reduce_cuda", &reduce_cuda, nb::arg("algo"), nb::arg("x"), nb::arg("y").none(), nb::arg("stream"),
        nb::arg("K") = 0);
}

}  // namespace accsum::python
