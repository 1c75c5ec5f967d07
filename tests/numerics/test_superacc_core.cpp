// The superaccumulator and FP expansion core (core/numerics/superacc.hpp, core/numerics/fpe.hpp) against the
// exact MPFR oracle: hand-made edge cases, then random data built to hit every rounding situation.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "families/sum_dot/superacc_host.hpp"
#include "core/numerics/fpe.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "core/numerics/superacc.hpp"
#include "datasets/dataset.hpp"
#include "tests/superacc_test_util.hpp"
#include "tests/special_values.hpp"

namespace accsum {
namespace {

using test::same_bits;

double superacc_sum(const std::vector<double>& x) {
  Superacc acc;
  acc.clear();
  for (double v : x) acc.add(v);
  return acc.round();
}

double superacc_dot(const std::vector<double>& x, const std::vector<double>& y) {
  SuperaccDot acc;
  acc.clear();
  for (size_t i = 0; i < x.size(); ++i) acc.add_product(x[i], y[i]);
  return acc.round();
}

template <int N>
double fpe_sum(const std::vector<double>& x, bool early_exit) {
  Superacc acc;
  acc.clear();
  Fpe<N> fpe;
  fpe.clear();
  bool fed = false;
  for (double v : x) {
    if (!fpe_accepts(v)) {
      acc.add(v);
      continue;
    }
    fed = true;
    double r = early_exit ? fpe.accumulate_early_exit(v) : fpe.accumulate(v);
    if (r != 0.0) acc.add(r);
  }
  fpe.flush_to(acc, fed);
  return acc.round();
}

void expect_sum(const std::vector<double>& x, const char* what) {
  double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
  EXPECT_PRED2(same_bits, superacc_sum(x), want) << what;
  EXPECT_PRED2(same_bits, fpe_sum<2>(x, false), want) << what << " (fpe 2)";
  EXPECT_PRED2(same_bits, fpe_sum<3>(x, true), want) << what << " (fpe 3, early exit)";
}

using accsum::test::kInf;
using accsum::test::kMinSub;
using accsum::test::kNaN;

TEST(SuperaccCore, EmptyAndSingle) {
  expect_sum({}, "no terms");
  EXPECT_PRED2(same_bits, superacc_sum({}), 0.0);
  for (double v : {0.0, -0.0, 1.0, -1.5, kMinSub, -kMinSub, DBL_MAX, -DBL_MAX, DBL_MIN, 0x1.fffffffffffffp-1023, kInf,
                   -kInf, kNaN, 0x1p-1000, 3e300})
    expect_sum({v}, "single term");
}

TEST(SuperaccCore, SignedZeros) {
  EXPECT_PRED2(same_bits, superacc_sum({-0.0}), -0.0);
  EXPECT_PRED2(same_bits, superacc_sum({-0.0, -0.0}), -0.0);
  EXPECT_PRED2(same_bits, superacc_sum({-0.0, 0.0}), 0.0);
  EXPECT_PRED2(same_bits, superacc_sum({-0.0, 1.0, -1.0}), 0.0);
  EXPECT_PRED2(same_bits, fpe_sum<2>({-0.0, 1.0, -1.0}, false), 0.0);
  EXPECT_PRED2(same_bits, fpe_sum<4>({-0.0, -0.0}, true), -0.0);
  expect_sum({-0.0, -0.0, -0.0}, "-0s");
  expect_sum({0.0, -0.0}, "+0 -0");
  expect_sum({-1.0, 1.0}, "cancel");
  expect_sum({-kMinSub, kMinSub, -0.0}, "subnormal cancel");
}

TEST(SuperaccCore, SpecialValues) {
  EXPECT_TRUE(std::isnan(superacc_sum({1.0, kNaN})));
  EXPECT_TRUE(std::isnan(superacc_sum({kInf, -kInf})));
  EXPECT_PRED2(same_bits, superacc_sum({kInf, -DBL_MAX, -DBL_MAX}), kInf);
  EXPECT_PRED2(same_bits, superacc_sum({-kInf, 1.0}), -kInf);
  expect_sum({kInf, kInf, 3.0}, "inf inf");
  expect_sum({-kInf, kNaN}, "nan wins");
  expect_sum({-kInf, DBL_MAX, DBL_MAX}, "-inf beats overflow");
}

TEST(SuperaccCore, OverflowThreshold) {
  const double ulp_max = 0x1p971;  // ulp(DBL_MAX)
  expect_sum({DBL_MAX, DBL_MAX, -DBL_MAX}, "DBL_MAX + DBL_MAX - DBL_MAX");
  expect_sum({DBL_MAX, DBL_MAX}, "2 DBL_MAX");
  expect_sum({-DBL_MAX, -DBL_MAX}, "-2 DBL_MAX");
  // DBL_MAX + ulp/2 is a tie between DBL_MAX (odd) and 2^1024: rounds to +inf.
  EXPECT_PRED2(same_bits, superacc_sum({DBL_MAX, ulp_max / 2}), kInf);
  expect_sum({DBL_MAX, ulp_max / 2}, "tie at the overflow threshold");
  // Just below the tie: DBL_MAX.
  EXPECT_PRED2(same_bits, superacc_sum({DBL_MAX, ulp_max / 4, ulp_max / 8}), DBL_MAX);
  EXPECT_PRED2(same_bits, superacc_sum({DBL_MAX, ulp_max / 2, -kMinSub}), DBL_MAX);
  expect_sum({DBL_MAX, ulp_max / 2, -kMinSub}, "just below the tie");
  expect_sum({DBL_MAX, ulp_max / 2, kMinSub}, "just above the tie");
  expect_sum({-DBL_MAX, -ulp_max / 2}, "negative tie at the threshold");
  // 2^64 * DBL_MAX-ish by repetition of the largest terms, then cancellation back.
  std::vector<double> many(1000, DBL_MAX);
  many.resize(1999, -DBL_MAX);
  expect_sum(many, "1000 DBL_MAX - 999 DBL_MAX");
  many.push_back(-DBL_MAX);
  many.push_back(kMinSub);
  expect_sum(many, "cancel to the smallest subnormal");
}

TEST(SuperaccCore, SubnormalsAndTies) {
  expect_sum({DBL_MIN, -kMinSub}, "largest subnormal");
  expect_sum(std::vector<double>(100000, kMinSub), "smallest subnormal times 1e5");
  expect_sum({1.0, 0x1p-53}, "tie to even (down)");
  expect_sum({1.0 + 0x1p-52, 0x1p-53}, "tie to even (up)");
  expect_sum({1.0, 0x1p-53, kMinSub}, "tie plus sticky");
  expect_sum({1.0, 0x1p-53, -kMinSub}, "tie minus sticky");
  expect_sum({-1.0, -0x1p-53, kMinSub}, "negative tie minus sticky");
  expect_sum({0x1p-1022, 0x1p-1074, -0x1p-1073}, "subnormal exact");
  expect_sum({1e300, -1e300, 0x1p-1074}, "huge cancellation");
  expect_sum({0x1p1023, 0x1p1023, -0x1p1023, -0x1p1023, 0x1p-1074}, "range extremes");
  expect_sum({0x1p1023, 0x1p-1074, -0x1p1023}, "range extremes (order)");
}

TEST(SuperaccCore, SplitReassemblesExactly) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 200000; ++t) {
    double x = test::random_bits_double(rng);
    if (!std::isfinite(x)) continue;
    int idx;
    int64_t d0, d1, d2;
    superacc_split(x, idx, d0, d1, d2);
    ASSERT_LE(std::llabs(d0), 0xFFFFFFFFll);
    ASSERT_LE(std::llabs(d1), 0xFFFFFFFFll);
    ASSERT_LT(std::llabs(d2), 1ll << 21);
    ASSERT_GE(idx, 0);
    ASSERT_LE(idx + 2, Superacc::kDigits - 3);  // the top digits only ever receive carries
    double back = std::ldexp(static_cast<double>(d0), 32 * idx - 1074) +
                  std::ldexp(static_cast<double>(d1), 32 * idx - 1042) +
                  std::ldexp(static_cast<double>(d2), 32 * idx - 1010);
    ASSERT_PRED2(same_bits, back == 0 ? x : back, x) << std::hexfloat << x;
  }
}

