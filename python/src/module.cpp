// accsum._accsum: the compiled half of `import accsum` (python/accsum/__init__.py is the public
// half: it checks dtypes, shapes and devices, moves axes, and calls these on C-ordered arrays).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <string>

#include "base/limits.hpp"
#include "python/src/cuda_bridge.hpp"
#include "python/src/reductions.hpp"
#include "python/src/verify_support.hpp"

namespace nb = nanobind;

namespace accsum::python {
namespace {

using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using HostOut = nb::ndarray<nb::c_contig, nb::device::cpu>;

bool is_f64(const HostArray& a) { return a.dtype() == nb::dtype<double>(); }
bool is_f32(const HostArray& a) { return a.dtype() == nb::dtype<float>(); }

void check_threads(int threads) {
  if (threads < 0 || threads > kMaxThreads)
    throw nb::value_error(("threads must be 0 (all cores) to " + std::to_string(kMaxThreads)).c_str());
}

// x (and y): (rows, n) C-ordered float64 or float32 of one dtype; out: (rows,) of that dtype.
Rows rows_of(const HostArray& x, const HostArray* y, HostOut& out) {
  if (x.ndim() != 2) throw nb::value_error("x must be 2-D (rows, n)");
  if (!is_f64(x) && !is_f32(x)) throw nb::type_error("x must be float64 or float32");
  if (y && (y->ndim() != 2 || y->shape(0) != x.shape(0) || y->shape(1) != x.shape(1) || y->dtype() != x.dtype()))
    throw nb::value_error("y must have x's shape and dtype");
  if (out.ndim() != 1 || out.shape(0) != x.shape(0) || out.dtype() != x.dtype())
    throw nb::value_error("out must be 1-D with one entry per row, of x's dtype");
  Rows r;
  r.x = x.data();
  r.y = y ? y->data() : nullptr;
  r.out = out.data();
  r.rows = static_cast<int64_t>(x.shape(0));
  r.n = static_cast<int64_t>(x.shape(1));
  r.single = is_f32(x);
  return r;
}

void reduce(const std::string& algo, const HostArray& x, nb::object y, HostOut out, int threads, int K) {
  check_threads(threads);
  if (algo != "superacc" && algo != "superacc-dot" && algo != "dpsumk" && algo != "dpdotk")
    throw nb::value_error(("unknown reduction " + algo).c_str());
  const bool dot = algo == "superacc-dot" || algo == "dpdotk";
  if (dot == y.is_none()) throw nb::value_error(dot ? "a dot product needs y" : "a sum takes no y");
  HostArray ya;
  if (dot) ya = nb::cast<HostArray>(y);
  const Rows r = rows_of(x, dot ? &ya : nullptr, out);
  nb::gil_scoped_release unlocked;
  reduce_rows(algo, r, threads, K);
}

// The correctly rounded sum of a 1-D C-ordered array as a Python float (the fast path of accsum.sum).
double sum_vector(const HostArray& x, int threads) {
  check_threads(threads);
  if (x.ndim() != 1) throw nb::value_error("x must be 1-D");
  if (!is_f64(x) && !is_f32(x)) throw nb::type_error("x must be float64 or float32");
  double d = 0;
  float f = 0;
  Rows r;
  r.x = x.data();
  r.rows = 1;
  r.n = static_cast<int64_t>(x.shape(0));
  r.single = is_f32(x);
  r.out = r.single ? static_cast<void*>(&f) : static_cast<void*>(&d);
  if (r.n > (int64_t{1} << 16)) {
    nb::gil_scoped_release unlocked;
    reduce_rows("superacc", r, threads, 0);
  } else {
    reduce_rows("superacc", r, threads, 0);
  }
  return r.single ? static_cast<double>(f) : d;
}

void matmul_host(const HostArray& a, const HostArray& b, HostOut out, const std::string& accuracy) {
  if (a.ndim() != 2 || b.ndim() != 2 || out.ndim() != 2) throw nb::value_error("a, b and out must be 2-D");
  if (a.dtype() != b.dtype() || out.dtype() != a.dtype() || (!is_f64(a) && !is_f32(a)))
    throw nb::type_error("a, b and out must all be float32 or all float64");
  if (a.shape(1) != b.shape(0) || out.shape(0) != a.shape(0) || out.shape(1) != b.shape(1))
    throw nb::value_error("shapes do not match: a is (M, K), b (K, N), out (M, N)");
  const int64_t M = static_cast<int64_t>(a.shape(0)), K = static_cast<int64_t>(a.shape(1)),
                N = static_cast<int64_t>(b.shape(1));
  nb::gil_scoped_release unlocked;
  matmul(a.data(), b.data(), out.data(), M, K, N, is_f32(a), accuracy);
}

}  // namespace
}  // namespace accsum::python

NB_MODULE(_accsum, m) {
  using namespace accsum::python;
  // A usage error of the library (a parameter out of range, a backend not here) is a ValueError.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const accsum::UsageError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("version", [] { return std::string(ACCSUM_VERSION); });
  m.def("reduce", &reduce, nb::arg("algo"), nb::arg("x"), nb::arg("y").none(), nb::arg("out"), nb::arg("threads"),
        nb::arg("K"));
  m.def("sum_vector", &sum_vector, nb::arg("x"), nb::arg("threads"));
  m.def("matmul", &matmul_host, nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("accuracy"));
  bind_verify(m);
  bind_cuda(m);
}
