// superacc / superacc-dot on OpenCL (PoCL in CI) against the exact oracle and the cpu backend.
#include <gtest/gtest.h>

#include <cfloat>
#include <cstdlib>
#include <limits>
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

double run_cl(const Dataset& d, const Params& user) {
  const AlgoEntry* e = registry().find(test::superacc_algo(d.family), "opencl");
  return e->make(d.problem(), registry().resolve_params(*e, user))->run_scalar();
}

double oracle(const Dataset& d) { return test::exact_of(d).rounded; }

const std::vector<Params> kConfigs = {{{"fpe", "0"}},
                                      {{"fpe", "2"}, {"early_exit", "0"}},
                                      {{"fpe", "3"}, {"early_exit", "1"}},
                                      {{"fpe", "4"}, {"early_exit", "1"}},
                                      {{"fpe", "8"}, {"early_exit", "0"}}};

void check_cases(const std::string& family, int count, uint64_t seed, int64_t min_n, int64_t max_n,
                 const std::vector<Params>& configs) {
  int64_t compared = 0;
  for (auto& g : test::generated_cases(family, count, seed, min_n, max_n)) {
    Dataset d = as_dataset(family, g.x, g.y);
    double want = oracle(d);
    for (const auto& p : configs) {
      double got = run_cl(d, p);
      ASSERT_PRED2(same_bits, got, want) << g.describe() << " fpe=" << p.at("fpe");
      ++compared;
    }
  }
  EXPECT_EQ(compared, int64_t(count) * int64_t(configs.size()));
}

TEST(SuperaccOpenCL, GeneratedSumsMatchOracle) {
  REQUIRE_OPENCL();
  check_cases("sum", 1500, 21, 1, 300, kConfigs);
}

TEST(SuperaccOpenCL, GeneratedDotsMatchOracle) {
  REQUIRE_OPENCL();
  check_cases("dot", 1000, 22, 1, 300, kConfigs);
}

TEST(SuperaccOpenCL, LargerInputsMatchOracleAndCpu) {
  REQUIRE_OPENCL();
  for (const std::string family : {"sum", "dot"})
    for (auto& g : test::generated_cases(family, 16, 23, 20000, 200000)) {
      Dataset d = as_dataset(family, g.x, g.y);
      double want = oracle(d);
      const AlgoEntry* cpu = registry().find(test::superacc_algo(family), "cpu");
      EXPECT_PRED2(same_bits, cpu->make(d.problem(), registry().resolve_params(*cpu, {}))->run_scalar(), want);
      for (const auto& p : kConfigs)
        EXPECT_PRED2(same_bits, run_cl(d, p), want) << g.describe() << " fpe=" << p.at("fpe");
    }
}

