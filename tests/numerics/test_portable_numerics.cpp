// The single-source numerics of core/numerics/ (ieee_special.h, expansion.h, compensated.h) against
// what they define: IEEE 754 products and results, Alg. 2's exact absorption, Kahan's and Priest's
// steps as written in the papers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/numerics/compensated.h"
#include "core/numerics/expansion.h"
#include "core/numerics/ieee_special.h"
#include "tests/same_bits.hpp"
#include "tests/special_values.hpp"

namespace {

using accsum::test::kInf;
using accsum::test::kNaN;

// The class IEEE multiplication itself gives a*b (finite nonzero factors: finite, exactly).
int class_by_multiplying(double a, double b) {
  const double p = a * b;
  if (std::isnan(p)) return ACCSUM_PRODUCT_NAN;
  if (std::isinf(a) || std::isinf(b)) return p > 0 ? ACCSUM_PRODUCT_POS_INF : ACCSUM_PRODUCT_NEG_INF;
  if (a == 0 || b == 0) return std::signbit(p) ? ACCSUM_PRODUCT_NEG_ZERO : ACCSUM_PRODUCT_POS_ZERO;
  return ACCSUM_PRODUCT_FINITE;
}

TEST(PortableNumerics, ProductClassIsIeeeMultiplication) {
  const std::vector<double> v = {0.0,       -0.0, 0x1p-1074, -0x1p-1074, 1.0,  -3.5, 0x1.fffffffffffffp1023,
                                 -0x1p1000, kInf, -kInf,     kNaN,       -kNaN};
  for (double a : v)
    for (double b : v)
      EXPECT_EQ(accsum_product_class(accsum_bits(a), accsum_bits(b)), class_by_multiplying(a, b)) << a << " * " << b;
}

TEST(PortableNumerics, SpecialResultAndZeroSign) {
  for (int nan = 0; nan < 2; ++nan)
    for (int pos = 0; pos < 2; ++pos)
      for (int neg = 0; neg < 2; ++neg) {
        const accsum_u64 bits = accsum_special_result_bits(nan, pos, neg);
        // IEEE sums: NaN + x = NaN, inf + -inf = NaN, inf + finite = inf.
        const double ieee = (nan ? kNaN : 0.0) + (pos ? kInf : 0.0) + (neg ? -kInf : 0.0);
        if (!nan && !pos && !neg)
          EXPECT_EQ(bits, 0u);
        else if (std::isnan(ieee))
          EXPECT_TRUE(std::isnan(accsum_double(bits)));
        else
          EXPECT_EQ(accsum_double(bits), ieee);
      }
  EXPECT_TRUE(std::signbit(accsum_double(accsum_zero_result_bits(1, 0))));   // -0 + -0 = -0
  EXPECT_FALSE(std::signbit(accsum_double(accsum_zero_result_bits(1, 1))));  // -0 + 0 = +0
  EXPECT_FALSE(std::signbit(accsum_double(accsum_zero_result_bits(0, 0))));  // no terms: +0
}

// Level-major batches (the CUDA kernels' order) leave the expansion and the residues exactly as
// term-by-term absorption does, and the expansion plus the residues keep the value of the terms.
TEST(PortableNumerics, ExpansionBatchesEqualTermByTerm) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  constexpr int N = 3, B = 4;
  double a[N] = {0, 0, 0}, b[N] = {0, 0, 0};
  for (int round = 0; round < 1000; ++round) {
    double v[B], w[B];
    for (int j = 0; j < B; ++j) v[j] = w[j] = std::ldexp(u(rng), static_cast<int>(rng() % 120) - 60);
    for (int i = 0; i < N; ++i) accsum_expansion_level(&a[i], v, B);
    for (int j = 0; j < B; ++j) w[j] = accsum_expansion_absorb(b, N, w[j], 0);
    for (int i = 0; i < N; ++i) ASSERT_TRUE(accsum::test::same_bits(a[i], b[i])) << round;
    for (int j = 0; j < B; ++j) ASSERT_TRUE(accsum::test::same_bits(v[j], w[j])) << round;
  }
  double e[2] = {0, 0};
  EXPECT_EQ(accsum_expansion_absorb(e, 2, 1.0, 1), 0.0);
  EXPECT_EQ(accsum_expansion_absorb(e, 2, 0x1p-60, 1), 0.0);        // held by the second term
  EXPECT_EQ(accsum_expansion_absorb(e, 2, 0x1p-120, 0), 0x1p-120);  // three magnitudes: one left over
  EXPECT_EQ(e[0], 1.0);
  EXPECT_EQ(e[1], 0x1p-60);
}

TEST(PortableNumerics, CompensatedStepsAsInThePapers) {
  // Kahan (Fig. 3): 1 + 2^-24 loses the small term in s, keeps it in c.
  float s = 1.0f, c = 0.0f;
  accsum_comp_add_f32(ACCSUM_COMP_KAHAN, &s, &c, 0x1p-24f);
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(c, 0x1p-24f);
  accsum_comp_add_f32(ACCSUM_COMP_KAHAN, &s, &c, 0x1p-24f);  // the two halves meet: 1 + 2^-23
  EXPECT_EQ(s, 1.0f + 0x1p-23f);
  // Priest's DCS (Fig. 1 with Fig. 2's ordering): a summand larger than the total swaps roles.
  s = 0x1p-24f, c = 0.0f;
  accsum_comp_add_f32(ACCSUM_COMP_DCS, &s, &c, 1.0f);
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(c, 0x1p-24f);
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: fused keeps the last bit, unfused rounds it away (a tie, to even).
  EXPECT_EQ(accsum_mul_add_f32(1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -1.0f, 1), 0x1p-11f + 0x1p-24f);
  EXPECT_EQ(accsum_mul_add_f32(1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -1.0f, 0), 0x1p-11f);
}

}  // namespace
