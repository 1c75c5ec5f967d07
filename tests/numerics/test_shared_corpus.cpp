// One adversarial corpus (ties, cancellation, subnormals, overflow-cancel, huge dynamic range,
// signed zeros, NaN/inf, random bit patterns) through the numerics of every backend present,
// compared bit for bit with the exact MPFR oracle (core/oracle/oracle.hpp):
//   - the error-free transforms (core/numerics/numerics.h) on the host, in OpenCL C (the embedded header,
//     run on the OpenCL device) and in CUDA device code (backends/cuda/eft_probe.cu, GPU only);
//   - the superaccumulator's cut and rounding: core's Superacc / SuperaccDot on the host, and the
//     registered `superacc` / `superacc-dot` of cpu, cpu-mt, opencl and cuda.
// An EFT's outputs are checked where its theorem holds (Ogita, Rump, Oishi, "Accurate sum and dot
// product", SIAM J. Sci. Comput. 2005, Sec. 3): s = RN(a + b) always; the error e exactly
// a + b - s when s is finite; FastTwoSum when |a| >= |b|; the products when no underflow or
// overflow can occur. Where a theorem does not apply, every backend must still agree with the host
// bit for bit (NaN matching NaN): one definition, one behaviour. Rounded results (s, p) are
// compared with the oracle bit for bit, sign of zero included; error terms by value.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/numerics/eft.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "core/numerics/superacc.hpp"
#include "tests/superacc_test_util.hpp"
#include "tests/special_values.hpp"
#if defined(ACCSUM_HAVE_OPENCL)
#include "backends/opencl/cl_common.hpp"
#include "backends/opencl/eft_cl.hpp"
#endif
#if defined(ACCSUM_HAVE_CUDA)
#include "backends/cuda/eft_probe.hpp"
#endif