TEST(SuperaccOpenCL, EdgeCases) {
  REQUIRE_OPENCL();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double ulp_max = 0x1p971, tiny = 0x1p-1074;
  std::vector<std::vector<double>> sums = {{},
                                           {-0.0},
                                           {0.0},
                                           {1.0},
                                           {-0.0, -0.0},
                                           {-0.0, 1.0, -1.0},
                                           {DBL_MAX, DBL_MAX, -DBL_MAX},
                                           {DBL_MAX, ulp_max / 2},
                                           {DBL_MAX, ulp_max / 2, -tiny},
                                           {-DBL_MAX, -ulp_max / 2},
                                           {inf, 1.0},
                                           {inf, -inf},
                                           {nan, 1.0},
                                           {1.0, 0x1p-53},
                                           {1.0, 0x1p-53, tiny},
                                           {0x1p1023, tiny, -0x1p1023}};
  sums.push_back(std::vector<double>(3000, tiny));
  for (const auto& x : sums)
    for (const auto& p : kConfigs) {
      Dataset d = as_dataset("sum", x);
      EXPECT_PRED2(same_bits, run_cl(d, p), oracle(d)) << test::dump(x) << " fpe=" << p.at("fpe");
    }
  std::vector<std::pair<std::vector<double>, std::vector<double>>> dots = {
      {{}, {}},
      {{tiny}, {tiny}},
      {{-tiny}, {tiny}},
      {{DBL_MAX, -DBL_MAX, 1}, {DBL_MAX, DBL_MAX, 3}},
      {{DBL_MAX}, {2.0}},
      {{0.0, -0.0}, {-1.0, 1.0}},
      {{inf, 0.0}, {0.0, 1.0}},
      {{inf, 1.0}, {-2.0, 1.0}},
      {{0x1p-600, 1.0}, {0x1p-475, tiny}},
      {{0x1p512}, {0x1p512}},
      // a*a = (1 + 2^-51 + 2^-104) 2^-1000: its error 2^-1104 underflows in an FMA and is the
      // sticky bit that breaks the tie 2^-1075 (half the smallest subnormal) upwards.
      {{0x1.0000000000001p-500, -0x1.0000000000002p-1000, tiny, 0, 0, 0, 0, 0, 0},
       {0x1.0000000000001p-500, 1.0, 0.5, 0, 0, 0, 0, 0, 0}}};
  for (const auto& [x, y] : dots)
    for (const auto& p : kConfigs) {
      Dataset d = as_dataset("dot", x, y);
      EXPECT_PRED2(same_bits, run_cl(d, p), oracle(d)) << test::dump(x) << " . " << test::dump(y);
    }
}

TEST(SuperaccOpenCL, WorkGroupSizesGiveIdenticalBits) {
  REQUIRE_OPENCL();
  for (const std::string family : {"sum", "dot"}) {
    const AlgoEntry* e = registry().find(test::superacc_algo(family), "opencl");
    ASSERT_NE(e->shape_variants, nullptr);
    Dataset d = test::loguniform(family, 100003, 1e300);
    double want = oracle(d);
    for (const auto& p : e->shape_variants(registry().resolve_params(*e, {})))
      EXPECT_PRED2(same_bits, e->make(d.problem(), p)->run_scalar(), want) << family << " local=" << p.at("local");
    for (const char* local : {"1", "7", "128"})
      EXPECT_PRED2(same_bits, run_cl(d, {{"local", local}}), want) << family << " local=" << local;
  }
}

// The variants a GPU run sweeps: per-term local atomics instead of private lanes (lanes=0), load
// depths (vecs), group counts, and the NVIDIA-only register cap (ignored elsewhere).
TEST(SuperaccOpenCL, SweptVariantsMatchOracle) {
  REQUIRE_OPENCL();
  const std::vector<Params> variants = {{{"fpe", "0"}, {"lanes", "0"}},
                                        {{"fpe", "4"}, {"early_exit", "1"}, {"lanes", "0"}},
                                        {{"fpe", "0"}, {"vecs", "1"}},
                                        {{"fpe", "2"}, {"vecs", "8"}, {"groups", "3"}},
                                        {{"fpe", "8"}, {"early_exit", "1"}, {"vecs", "2"}, {"local", "64"}},
                                        {{"fpe", "0"}, {"regs", "64"}},
                                        {{"fpe", "0"}, {"merge", "0"}},
                                        {{"fpe", "4"}, {"early_exit", "1"}, {"merge", "0"}, {"groups", "5"}}};
  check_cases("sum", 200, 25, 1, 3000, variants);
  check_cases("dot", 200, 26, 1, 3000, variants);
}

