// The oracle itself: IEEE rounding at the edges of the format, special values, signed zeros,
// condition numbers, and the metrics.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "core/oracle/oracle.hpp"

using accsum::exact_dot;
using accsum::exact_sum;
using accsum::measure;

namespace {
double sum_of(std::vector<double> v) { return exact_sum(v.data(), (int64_t)v.size()).rounded; }
bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}
}  // namespace

TEST(Oracle, RoundsTiesToEvenInNormalAndSubnormalRange) {
  EXPECT_TRUE(same(sum_of({1.0, 0x1p-53}), 1.0));                       // tie -> even (down)
  EXPECT_TRUE(same(sum_of({1.0 + 0x1p-52, 0x1p-53}), 1.0 + 0x1p-51));   // tie -> even (up)
  EXPECT_TRUE(same(sum_of({1.0, 0x1p-53, 0x1p-1074}), 1.0 + 0x1p-52));  // sticky bit breaks the tie
  // Subnormal results are exact (gradual underflow): 2^-1074 + 2^-1074.
  EXPECT_TRUE(same(sum_of({0x1p-1074, 0x1p-1074}), 0x1p-1073));
  // A tie below the smallest subnormal cannot come from a sum of doubles; products can make one:
  double tiny = 0x1p-600, half = 0x1p-475;  // product 2^-1075: halfway between 0 and 2^-1074
  std::vector<double> x{tiny}, y{half};
  EXPECT_TRUE(same(exact_dot(x.data(), y.data(), 1).rounded, 0.0));
  std::vector<double> y3{half * 1.5};  // 1.5 * 2^-1075 = 0.75 ulp -> 2^-1074
  EXPECT_TRUE(same(exact_dot(x.data(), y3.data(), 1).rounded, 0x1p-1074));
}

TEST(Oracle, OverflowThresholdAndCancellationNearIt) {
  EXPECT_TRUE(same(sum_of({DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX));
  EXPECT_TRUE(same(sum_of({DBL_MAX, DBL_MAX}), INFINITY));
  double half_ulp = 0x1p970;  // ulp(DBL_MAX) = 2^971: DBL_MAX + 2^970 is a tie -> rounds to 2^1024 = inf
  EXPECT_TRUE(same(sum_of({DBL_MAX, half_ulp}), INFINITY));
  EXPECT_TRUE(same(sum_of({DBL_MAX, 0x1p969}), DBL_MAX));
  EXPECT_TRUE(same(sum_of({-DBL_MAX, -half_ulp}), -INFINITY));
}

TEST(Oracle, SpecialValuesAndSignedZeros) {
  EXPECT_TRUE(same(sum_of({}), 0.0));
  EXPECT_TRUE(same(sum_of({-0.0}), -0.0));
  EXPECT_TRUE(same(sum_of({-0.0, -0.0}), -0.0));
  EXPECT_TRUE(same(sum_of({-0.0, 0.0}), 0.0));
  EXPECT_TRUE(same(sum_of({1.0, -1.0}), 0.0));
  EXPECT_TRUE(same(sum_of({-1.0, 1.0, -0.0}), 0.0));
  EXPECT_TRUE(same(sum_of({1.0, NAN}), NAN));
  EXPECT_TRUE(same(sum_of({INFINITY, 1.0}), INFINITY));
  EXPECT_TRUE(same(sum_of({-INFINITY, DBL_MAX}), -INFINITY));
  EXPECT_TRUE(same(sum_of({INFINITY, -INFINITY}), NAN));
  std::vector<double> x{0.0, INFINITY}, y{INFINITY, 1.0};
  EXPECT_TRUE(same(exact_dot(x.data(), y.data(), 2).rounded, NAN));  // 0 * inf
  std::vector<double> a{-0.0, 0.0}, b{1.0, -1.0};
  EXPECT_TRUE(same(exact_dot(a.data(), b.data(), 2).rounded, -0.0));  // (-0)(1) + (0)(-1): both -0
}

TEST(Oracle, ExactOnCatastrophicCancellation) {
  // 2^1000 + 1 - 2^1000 = 1, with terms spanning the whole exponent range.
  EXPECT_TRUE(same(sum_of({0x1p1000, 1.0, -0x1p1000}), 1.0));
  EXPECT_TRUE(same(sum_of({0x1p1023, 0x1p-1074, -0x1p1023}), 0x1p-1074));
  auto r = exact_sum(std::vector<double>{0x1p100, 1.0, -0x1p100}.data(), 3);
  EXPECT_DOUBLE_EQ(r.cond, (2 * 0x1p100 + 1));
  auto z = exact_sum(std::vector<double>{1.0, -1.0}.data(), 2);
  EXPECT_TRUE(std::isinf(z.cond));
}

TEST(Oracle, LargeInputUsesThreadsAndStaysExact) {
  // 300000 copies of 0.1 plus one 2^-60: the exact sum is 300000 * 0.1(double) + 2^-60.
  std::vector<double> v(300000, 0.1);
  v.push_back(0x1p-60);
  auto r = exact_sum(v.data(), (int64_t)v.size());
  long double expect = 300000.0L * 0.1L;  // only a sanity check of magnitude
  EXPECT_NEAR((double)expect, r.rounded, 1e-6);
  auto m = measure(r.rounded, r);
  EXPECT_TRUE(m.correctly_rounded);
  EXPECT_TRUE(m.faithful);
  EXPECT_LE(m.ulps, 0.5);
}

TEST(Oracle, MetricsOfAWrongResult) {
  std::vector<double> v{1.0, 0x1p-30};
  auto r = exact_sum(v.data(), 2);
  auto m = measure(1.0, r, 0x1p-31);
  EXPECT_FALSE(m.correctly_rounded);
  EXPECT_FALSE(m.faithful);
  EXPECT_EQ(m.abs_err, 0x1p-30);
  EXPECT_TRUE(m.has_bound);
  EXPECT_FALSE(m.within_bound);
  EXPECT_NEAR(m.digits, 9.03, 0.01);
  auto ok = measure(1.0 + 0x1p-30, r, 0.0);
  EXPECT_TRUE(ok.correctly_rounded && ok.within_bound);
  EXPECT_EQ(ok.digits, 16.0);
  auto inf = measure(INFINITY, r);
  EXPECT_FALSE(inf.correctly_rounded);
  EXPECT_TRUE(std::isinf(inf.abs_err));
}
