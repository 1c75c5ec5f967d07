// include/accsum/accsum.h: each function runs the registry entry the tool measures under that
// name and backend (core/frame/registry.hpp), through the same maker and the same IEEE special-value
// rule; nothing is reimplemented here.
#include <accsum/accsum.h>

#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "core/frame/ieee_special.hpp"
#include "core/frame/registry.hpp"
#include "base/vocabulary.hpp"

#if defined(ACCSUM_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

namespace {

thread_local std::string last_error;

int fail(int code, const std::string& why) {
  last_error = why;
  return code;
}

struct Call {
  const char* algo;
  const char* backend;
  const double* x;
  const double* y;
  int64_t n;
  accsum::Params params;
  bool on_device = false;
};

double compute(const Call& c) {
  accsum::require_backend(c.backend);
  const accsum::AlgoEntry* e = accsum::registry().find(c.algo, c.backend);
  if (!e) throw accsum::UsageError(std::string(c.algo) + " is not built in on " + c.backend);
  accsum::Problem p = accsum::Problem::vectors(c.x, c.y, c.n, accsum::next_dataset_id());
  p.on_device = c.on_device;
  auto kernel = e->make(p, accsum::registry().resolve_params(*e, c.params));
  kernel->execute();
  return kernel->result().scalar();
}

#if defined(ACCSUM_HAVE_CUDA)
// The IEEE rule reads the input; on device pointers it runs on a host copy, only when the
// computed result is not finite (as with_ieee_rule does on the host).
double ieee_on_device(double r, const Call& c) {
  if (std::isfinite(r) || c.n == 0) return r;
  std::vector<double> hx(static_cast<size_t>(c.n)), hy(c.y ? static_cast<size_t>(c.n) : 0);
  if (cudaMemcpy(hx.data(), c.x, hx.size() * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess ||
      (c.y && cudaMemcpy(hy.data(), c.y, hy.size() * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess))
    throw std::runtime_error("copying the input to the host for the IEEE special-value rule failed");
  return accsum::ieee_result(r, hx.data(), c.y ? hy.data() : nullptr, c.n);
}
#endif

// ACCSUM_EINVAL for a NULL or negative argument, else ACCSUM_OK.
int invalid_arguments(const Call& c, const double* result) {
  if (!result) return fail(ACCSUM_EINVAL, "result is NULL");
  if (c.n < 0) return fail(ACCSUM_EINVAL, "n is negative");
  if (c.n > 0 && !c.x) return fail(ACCSUM_EINVAL, "x is NULL");
  return ACCSUM_OK;
}

int run(const Call& c, double* result) {
  last_error.clear();
  if (invalid_arguments(c, result)) return ACCSUM_EINVAL;
  try {
    double r = compute(c);
#if defined(ACCSUM_HAVE_CUDA)
    if (c.on_device) r = ieee_on_device(r, c);
#endif
    *result = r;
    return ACCSUM_OK;
  } catch (const accsum::UsageError& e) {
    const std::string what = e.what();
    const bool absent = what.find("backend") != std::string::npos;
    return fail(absent ? ACCSUM_EUNAVAILABLE : ACCSUM_EINVAL, what);
  } catch (const std::bad_alloc&) {
    return fail(ACCSUM_EFAILED, "out of memory");
  } catch (const std::exception& e) {
    return fail(ACCSUM_EFAILED, e.what());
  }
}

int check_y(const double* y, int64_t n) { return n > 0 && !y ? fail(ACCSUM_EINVAL, "y is NULL") : ACCSUM_OK; }

// The device functions: invalid arguments first (ACCSUM_EINVAL, as on the host, judged by the
// host entry's parameters), then ACCSUM_EUNAVAILABLE without a CUDA device, then the stream.
int on_stream(void* stream, const Call& c, double* result) {
  last_error.clear();
  if (invalid_arguments(c, result)) return ACCSUM_EINVAL;
  try {
    if (const accsum::AlgoEntry* host = accsum::registry().find(c.algo, "cpu"))
      accsum::registry().resolve_params(*host, c.params);
  } catch (const accsum::UsageError& e) {
    return fail(ACCSUM_EINVAL, e.what());
  }
  if (!accsum_has_cuda())
    return fail(ACCSUM_EUNAVAILABLE, "no CUDA device here, or this accsum library was built without CUDA");
#if defined(ACCSUM_HAVE_CUDA)
  cudaError_t err = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess)
    return fail(ACCSUM_EFAILED, std::string("waiting for the stream: ") + cudaGetErrorString(err));
#else
  (void)stream;
#endif
  return run(c, result);
}

}  // namespace

extern "C" {

const char* accsum_version(void) { return ACCSUM_VERSION; }
const char* accsum_last_error(void) { return last_error.c_str(); }

int accsum_sum(const double* x, int64_t n, double* result) {
  return run({"superacc", "cpu", x, nullptr, n, {}}, result);
}
int accsum_dot(const double* x, const double* y, int64_t n, double* result) {
  if (check_y(y, n)) return ACCSUM_EINVAL;
  return run({"superacc-dot", "cpu", x, y, n, {}}, result);
}
int accsum_sum_mt(const double* x, int64_t n, int threads, double* result) {
  return run({"superacc", "cpu-mt", x, nullptr, n, {{"threads", std::to_string(threads)}}}, result);
}
int accsum_dot_mt(const double* x, const double* y, int64_t n, int threads, double* result) {
  if (check_y(y, n)) return ACCSUM_EINVAL;
  return run({"superacc-dot", "cpu-mt", x, y, n, {{"threads", std::to_string(threads)}}}, result);
}
int accsum_dpsumk(const double* x, int64_t n, int K, double* result) {
  return run({"dpsumk", "cpu", x, nullptr, n, {{"K", std::to_string(K)}}}, result);
}
int accsum_dpdotk(const double* x, const double* y, int64_t n, int K, double* result) {
  if (check_y(y, n)) return ACCSUM_EINVAL;
  return run({"dpdotk", "cpu", x, y, n, {{"K", std::to_string(K)}}}, result);
}

int accsum_has_cuda(void) {
  const accsum::BackendInfo* b = accsum::registry().backend("cuda");
  try {
    return b && (!b->available || b->available()) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}
int accsum_sum_cuda(const double* x, int64_t n, void* stream, double* result) {
  return on_stream(stream, {"superacc", "cuda", x, nullptr, n, {}, true}, result);
}
int accsum_dot_cuda(const double* x, const double* y, int64_t n, void* stream, double* result) {
  if (check_y(y, n)) return ACCSUM_EINVAL;
  return on_stream(stream, {"superacc-dot", "cuda", x, y, n, {}, true}, result);
}
int accsum_dpsumk_cuda(const double* x, int64_t n, int K, void* stream, double* result) {
  return on_stream(stream, {"dpsumk", "cuda", x, nullptr, n, {{"K", std::to_string(K)}}, true}, result);
}
int accsum_dpdotk_cuda(const double* x, const double* y, int64_t n, int K, void* stream, double* result) {
  if (check_y(y, n)) return ACCSUM_EINVAL;
  return on_stream(stream, {"dpdotk", "cuda", x, y, n, {{"K", std::to_string(K)}}, true}, result);
}

}  // extern "C"
