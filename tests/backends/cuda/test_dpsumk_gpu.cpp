// dpsumk / dpdotk on CUDA (DpSumKCuda*, skipped with a notice where there is no CUDA device) and
// OpenCL (DpSumKOpenCL*, PoCL in CI): bitwise the cpu serial definition on every distribution,
// odd and multi-launch sizes, every code path (K in registers, K at run time, lanes per thread),
// and within the proven bound against the exact oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/dataset_util.hpp"
#include "tests/same_bits.hpp"
#include "families/sum_dot/dpsum.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "tests/backend_present.hpp"
#include "datasets/dataset.hpp"

namespace accsum {
namespace {

using accsum::test::same_bits;

using test::backend_present;

using test::from;
using test::make;

Params params(bool dot, int K, const std::string& variant, const std::string& twoprod) {
  Params p{{"K", std::to_string(K)}, {"variant", variant}};
  if (dot) p["twoprod"] = twoprod;
  return p;
}

double run(const std::string& backend, const Dataset& d, const Params& user) {
  const AlgoEntry* e = registry().find(test::has_y(d.family) ? "dpdotk" : "dpsumk", backend);
  if (!e) throw std::runtime_error("dpsumk/dpdotk not registered on " + backend);
  auto k = e->make(d.problem(), registry().resolve_params(*e, user));
  double r = k->run_scalar();
  if (backend != "cpu") {
    EXPECT_GE(k->last_device_seconds(), 0.0) << backend;  // device time is measured
  }
  return r;
}

// Every variant/K/TwoProduct on `d`: the backend's bits are the cpu serial bits.
int expect_serial_bits(const std::string& backend, const Dataset& d, const std::vector<int>& Ks, const char* what) {
  const bool dot = test::has_y(d.family);
  int compared = 0;
  for (int K : Ks)
    for (const char* v : {"tree", "fused"})
      for (const char* tp : {"fma", "dekker"}) {
        if (!dot && std::string(tp) == "dekker") continue;
        Params p = params(dot, K, v, tp);
        double want = run("cpu", d, p), got = run(backend, d, p);
        EXPECT_PRED2(same_bits, got, want)
            << backend << " " << what << " n=" << d.n << " K=" << K << " " << v << " " << (dot ? tp : "");
        ++compared;
      }
  return compared;
}

void same_bits_on_every_distribution(const std::string& backend, const std::vector<int64_t>& sizes) {
  int compared = 0;
  test::for_each_dist(
      sizes, 1e30, 17,
      [&](const std::string& dist, bool, int64_t, const Dataset& d) {
        compared += expect_serial_bits(backend, d, {2, 3}, dist.c_str());
      },
      1e200);
  EXPECT_GT(compared, 100);
}

void hand_cases_once(const std::string& backend);
void hand_cases(const std::string& backend) {
  for (const char* eft : {"ordered", "twosum"}) {
    setenv("ACCSUM_DPSUMK_EFT", eft, 1);  // read by the CUDA backend only
    hand_cases_once(backend);
  }
  unsetenv("ACCSUM_DPSUMK_EFT");
}

void hand_cases_once(const std::string& backend) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> xs = {{},
                                         {-0.0},
                                         {-0.0, -0.0, -0.0},
                                         {1.5, -1.5},
                                         {0.0, -0.0, 3.0, -3.0, -0.0},
                                         {1, nan, 2},
                                         {inf, 1, 2},
                                         {inf, -inf, 1},
                                         {-inf, 1e300, 1e300},
                                         {0x1p-1074},
                                         {1e308, -1e308, 1}};
  for (auto& x : xs) {
    expect_serial_bits(backend, from(x), {2, 3, 9}, "hand");
    expect_serial_bits(backend, from(x, std::vector<double>(x.size(), -1.0)), {2, 3, 9}, "hand dot");
  }
}

void within_bound_illcond(const std::string& backend, int64_t n) {
  for (bool dot : {false, true})
    for (double cond : {1e5, 1e20, 1e40, 1e100, 1e300}) {
      Dataset d = make("illcond", dot, n, cond, 23);
      ExactValue ex = dot ? exact_dot(d.x.data(), d.y.data(), d.n) : exact_sum(d.x.data(), d.n);
      const AlgoEntry* e = registry().find(dot ? "dpdotk" : "dpsumk", backend);
      for (int K : {2, 3, 4})
        for (const char* v : {"tree", "fused"}) {
          Params p = registry().resolve_params(*e, params(dot, K, v, "fma"));
          double bound = e->bound(p, ExactFacts{d.n, ex.abs_sum, ex.sum_abs});
          Metrics m = measure(run(backend, d, p), ex, bound);
          EXPECT_TRUE(m.within_bound) << backend << " cond " << cond << " K=" << K << " " << v << " err " << m.abs_err
                                      << " bound " << bound;
          if (cond <= 1e20 && K >= 3) {
            EXPECT_GE(m.digits, 15.0) << backend << " cond " << cond << " K=" << K << " " << v;
          }
        }
    }
}

// ---- CUDA (the same test binary on the GPU machine) ----

TEST(DpSumKCuda, SameBitsAsSerialOnEveryDistribution) {
  REQUIRE_BACKEND("cuda");
  same_bits_on_every_distribution("cuda", {1, 2, 3, 7, 64, 1000, 4097, 100003});
}

TEST(DpSumKCuda, SpecialValuesZerosAndTinyInputs) {
  REQUIRE_BACKEND("cuda");
  hand_cases("cuda");
}

// Sizes that take several launches per tree pass (kSegment = 1024 terms per block) and every
// fused code path: K in registers (2..8), K at run time (9, 64), 1 and 2 lanes per thread, and
// TwoSum or two_sum_ordered in the lanes.
TEST(DpSumKCuda, MultiLaunchSizesAndEveryCodePath) {
  REQUIRE_BACKEND("cuda");
  for (int64_t n : {int64_t(1) << 20, (int64_t(1) << 20) + 7, (int64_t(1) << 22) + 3, int64_t(5000001)})
    for (bool dot : {false, true}) {
      Dataset d = make("loguniform", dot, n, 1e16, 5, 1e200);
      for (int K : {2, 3, 5, 8, 9, 64})
        for (const char* v : {"tree", "fused"})
          for (const char* tp : {"fma", "dekker"}) {
            if ((!dot && std::string(tp) == "dekker") || (K > 8 && std::string(v) == "tree")) continue;
            Params p = params(dot, K, v, tp);
            const double want = run("cpu", d, p);
            for (const char* eft : {"ordered", "twosum"})
              for (const char* lpt : {"1", "2"}) {
                setenv("ACCSUM_DPSUMK_LPT", lpt, 1);
                setenv("ACCSUM_DPSUMK_EFT", eft, 1);
                EXPECT_PRED2(same_bits, run("cuda", d, p), want)
                    << "n=" << n << " dot=" << dot << " K=" << K << " " << v << " " << tp << " lanes/thread " << lpt
                    << " " << eft;
              }
            unsetenv("ACCSUM_DPSUMK_LPT");
            unsetenv("ACCSUM_DPSUMK_EFT");
          }
    }
}

TEST(DpSumKCuda, WithinBoundIllConditioned) {
  REQUIRE_BACKEND("cuda");
  within_bound_illcond("cuda", 300001);
}

TEST(DpSumKCuda, RepeatedRunsAreIdentical) {
  REQUIRE_BACKEND("cuda");
  Dataset d = make("illcond", false, 1 << 20, 1e25, 3);
  for (const char* v : {"tree", "fused"}) {
    Params p = params(false, 3, v, "");
    double first = run("cuda", d, p);
    for (int r = 0; r < 5; ++r) EXPECT_PRED2(same_bits, run("cuda", d, p), first) << v;
  }
}

// ---- OpenCL (PoCL on CI) ----

TEST(DpSumKOpenCL, SameBitsAsSerialOnEveryDistribution) {
  REQUIRE_BACKEND("opencl");
  same_bits_on_every_distribution("opencl", {1, 2, 3, 7, 1000, 4097});
}

TEST(DpSumKOpenCL, SpecialValuesZerosAndTinyInputs) {
  REQUIRE_BACKEND("opencl");
  hand_cases("opencl");
}

TEST(DpSumKOpenCL, MultiLaunchSizes) {
  REQUIRE_BACKEND("opencl");
  for (int64_t n : {int64_t(1) << 18, (int64_t(1) << 18) + 5})
    for (bool dot : {false, true}) expect_serial_bits("opencl", make("uniform-sym", dot, n, 1e16, 9), {2, 4}, "multi");
}

TEST(DpSumKOpenCL, WithinBoundIllConditioned) {
  REQUIRE_BACKEND("opencl");
  within_bound_illcond("opencl", 20001);
}

}  // namespace
}  // namespace accsum