// merge=1 accumulates into one device partial that the final kernel clears: every run of the same
// kernel starts from zero (a special value or a -0 in one run must not leak into the next).
TEST(SuperaccOpenCL, RepeatedRunsOfOneKernelAgree) {
  REQUIRE_OPENCL();
  const double inf = std::numeric_limits<double>::infinity();
  for (const std::string family : {"sum", "dot"})
    for (const std::vector<double>& x : {std::vector<double>{1.0, 0x1p-60, inf}, std::vector<double>{-0.0, -0.0},
                                         std::vector<double>(5000, 0x1p-1074), std::vector<double>{3.0, -1e300}}) {
      Dataset d =
          as_dataset(family, x, test::has_y(family) ? std::vector<double>(x.size(), 1.0) : std::vector<double>{});
      const double want = oracle(d);
      const AlgoEntry* e = registry().find(test::superacc_algo(family), "opencl");
      for (const char* merge : {"0", "1"}) {
        auto k = e->make(d.problem(), registry().resolve_params(*e, {{"merge", merge}, {"groups", "3"}}));
        for (int rep = 0; rep < 3; ++rep)
          EXPECT_PRED2(same_bits, k->run_scalar(), want) << family << " " << test::dump(x) << " merge=" << merge;
      }
    }
}

// The fallback for devices without 64-bit local atomics: private accumulators per work-item.
TEST(SuperaccOpenCL, PrivateAccumulatorFallback) {
  REQUIRE_OPENCL();
  setenv("ACCSUM_OPENCL_NO_ATOM64", "1", 1);
  for (const std::string family : {"sum", "dot"})
    for (auto& g : test::generated_cases(family, 24, 24, 1, 5000)) {
      Dataset d = as_dataset(family, g.x, g.y);
      double want = oracle(d);
      for (const auto& p : {kConfigs[0], kConfigs[3]})
        EXPECT_PRED2(same_bits, run_cl(d, p), want) << g.describe() << " (no atom64)";
    }
  unsetenv("ACCSUM_OPENCL_NO_ATOM64");
}

}  // namespace
}  // namespace accsum

namespace accsum {
namespace {

// The mpi backend with inner=opencl: each rank's slice summed on its OpenCL device and
// handed back unrounded (SuperaccClPartial), merged by MPI, rounded once. In this process MPI runs
// one rank; `mpirun -np 2/4 accsum bench --backend=mpi --inner=opencl` gives the same bits.
TEST(SuperaccOpenCL, MpiInnerOpenclMatchesOracle) {
  REQUIRE_OPENCL();
  if (!registry().backend("mpi")) GTEST_SKIP() << "built without MPI";
  const double inf = std::numeric_limits<double>::infinity();
  int64_t compared = 0;
  for (const std::string family : {"sum", "dot"}) {
    const AlgoEntry* e = registry().find(test::superacc_algo(family), "mpi");
    ASSERT_NE(e, nullptr);
    auto check = [&](const Dataset& d, const std::string& what) {
      for (const Params& p : std::vector<Params>{{{"inner", "opencl"}}, {{"inner", "opencl"}, {"fpe", "4"}}}) {
        double got = e->make(d.problem(), registry().resolve_params(*e, p))->run_scalar();
        EXPECT_PRED2(same_bits, got, oracle(d)) << what << " fpe=" << (p.count("fpe") ? p.at("fpe") : "0");
        ++compared;
      }
    };
    for (auto& g : test::generated_cases(family, 40, 31, 1, 70000)) check(as_dataset(family, g.x, g.y), g.describe());
    std::vector<double> specials = {-0.0, -0.0, 1e300, -1e300, 0x1p-1074};
    check(as_dataset(family, specials,
                     test::has_y(family) ? std::vector<double>(specials.size(), 1.0) : std::vector<double>{}),
          "zeros and cancellation");
    std::vector<double> neg_zeros = {-0.0, -0.0};
    check(as_dataset(family, neg_zeros, test::has_y(family) ? std::vector<double>{1.0, 1.0} : std::vector<double>{}),
          "-0 only");
    std::vector<double> infs = {inf, 1.0, -inf};
    check(as_dataset(family, infs, test::has_y(family) ? std::vector<double>{1.0, 1.0, 1.0} : std::vector<double>{}),
          "inf - inf");
  }
  EXPECT_EQ(compared, 2 * (40 + 3) * 2);
}

}  // namespace
}  // namespace accsum