// Random sums built to hit ties, sticky bits and cancellation: terms on a coarse random grid
// around a random exponent, including the subnormal and overflow ends.
TEST(SuperaccCore, RandomAgainstOracle) {
  std::mt19937_64 rng(12345);
  int cases = 0;
  for (int t = 0; t < 150000; ++t) {
    std::vector<double> x = test::random_terms(rng, 1 + rng() % 12);
    double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
    ASSERT_PRED2(same_bits, superacc_sum(x), want) << test::dump(x);
    ASSERT_PRED2(same_bits, fpe_sum<2>(x, false), want) << test::dump(x);
    ASSERT_PRED2(same_bits, fpe_sum<4>(x, true), want) << test::dump(x);
    ++cases;
  }
  EXPECT_EQ(cases, 150000);
}

TEST(SuperaccCore, NormalizeAndMergeKeepTheValue) {
  std::mt19937_64 rng(99);
  for (int t = 0; t < 3000; ++t) {
    std::vector<double> x = test::random_terms(rng, 1 + rng() % 40);
    double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
    Superacc parts[3];
    for (auto& p : parts) p.clear();
    for (size_t i = 0; i < x.size(); ++i) {
      parts[rng() % 3].add(x[i]);
      if (rng() % 7 == 0) parts[rng() % 3].normalize();
    }
    parts[1].merge(parts[2]);
    parts[0].merge(parts[1]);
    ASSERT_PRED2(same_bits, parts[0].round(), want) << test::dump(x);
  }
}

