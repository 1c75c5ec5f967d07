// The OpenCL baseline (plain sum and dot, backends/opencl/plain_cl.cpp) and the OpenCL superacc at
// sizes around their vector widths, batches and work-group boundaries: every term must be read
// exactly once, tails included. Plain sums of small integers are exact in any order, so the
// exact result is the only right answer.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"
#include "tests/dataset_util.hpp"
#include "tests/backends/opencl/opencl_test_util.hpp"
#include "tests/exact_of.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using test::same_bits;

using test::as_dataset;

double run(const char* algo, const Dataset& d, const Params& user = {}) {
  const AlgoEntry* e = registry().find(algo, "opencl");
  return e->make(d.problem(), registry().resolve_params(*e, user))->run_scalar();
}

double exact(const Dataset& d) { return test::exact_of(d).rounded; }

// Around 1, 2, 4, 8 (vector widths), 32 (a CPU step of 4 x 8), 2048 (a GPU step of 256 x 2 x 4)
// and multiples of the groups, with odd tails.
std::vector<int64_t> boundary_sizes() {
  std::vector<int64_t> ns = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 255, 256, 257};
  for (int64_t b : {1024, 2048, 4096, 8192, 65536, 3 * 65536})
    for (int64_t d : {-1, 0, 1, 7}) ns.push_back(b + d);
  ns.push_back(1000003);
  return ns;
}

// Distinct small integers (so a lost or doubled term shows), sums exact in any order.
std::vector<double> integers(std::mt19937_64& rng, int64_t n) {
  std::vector<double> x(n);
  for (auto& v : x) v = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000);
  return x;
}

TEST(PlainOpenCL, EverySizeSumsEveryTermOnce) {
  REQUIRE_OPENCL();
  std::mt19937_64 rng(31);
  for (int64_t n : boundary_sizes()) {
    Dataset s = as_dataset("sum", integers(rng, n));
    EXPECT_PRED2(same_bits, run("naive", s), exact(s)) << "sum n=" << n;
    Dataset d = as_dataset("dot", integers(rng, n), integers(rng, n));
    EXPECT_PRED2(same_bits, run("dot", d), exact(d)) << "dot n=" << n;
  }
}

TEST(PlainOpenCL, EmptyZerosAndSpecials) {
  REQUIRE_OPENCL();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_PRED2(same_bits, run("naive", as_dataset("sum", {})), 0.0);
  EXPECT_PRED2(same_bits, run("dot", as_dataset("dot", {}, {})), 0.0);
  for (int64_t n : {1, 9, 33, 4097}) {
    EXPECT_PRED2(same_bits, run("naive", as_dataset("sum", std::vector<double>(n, -0.0))), -0.0) << n;
    std::vector<double> x(n, 1.0);
    x[n - 1] = inf;  // in the tail or the last vector
    EXPECT_PRED2(same_bits, run("naive", as_dataset("sum", x)), inf) << n;
    x[0] = nan;
    EXPECT_TRUE(std::isnan(run("naive", as_dataset("sum", x)))) << n;
    EXPECT_TRUE(std::isnan(run("dot", as_dataset("dot", x, std::vector<double>(n, 2.0))))) << n;
  }
}

// The superacc's vector batches (U 16-byte vectors per work-item, the next batch in flight) and
// per-group slices: sizes around them, with work-group sizes and counts that move the boundaries.
TEST(SuperaccOpenCLBatches, SizesAroundBatchesMatchOracle) {
  REQUIRE_OPENCL();
  std::mt19937_64 rng(32);
  const std::vector<Params> shapes = {{},
                                      {{"local", "1"}},
                                      {{"local", "7"}, {"groups", "3"}},
                                      {{"local", "32"}, {"groups", "5"}, {"fpe", "0"}},
                                      {{"vecs", "1"}, {"groups", "2"}},
                                      {{"vecs", "8"}, {"local", "7"}},
                                      {{"vecs", "3"}, {"fpe", "4"}, {"local", "32"}},
                                      {{"lanes", "0"}}};
  for (int64_t n : {0, 1, 2, 3, 7, 8, 9, 17, 63, 64, 65, 255, 257, 511, 513, 2047, 2049, 4097, 20001}) {
    std::vector<double> x = test::random_terms(rng, n), y = test::random_terms(rng, n);
    Dataset s = as_dataset("sum", x), d = as_dataset("dot", x, y);
    const double ws = exact(s), wd = exact(d);
    for (const auto& p : shapes) {
      EXPECT_PRED2(same_bits, run("superacc", s, p), ws) << "sum n=" << n;
      EXPECT_PRED2(same_bits, run("superacc-dot", d, p), wd) << "dot n=" << n;
    }
  }
}

}  // namespace
}  // namespace accsum