namespace accsum {
namespace {

using test::same_bits;

using accsum::test::kInf;
using accsum::test::kNaN;
constexpr double kMinSub = 0x1p-1074;

// ---- the corpus ----

struct Pair {
  double a, b;
  const char* kind;
};

std::vector<Pair> corpus_pairs() {
  std::vector<Pair> v = {
      // ties and near-ties (round to even)
      {1.0, 0x1p-53, "tie"},
      {1.0, -0x1p-54, "tie"},
      {0x1p53, 1.0, "tie"},
      {0x1p53, 3.0, "tie"},
      {1.0 + 0x1p-52, 0x1p-53, "tie"},
      {-0x1p53, -1.0, "tie"},
      {1.0, 0x1p-53 + 0x1p-105, "near-tie"},
      {1.0, 0x1p-53 - 0x1p-106, "near-tie"},
      {DBL_MAX, 0x1p970, "tie-to-inf"},
      {DBL_MAX, 0x1p969, "below-half-ulp"},
      // cancellation
      {1.0 + 0x1p-52, -1.0, "cancel"},
      {0x1p60, -(0x1p60 - 1024.0), "cancel"},
      {3.0, -3.0, "cancel"},
      {0x1.fffffffffffffp0, -0x1.ffffffffffffep0, "cancel"},
      {1e16, -1e16 + 2.0, "cancel"},
      // subnormals
      {kMinSub, kMinSub, "subnormal"},
      {DBL_MIN, -kMinSub, "subnormal"},
      {0x1p-1070, 3 * kMinSub, "subnormal"},
      {DBL_MIN / 3, -DBL_MIN / 7, "subnormal"},
      {0x1p-1022, 0x1p-1022, "subnormal"},
      {kMinSub, -kMinSub, "subnormal"},
      {0x1p-540, 0x1p-540, "product-underflow"},
      {0x1p-600, 0x1.8p-500, "product-underflow"},
      // overflow-cancel
      {DBL_MAX, DBL_MAX, "overflow"},
      {-DBL_MAX, -DBL_MAX, "overflow"},
      {DBL_MAX, -DBL_MAX, "overflow-cancel"},
      {DBL_MAX, 2.0, "product-overflow"},
      {0x1p600, 0x1p500, "product-overflow"},
      {0x1p996, 3.0, "split-overflow"},
      // huge dynamic range
      {0x1p1000, 0x1p-1000, "range"},
      {1e300, 1e-300, "range"},
      {DBL_MAX, kMinSub, "range"},
      {-0x1p1023, 0x1p-1074, "range"},
      {0x1p-1022, 0x1p1000, "range"},
      // signed zeros
      {0.0, 0.0, "zero"},
      {-0.0, -0.0, "zero"},
      {0.0, -0.0, "zero"},
      {-0.0, 0.0, "zero"},
      {-0.0, 1.0, "zero"},
      {5.0, -0.0, "zero"},
      // NaN and infinities
      {kNaN, 1.0, "nan"},
      {1.0, kNaN, "nan"},
      {kInf, 1.0, "inf"},
      {kInf, -kInf, "inf"},
      {-kInf, -kInf, "inf"},
      {kInf, kNaN, "nan"},
      {kInf, 0.0, "inf"},
      {-kInf, 3.0, "inf"},
      // products with an exact error
      {1.0 + 0x1p-30, 1.0 - 0x1p-30, "product"},
      {0x1.fffffffffffffp0, 0x1.fffffffffffffp0, "product"},
      {3.0, 1.0 / 3.0, "product"},
      {0x1p-500, 0x1.ffffp-400, "product"},
  };
  std::mt19937_64 rng(20260);
  for (int i = 0; i < 2000; ++i)
    v.push_back({test::random_bits_double(rng), test::random_bits_double(rng), "random-bits"});
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-60, 60);
  for (int i = 0; i < 2000; ++i) {  // nearby magnitudes: deep cancellation, non-trivial errors
    double a = std::ldexp(u(rng), ex(rng));
    v.push_back({a, -a * (1.0 + std::ldexp(u(rng), -40)), "near-cancel"});
    v.push_back({a, std::ldexp(u(rng), ex(rng)), "mid-range"});
  }
  return v;
}

// ---- the oracle's verdicts on one pair's outputs ----

// An error term is a value: its zero sign carries nothing (a + b = s + e holds for either).
bool same_value(double a, double b) { return a == b; }

double oracle_sum(std::vector<double> t) { return exact_sum(t.data(), static_cast<int64_t>(t.size())).rounded; }
bool exactly_zero(std::vector<double> t) { return oracle_sum(std::move(t)) == 0.0; }

// The host's outputs for a pair: what every other backend must reproduce bit for bit.
std::vector<double> host_outputs(const Pair& q) {
  std::vector<double> o(10);
  two_sum(q.a, q.b, o[0], o[1]);
  fast_two_sum(q.a, q.b, o[2], o[3]);
  split(q.a, o[4], o[5]);
  two_prod_dekker(q.a, q.b, o[6], o[7]);
  two_prod_fma(q.a, q.b, o[8], o[9]);
  return o;
}

// Checks one pair's outputs (laid out as host_outputs / eft_probe) against the MPFR oracle.
void check_against_oracle(const Pair& q, const double* o, const std::string& who) {
  const double a = q.a, b = q.b;
  const std::string at = who + " " + q.kind + " a=" + hex_double(a) + " b=" + hex_double(b);
  const double sum_rn = oracle_sum({a, b});
  const double x[1] = {a}, y[1] = {b};
  const double prod_rn = exact_dot(x, y, 1).rounded;
  // TwoSum (ORO Alg. 3.1): s = RN(a + b); s + e = a + b exactly while s is finite.
  EXPECT_PRED2(same_bits, o[0], sum_rn) << at << " TwoSum s";
  if (std::isfinite(o[0])) {
    EXPECT_PRED2(same_value, o[1], oracle_sum({a, b, -o[0]})) << at << " TwoSum e";
    EXPECT_TRUE(exactly_zero({a, b, -o[0], -o[1]})) << at << " TwoSum s + e != a + b";
  }
  // FastTwoSum (ORO Alg. 1.1), precondition |a| >= |b|.
  if (std::fabs(a) >= std::fabs(b) || a == 0.0) {
    EXPECT_PRED2(same_bits, o[2], sum_rn) << at << " FastTwoSum s";
    if (std::isfinite(o[2])) {
      EXPECT_TRUE(exactly_zero({a, b, -o[2], -o[3]})) << at << " FastTwoSum";
    }
  }
  // Split (ORO Alg. 3.2): a = hi + lo exactly unless 2^27 a overflows.
  if (std::isfinite(a) && std::fabs(a) <= 0x1p995) {
    EXPECT_TRUE(exactly_zero({a, -o[4], -o[5]})) << at << " Split";
  }
  // TwoProduct (ORO Alg. 3.3 Dekker, 3.5 FMA): p = RN(a b); p + e = a b exactly when the error
  // is representable: |p| >= 2^-968 (the CUDA kernel's fast-path bound, superacc_cuda.cu) and p
  // finite; Dekker also needs 2^27 |a|, 2^27 |b| finite and its partial products normal.
  const bool fma_exact = std::isfinite(prod_rn) && std::fabs(prod_rn) >= 0x1p-968;
  const bool dekker_exact =
      fma_exact && std::fabs(prod_rn) >= 0x1p-900 && std::fabs(a) <= 0x1p995 && std::fabs(b) <= 0x1p995;
  EXPECT_PRED2(same_bits, o[8], prod_rn) << at << " TwoProductFMA p";
  if (fma_exact) {
    const double xs[2] = {a, o[8]}, ys[2] = {b, -1.0};
    EXPECT_PRED2(same_value, o[9], exact_dot(xs, ys, 2).rounded) << at << " TwoProductFMA e";
  }
  if (std::isfinite(a) && std::isfinite(b) && std::fabs(a) <= 0x1p995 && std::fabs(b) <= 0x1p995) {
    EXPECT_PRED2(same_bits, o[6], prod_rn) << at << " TwoProduct p";
  }
  if (dekker_exact) {
    const double xs[2] = {a, o[6]}, ys[2] = {b, -1.0};
    EXPECT_PRED2(same_value, o[7], exact_dot(xs, ys, 2).rounded) << at << " TwoProduct e";
  }
}

void check_backend(const std::vector<Pair>& pairs, const std::vector<double>& out, const std::string& who) {
  ASSERT_EQ(out.size(), 10 * pairs.size());
  int mismatches = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::vector<double> h = host_outputs(pairs[i]);
    for (int k = 0; k < 10; ++k)
      if (!same_bits(out[10 * i + k], h[k]) && ++mismatches <= 20)
        ADD_FAILURE() << who << " output " << k << " differs from the host for " << pairs[i].kind
                      << " a=" << hex_double(pairs[i].a) << " b=" << hex_double(pairs[i].b) << ": "
                      << hex_double(out[10 * i + k]) << " vs " << hex_double(h[k]);
    check_against_oracle(pairs[i], &out[10 * i], who);
  }
  EXPECT_EQ(mismatches, 0) << who;
}