TEST(SuperaccCore, CarrySaveHeadroomIsHonoured) {
  // Drive one digit close to its int64 limit through `pending` and check nothing is lost:
  // 2^20 maximal pieces per digit with pending pre-set near the limit forces normalizations.
  Superacc acc;
  acc.clear();
  acc.pending = kSuperaccMaxPending - 5;
  const double big = 0x1.fffffffffffffp+40;  // 53 bits spread over two digits
  for (int i = 0; i < 1 << 16; ++i) acc.add(big);
  EXPECT_LE(acc.pending, kSuperaccMaxPending);
  EXPECT_PRED2(same_bits, acc.round(), big * 65536.0);
  Superacc b = acc;
  b.pending = kSuperaccMaxPending;
  acc.merge(b);
  EXPECT_PRED2(same_bits, acc.round(), big * 131072.0);
}

// ---- dot: products of subnormals, of huge values, specials ----
void expect_dot(const std::vector<double>& x, const std::vector<double>& y, const char* what) {
  double want = exact_dot(x.data(), y.data(), static_cast<int64_t>(x.size())).rounded;
  EXPECT_PRED2(same_bits, superacc_dot(x, y), want) << what;
}

TEST(SuperaccCore, DotExtremeProducts) {
  expect_dot({}, {}, "empty");
  expect_dot({kMinSub}, {kMinSub}, "2^-2148 alone rounds to +0");
  expect_dot({-kMinSub}, {kMinSub}, "-2^-2148 rounds to -0? no: to -0 by RN of a tiny negative");
  expect_dot({0x1p-600}, {0x1p-500}, "underflow to subnormal");
  expect_dot({0x1p-600, 1.0}, {0x1p-475, 0x1p-1074}, "subnormal result");
  expect_dot({DBL_MAX, -DBL_MAX}, {DBL_MAX, DBL_MAX}, "huge products cancel");
  expect_dot({DBL_MAX, -DBL_MAX, 1.0}, {DBL_MAX, DBL_MAX, 3.0}, "huge products cancel, 3 remains");
  expect_dot({DBL_MAX}, {2.0}, "overflow");
  expect_dot({0x1p512, 0x1p-600}, {0x1p511, 0x1p-600}, "2^1023 plus tiny");
  expect_dot({0x1p512}, {0x1p512}, "exactly 2^1024: inf");
  expect_dot({0.0, -0.0}, {-1.0, 1.0}, "-0 products");
  expect_dot({-0.0, 0.0}, {-1.0, -1.0}, "+0 and -0 products");
  expect_dot({kInf, 0.0}, {0.0, 1.0}, "inf*0 is NaN");
  expect_dot({kInf, 1.0}, {-2.0, kNaN}, "NaN");
  expect_dot({kInf, -kInf}, {1.0, 1.0}, "inf - inf");
  expect_dot({-kInf, 5.0}, {2.0, 1.0}, "-inf");
  expect_dot({1.0 + 0x1p-52, 1.0}, {1.0 - 0x1p-52, 0x1p-110}, "product error plus tiny");
}

TEST(SuperaccCore, DotRandomAgainstOracle) {
  std::mt19937_64 rng(4242);
  for (int t = 0; t < 20000; ++t) {
    size_t n = 1 + rng() % 8;
    std::vector<double> x = test::random_terms(rng, n), y = test::random_terms(rng, n);
    double want = exact_dot(x.data(), y.data(), static_cast<int64_t>(n)).rounded;
    ASSERT_PRED2(same_bits, superacc_dot(x, y), want) << test::dump(x) << " . " << test::dump(y);
  }
}

}  // namespace
}  // namespace accsum