TEST(SharedCorpus, EftsOnTheHostMatchTheOracle) {
  const auto pairs = corpus_pairs();
  std::vector<double> out;
  for (const auto& q : pairs)
    for (double v : host_outputs(q)) out.push_back(v);
  check_backend(pairs, out, "host");
}

#if defined(ACCSUM_HAVE_OPENCL)
const char* kProbeSource =
#include "opencl/eft_probe.cl.inc"
    ;

// Every line of the in-tree header `path` (but blank lines and includes) appears in `program`, in
// order: the program holds the header's text itself, its in-tree includes inlined
// (cmake/embed_opencl.cmake), not a stale copy. Returns the number of lines found.
int expect_holds_header(const std::string& program, const std::string& path) {
  std::ifstream in(std::string(ACCSUM_SOURCE_DIR) + "/" + path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  size_t at = 0;
  std::string line;
  int lines = 0;
  while (std::getline(text, line)) {
    if (line.empty() || line.rfind("#include \"", 0) == 0) continue;
    at = program.find(line, at);
    if (at == std::string::npos) {
      ADD_FAILURE() << "missing from the program, after the lines before it: " << line << " (" << path << ")";
      return lines;
    }
    ++lines;
  }
  return lines;
}

// The OpenCL prelude is core/numerics/numerics.h itself (embedded by CMake).
TEST(SharedCorpus, OpenCLPreludeIsTheSharedHeader) {
  EXPECT_GT(expect_holds_header(opencl::eft_prelude, "core/numerics/numerics.h"), 100);
}

// The superaccumulator's OpenCL program is built from the headers host and CUDA code compile.
TEST(SharedCorpus, OpenCLSuperaccIsTheSharedHeaders) {
  const std::string program =
#include "opencl/superacc.cl.inc"
      ;
  EXPECT_GT(expect_holds_header(program, "core/numerics/numerics.h"), 100);
  EXPECT_GT(expect_holds_header(program, "core/numerics/superacc_lanes.h"), 50);
}

TEST(SharedCorpus, EftsInOpenCLMatchTheOracleAndTheHost) {
  if (!opencl::available()) GTEST_SKIP() << "no OpenCL fp64 device";
  using namespace opencl;
  const auto pairs = corpus_pairs();
  const size_t n = pairs.size();
  std::vector<double> a(n), b(n), out(10 * n);
  for (size_t i = 0; i < n; ++i) a[i] = pairs[i].a, b[i] = pairs[i].b;
  cl_program prog = program(kProbeSource);
  cl_kernel k = make_kernel(prog, "eft_probe");
  Buffer ba(n * sizeof(double)), bb(n * sizeof(double)), bo(out.size() * sizeof(double));
  ba.write(a.data(), n * sizeof(double));
  bb.write(b.data(), n * sizeof(double));
  cl_mem ma = ba.get(), mb = bb.get(), mo = bo.get();
  ACCSUM_CL_CHECK(clSetKernelArg(k, 0, sizeof ma, &ma));
  ACCSUM_CL_CHECK(clSetKernelArg(k, 1, sizeof mb, &mb));
  ACCSUM_CL_CHECK(clSetKernelArg(k, 2, sizeof mo, &mo));
  size_t global = n;
  ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  ACCSUM_CL_CHECK(clFinish(context().queue));
  bo.read(out.data(), out.size() * sizeof(double));
  clReleaseKernel(k);
  check_backend(pairs, out, "opencl (" + context().device_name + ")");
}
#endif

#if defined(ACCSUM_HAVE_CUDA)
TEST(SharedCorpus, EftsInCudaMatchTheOracleAndTheHost) {
  const BackendInfo* be = registry().backend("cuda");
  if (!be || !be->available || !be->available()) GTEST_SKIP() << "no CUDA device here: runs on the GPU machine";
  const auto pairs = corpus_pairs();
  std::vector<double> a, b;
  for (const auto& q : pairs) a.push_back(q.a), b.push_back(q.b);
  check_backend(pairs, cuda::eft_probe(a, b), "cuda");
}
#endif

// ---- the superaccumulator: one corpus of vectors through every backend's superacc ----

struct Vec {
  std::vector<double> x, y;
  std::string kind;
};

std::vector<Vec> corpus_vectors() {
  std::vector<Vec> v = {
      {{1.0, 0x1p-53}, {}, "tie-even-down"},
      {{1.0 + 0x1p-52, 0x1p-53}, {}, "tie-even-up"},
      {{1.0, 0x1p-53, 0x1p-1074}, {}, "tie-broken-by-sticky"},
      {{1.0, 0x1p-53, -0x1p-1074}, {}, "tie-broken-down"},
      {{DBL_MAX, 0x1p970}, {}, "tie-to-inf"},
      {{DBL_MAX, 0x1p970, -0x1p-1074}, {}, "just-below-inf"},
      {{DBL_MAX, DBL_MAX, -DBL_MAX}, {}, "overflow-cancel"},
      {{DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, -0x1p-1074}, {}, "overflow-cancel-sticky"},
      {{DBL_MAX, DBL_MAX}, {}, "overflow"},
      {{0x1p1023, 0x1p-1074, -0x1p1023}, {}, "huge-range"},
      {{1e300, 1e-300, -1e300, 1e-300}, {}, "huge-range"},
      {{0x1p-1074, 0x1p-1074, 0x1p-1073}, {}, "subnormal"},
      {{DBL_MIN, -0x1p-1074}, {}, "subnormal-boundary"},
      {{0x1p-1022, -0x1p-1023, -0x1p-1023}, {}, "subnormal-to-zero"},
      {{-0.0, -0.0}, {}, "neg-zero"},
      {{-0.0, 0.0}, {}, "zero"},
      {{3.0, -3.0}, {}, "exact-cancel"},
      {{kNaN, 1.0}, {}, "nan"},
      {{kInf, -kInf}, {}, "inf-inf"},
      {{kInf, 1.0, -DBL_MAX}, {}, "inf"},
      {{-kInf, DBL_MAX, DBL_MAX}, {}, "neg-inf"},
      // dot products
      {{1.0 + 0x1p-30, -1.0}, {1.0 - 0x1p-30, 1.0}, "dot-cancel"},
      {{0x1p-600, 0x1p-600}, {0x1p-600, -0x1p-600}, "dot-underflow-cancel"},
      {{0x1p-1074, 1.0}, {0x1p-1074, 0x1p-1074}, "dot-tiny-product"},
      {{DBL_MAX, -DBL_MAX}, {2.0, 2.0}, "dot-overflow-cancel"},
      {{DBL_MAX, 1.0}, {2.0, -1.0}, "dot-overflow"},
      {{-0.0, 0.0}, {1.0, -1.0}, "dot-neg-zero"},
      {{kInf, 1.0}, {0.0, 1.0}, "dot-inf-times-zero"},
      {{kInf, 1.0}, {-2.0, 1.0}, "dot-inf"},
      {{kNaN, 1.0}, {1.0, 1.0}, "dot-nan"},
  };
  std::mt19937_64 rng(77);
  for (int i = 0; i < 40; ++i) {  // random bit patterns (every range, specials included)
    Vec s{test::random_terms(rng, 1 + rng() % 300), {}, "random-bits"};
    v.push_back(s);
    Vec d{test::random_terms(rng, 1 + rng() % 300), {}, "random-bits-dot"};
    d.y = test::random_terms(rng, d.x.size());
    v.push_back(d);
  }
  return v;
}

double oracle_of(const Vec& v) {
  const int64_t n = static_cast<int64_t>(v.x.size());
  return v.y.empty() ? exact_sum(v.x.data(), n).rounded : exact_dot(v.x.data(), v.y.data(), n).rounded;
}

TEST(SharedCorpus, HostSuperaccumulatorRoundsLikeTheOracle) {
  for (const auto& v : corpus_vectors()) {
    double got;
    if (v.y.empty()) {
      Superacc acc;
      acc.clear();
      for (double t : v.x) acc.add(t);
      got = acc.round();
    } else {
      SuperaccDot acc;
      acc.clear();
      for (size_t i = 0; i < v.x.size(); ++i) acc.add_product(v.x[i], v.y[i]);
      got = acc.round();
    }
    EXPECT_PRED2(same_bits, got, oracle_of(v)) << v.kind << " " << test::dump(v.x);
  }
}

TEST(SharedCorpus, EveryBackendsSuperaccRoundsLikeTheOracle) {
  int backends_run = 0;
  for (const char* be : {"cpu", "cpu-mt", "opencl", "cuda"}) {
    const BackendInfo* info = registry().backend(be);
    if (!info || !info->available || !info->available()) continue;
    require_backend(be);
    ++backends_run;
    for (const auto& v : corpus_vectors()) {
      const AlgoEntry* e = registry().find(v.y.empty() ? "superacc" : "superacc-dot", be);
      ASSERT_NE(e, nullptr) << be;
      Problem p = Problem::vectors(v.x.data(), v.y.empty() ? nullptr : v.y.data(), static_cast<int64_t>(v.x.size()),
                                   next_dataset_id());
      const double got = e->make(p, registry().resolve_params(*e, {}))->run_scalar();
      EXPECT_PRED2(same_bits, got, oracle_of(v)) << be << " " << v.kind << " " << test::dump(v.x);
    }
  }
  EXPECT_GE(backends_run, 2);
}

}  // namespace
}  // namespace accsum
