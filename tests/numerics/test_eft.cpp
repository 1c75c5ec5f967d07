// Error-free transforms (core/numerics/eft.hpp) checked exactly with MPFR: millions of random pairs over
// the whole exponent range, an exhaustive sweep over a lattice of structured values, and the
// edge cases of the IEEE 754 rules in the README. Where an EFT cannot be exact the test states why and checks what
// does hold instead:
//  - TwoSum / FastTwoSum: exact whenever s = fl(a + b) is finite. When s overflows the exact sum
//    is not representable at all (s = +-inf, e = NaN).
//  - FastTwoSum additionally needs |a| >= |b| (or a = 0).
//  - TwoProduct (FMA or Dekker): exact when e_a + e_b >= -970 (exponents of a and b), so that
//    a*b - p is a multiple of 2^-1074; below, e loses bits: the error of p + e is then at most
//    eta/2 (FMA: one rounding in the subnormal range) or 7/2 eta (Dekker; Boldo 2006), eta =
//    2^-1074 (families/sum_dot/sum_bounds.hpp uses these).
//  - Dekker's Split overflows (hi = NaN) when |a| > DBL_MAX / (2^27 + 1), and its high parts can
//    round up to 2^512 so that a1*b1 overflows when a*b is within about 2^-26 of DBL_MAX.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/numerics/eft.hpp"

namespace {

using namespace accsum;

constexpr double kEta = 0x1p-1074;

// Exact checks with mpfr_sum: it rounds correctly, so its result is zero iff the exact sum is.
class Exact {
 public:
  Exact() {
    for (auto& t : terms_) mpfr_init2(t, 106);
    mpfr_init2(r_, 64);
  }
  ~Exact() {
    for (auto& t : terms_) mpfr_clear(t);
    mpfr_clear(r_);
  }
  // a + b == s + e exactly
  bool sum_is(double a, double b, double s, double e) {
    if (!finite4(a, b, s, e)) return false;
    mpfr_set_d(terms_[0], a, MPFR_RNDN);
    mpfr_set_d(terms_[1], b, MPFR_RNDN);
    mpfr_set_d(terms_[2], -s, MPFR_RNDN);
    mpfr_set_d(terms_[3], -e, MPFR_RNDN);
    return zero_sum(4);
  }
  // a * b == p + e exactly
  bool prod_is(double a, double b, double p, double e) {
    if (!finite4(a, b, p, e)) return false;
    set_product_residual(a, b, p, e);
    return zero_sum(3);
  }
  // |a * b - (p + e)| in units of eta (rounded up); +inf when something is not finite
  double prod_error_in_eta(double a, double b, double p, double e) {
    if (!finite4(a, b, p, e)) return INFINITY;
    set_product_residual(a, b, p, e);
    mpfr_ptr ptrs[3] = {terms_[0], terms_[1], terms_[2]};
    mpfr_sum(r_, ptrs, 3, MPFR_RNDU);
    mpfr_abs(r_, r_, MPFR_RNDU);
    mpfr_mul_2si(r_, r_, 1074, MPFR_RNDU);
    return mpfr_get_d(r_, MPFR_RNDU);
  }

 private:
  static bool finite4(double a, double b, double c, double d) {
    return std::isfinite(a) && std::isfinite(b) && std::isfinite(c) && std::isfinite(d);
  }
  void set_product(double a, double b) {
    mpfr_set_d(terms_[0], a, MPFR_RNDN);
    mpfr_mul_d(terms_[0], terms_[0], b, MPFR_RNDN);  // exact in 106 bits
  }
  // terms 0..2 = a * b, -p, -e: they sum to a * b - (p + e)
  void set_product_residual(double a, double b, double p, double e) {
    set_product(a, b);
    mpfr_set_d(terms_[1], -p, MPFR_RNDN);
    mpfr_set_d(terms_[2], -e, MPFR_RNDN);
  }
  bool zero_sum(int k) {
    mpfr_ptr ptrs[4] = {terms_[0], terms_[1], terms_[2], terms_[3]};
    mpfr_sum(r_, ptrs, k, MPFR_RNDN);
    return mpfr_zero_p(r_);
  }
  mpfr_t terms_[4];
  mpfr_t r_;
};

// Significant bits of a finite non-zero double (53 - trailing zeros of its significand).
int significant_bits(double v) {
  int e;
  double m = std::frexp(std::fabs(v), &e);                // [0.5, 1), at most 53 bits
  uint64_t i = static_cast<uint64_t>(std::ldexp(m, 53));  // exact
  return 64 - __builtin_clzll(i) - __builtin_ctzll(i);
}

int exponent_of(double v) { return std::ilogb(v); }  // floor(log2|v|), also for subnormals

// A random double: sign, exponent uniform in [emin, emax], and a significand that is either
// full (52 random bits) or short (a few leading bits, so sums and products hit ties).
double random_double(std::mt19937_64& rng, int emin, int emax) {
  uint64_t bits = rng();
  int e = emin + static_cast<int>(rng() % static_cast<uint64_t>(emax - emin + 1));
  double m;
  switch (rng() % 4) {
    case 0:
      m = 1.0 + static_cast<double>((bits >> 12) >> (40 + rng() % 12)) * 0x1p-52;
      break;  // sparse low bits
    case 1:
      m = 1.0 + std::ldexp(static_cast<double>(bits >> 60), -4);
      break;  // 4-bit significand
    default:
      m = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
      break;
  }
  double v = std::ldexp(m, e);  // rounds to the subnormal grid below 2^-1022: still a double
  return (bits & 1) ? -v : v;
}

// A partner for a: near it in magnitude (cancellation, shared binades) or anywhere.
double random_partner(std::mt19937_64& rng, double a) {
  switch (rng() % 4) {
    case 0:
      return random_double(rng, -1074, 1023);
    case 1: {  // within 2^60 of a, either sign
      int e = exponent_of(a) + static_cast<int>(rng() % 121) - 60;
      e = std::max(-1074, std::min(1023, e));
      return random_double(rng, e, e);
    }
    case 2:
      return -a * (1.0 + static_cast<double>(rng() % 1024) * 0x1p-52);  // heavy cancellation
    default:
      return std::nextafter(-a, rng() & 1 ? INFINITY : -INFINITY);  // cancels to an ulp
  }
}

// ---------------------------------------------------------------------------------------------

TEST(Eft, SelfTestPassesOnHost) { EXPECT_TRUE(eft_self_test()); }

TEST(Eft, TwoSumAndFastTwoSumExactOnMillionsOfRandomPairs) {
  std::mt19937_64 rng(20240601);
  Exact ex;
  const int kPairs = 1200000;
  int checked = 0, overflowed = 0;
  for (int i = 0; i < kPairs; ++i) {
    double a = random_double(rng, -1074, 1023);
    double b = random_partner(rng, a);
    double s, e;
    two_sum(a, b, s, e);
    if (!std::isfinite(s)) {  // the exact sum is beyond the format: nothing can be exact
      ++overflowed;
      EXPECT_GE(std::max(std::fabs(a), std::fabs(b)), DBL_MAX / 2) << a << " " << b;
      continue;
    }
    ASSERT_TRUE(ex.sum_is(a, b, s, e)) << std::hexfloat << "TwoSum(" << a << ", " << b << ") = " << s << " + " << e;
    ASSERT_EQ(s, a + b);
    // FastTwoSum with its precondition |a| >= |b|, in both argument orders of the pair.
    double big = std::fabs(a) >= std::fabs(b) ? a : b, small = std::fabs(a) >= std::fabs(b) ? b : a;
    double fs, fe;
    fast_two_sum(big, small, fs, fe);
    ASSERT_TRUE(ex.sum_is(big, small, fs, fe)) << std::hexfloat << "FastTwoSum(" << big << ", " << small << ")";
    ASSERT_EQ(fs, s);
    ASSERT_EQ(fe, e);  // the exact error is unique
    ++checked;
  }
  EXPECT_GT(checked, kPairs * 9 / 10);
  EXPECT_GT(overflowed, 0);  // the generator does reach the top of the range
}

TEST(Eft, TwoProductFmaAndDekkerExactOnMillionsOfRandomPairs) {
  std::mt19937_64 rng(7);
  Exact ex;
  const int kPairs = 1000000;
  for (int i = 0; i < kPairs; ++i) {
    // Exponents with e_a + e_b in [-970, 1022] (no underflow of the error term, no overflow)
    // and |a|, |b| < 2^995 (Dekker's Split stays finite).
    int ea = -970 + static_cast<int>(rng() % (995 + 970));
    int lo = std::max(-1074, -970 - ea), hi = std::min(994, 1021 - ea);
    if (lo > hi) continue;
    double a = random_double(rng, ea, ea);
    double b = random_double(rng, lo, hi);
    double p, e;
    two_prod_fma(a, b, p, e);
    ASSERT_TRUE(ex.prod_is(a, b, p, e)) << std::hexfloat << "TwoProductFMA(" << a << ", " << b << ")";
    ASSERT_EQ(p, a * b);
    double pd, ed;
    two_prod_dekker(a, b, pd, ed);
    ASSERT_TRUE(ex.prod_is(a, b, pd, ed)) << std::hexfloat << "TwoProduct(" << a << ", " << b << ")";
    ASSERT_EQ(pd, p);
    ASSERT_EQ(ed, e);
  }
}

TEST(Eft, SplitIsExactWithTwoHalvesOf26Bits) {
  std::mt19937_64 rng(3);
  Exact ex;
  for (int i = 0; i < 300000; ++i) {
    double a = random_double(rng, -1074, 995);
    double hi, lo;
    split(a, hi, lo);
    ASSERT_TRUE(ex.sum_is(hi, lo, a, 0.0)) << std::hexfloat << "Split(" << a << ") = " << hi << " + " << lo;
    if (std::fabs(a) >= 0x1p-1020) {  // the bit counts are Dekker's claim for normal a
      ASSERT_LE(significant_bits(hi), 26) << std::hexfloat << a;
      if (lo != 0) {
        ASSERT_LE(significant_bits(lo), 26) << std::hexfloat << a;
      }
    }
  }
}

// Every pair from a lattice of structured values: signed zeros, subnormals (smallest, largest,
// sparse), powers of two and their neighbours, short significands (ties), the top of the
// range. Exactness is asserted wherever the transform's conditions hold, and what holds
// instead elsewhere.
std::vector<double> lattice() {
  std::vector<double> v = {
      0.0, -0.0, kEta, 3 * kEta, DBL_MIN - kEta, DBL_MIN, DBL_MAX, std::nextafter(DBL_MAX, 0), 0x1p1023, 0x1.8p1023};
  const int exps[] = {-1074, -1060, -1030, -1022, -1000, -970, -600, -537, -60, -54, -53, -52, -27, -1,   0,
                      1,     26,    27,    52,    53,    54,   511,  512,  900, 969, 970, 995, 996, 1000, 1022};
  const double mants[] = {1.0, 1.5, 1.25, 1.875, 1.0 + 0x1p-52, 2.0 - 0x1p-52, 1.0 + 0x1p-26, 1.0 + 0x1p-27};
  for (int e : exps)
    for (double m : mants) v.push_back(std::ldexp(m, e));
  size_t k = v.size();
  for (size_t i = 0; i < k; ++i)
    if (v[i] != 0) v.push_back(-v[i]);
  return v;
}

TEST(Eft, ExhaustiveOverAStructuredLattice) {
  const std::vector<double> v = lattice();
  Exact ex;
  int64_t pairs = 0, prod_exact = 0, prod_underflow = 0;
  for (double a : v)
    for (double b : v) {
      ++pairs;
      double s, e;
      two_sum(a, b, s, e);
      if (std::isfinite(s)) {
        ASSERT_TRUE(ex.sum_is(a, b, s, e)) << std::hexfloat << a << " + " << b;
        if (std::fabs(a) >= std::fabs(b)) {
          double fs, fe;
          fast_two_sum(a, b, fs, fe);
          ASSERT_TRUE(ex.sum_is(a, b, fs, fe)) << std::hexfloat << a << " + " << b;
        }
      } else {
        ASSERT_TRUE(std::isinf(s)) << std::hexfloat << a << " + " << b;
        ASSERT_TRUE(std::isnan(e));  // inf - inf inside TwoSum
      }
      if (a == 0 || b == 0) continue;
      double p = a * b;
      if (!std::isfinite(p)) continue;  // the product itself overflows
      double pf, ef, pd, ed;
      two_prod_fma(a, b, pf, ef);
      two_prod_dekker(a, b, pd, ed);
      const bool no_underflow = exponent_of(a) + exponent_of(b) >= -970;
      const bool split_ok = std::fabs(a) <= DBL_MAX / 134217729.0 && std::fabs(b) <= DBL_MAX / 134217729.0;
      if (no_underflow) {
        ++prod_exact;
        ASSERT_TRUE(ex.prod_is(a, b, pf, ef)) << std::hexfloat << a << " * " << b;
        if (split_ok && std::fabs(p) < 0x1p1023) {
          ASSERT_TRUE(ex.prod_is(a, b, pd, ed)) << std::hexfloat << a << " * " << b;
        }
      } else {
        ++prod_underflow;
        ASSERT_LE(ex.prod_error_in_eta(a, b, pf, ef), 0.5) << std::hexfloat << a << " * " << b;
        if (split_ok) {
          ASSERT_LE(ex.prod_error_in_eta(a, b, pd, ed), 3.5) << std::hexfloat << a << " * " << b;
        }
      }
    }
  EXPECT_GT(pairs, 200000);
  EXPECT_GT(prod_exact, 10000);
  EXPECT_GT(prod_underflow, 1000);
}

TEST(Eft, TwoProductWithUnderflowIsOffByAtMostAFewSubnormals) {
  // Products whose error term falls below 2^-1074: the transform cannot be exact, but p + e is
  // within eta/2 (FMA) or 7/2 eta (Dekker) of a*b.
  std::mt19937_64 rng(11);
  Exact ex;
  double worst_fma = 0, worst_dekker = 0;
  for (int i = 0; i < 300000; ++i) {
    int ea = -1000 + static_cast<int>(rng() % 1990);
    int eb = -1100 - ea + static_cast<int>(rng() % 130);  // e_a + e_b in [-1100, -971]
    if (eb < -1074 || eb > 990) continue;
    double a = random_double(rng, ea, ea), b = random_double(rng, eb, eb);
    double p, e;
    two_prod_fma(a, b, p, e);
    worst_fma = std::max(worst_fma, ex.prod_error_in_eta(a, b, p, e));
    two_prod_dekker(a, b, p, e);
    worst_dekker = std::max(worst_dekker, ex.prod_error_in_eta(a, b, p, e));
  }
  EXPECT_LE(worst_fma, 0.5);
  EXPECT_LE(worst_dekker, 3.5);
  EXPECT_GT(worst_fma, 0.0);  // the regime is reached: these products are really inexact
  RecordProperty("worst_dekker_error_in_eta", std::to_string(worst_dekker));
}

TEST(Eft, SignedZeros) {
  double s, e;
  two_sum(0.0, 0.0, s, e);
  EXPECT_EQ(s, 0.0);
  EXPECT_FALSE(std::signbit(s));
  two_sum(-0.0, -0.0, s, e);
  EXPECT_TRUE(s == 0 && std::signbit(s));  // -0 + -0 = -0
  EXPECT_EQ(e, 0.0);                       // (its sign carries no meaning: +0 here)
  two_sum(0.0, -0.0, s, e);
  EXPECT_TRUE(s == 0 && !std::signbit(s));
  two_sum(1.0, -1.0, s, e);
  EXPECT_TRUE(s == 0 && !std::signbit(s) && e == 0);  // exact cancellation gives +0
  fast_two_sum(-0.0, -0.0, s, e);
  EXPECT_TRUE(s == 0 && std::signbit(s));
  double p;
  two_prod_fma(-0.0, 3.0, p, e);
  EXPECT_TRUE(p == 0 && std::signbit(p) && e == 0);
  two_prod_dekker(-2.0, 0.0, p, e);
  EXPECT_TRUE(p == 0 && std::signbit(p) && e == 0);
  two_prod_fma(-0.0, -5.0, p, e);
  EXPECT_TRUE(p == 0 && !std::signbit(p));
}

TEST(Eft, Subnormals) {
  Exact ex;
  double s, e;
  two_sum(kEta, kEta, s, e);
  EXPECT_EQ(s, 2 * kEta);
  EXPECT_EQ(e, 0.0);
  two_sum(1.0, kEta, s, e);  // the whole subnormal is the error
  EXPECT_EQ(s, 1.0);
  EXPECT_EQ(e, kEta);
  two_sum(DBL_MIN, -kEta, s, e);  // normal - subnormal lands on the largest subnormal: exact
  EXPECT_EQ(s, DBL_MIN - kEta);
  EXPECT_EQ(e, 0.0);
  two_sum(0x1.8p-1060, -0x1.4p-1062, s, e);
  EXPECT_TRUE(ex.sum_is(0x1.8p-1060, -0x1.4p-1062, s, e));
  double p;
  two_prod_fma(kEta, 0x1p1000, p, e);  // e_a + e_b = -74: exact
  EXPECT_EQ(p, 0x1p-74);
  EXPECT_EQ(e, 0.0);
  two_prod_dekker(3 * kEta, 0x1.8p990, p, e);  // (below Split's overflow limit 2^996)
  EXPECT_TRUE(ex.prod_is(3 * kEta, 0x1.8p990, p, e));
  // a*b below eta/2: p = 0 and nothing can hold the product (not exact, error < eta/2).
  two_prod_fma(0x1p-600, 0x1.8p-600, p, e);
  EXPECT_EQ(p, 0.0);
  EXPECT_EQ(e, 0.0);
  EXPECT_FALSE(ex.prod_is(0x1p-600, 0x1.8p-600, p, e));
}

TEST(Eft, NearTheTopOfTheRange) {
  Exact ex;
  const double ulp_max = 0x1p971;  // ulp(DBL_MAX)
  double s, e;
  two_sum(DBL_MAX, 0x1p969, s, e);  // below half an ulp: s = DBL_MAX, error exact
  EXPECT_EQ(s, DBL_MAX);
  EXPECT_EQ(e, 0x1p969);
  two_sum(DBL_MAX, -DBL_MAX, s, e);
  EXPECT_TRUE(s == 0 && e == 0);
  two_sum(DBL_MAX, -ulp_max, s, e);
  EXPECT_TRUE(ex.sum_is(DBL_MAX, -ulp_max, s, e));
  two_sum(-DBL_MAX, 0x1.8p1023, s, e);
  EXPECT_TRUE(ex.sum_is(-DBL_MAX, 0x1.8p1023, s, e));
  // Half an ulp above DBL_MAX rounds (to even) to 2^1024 = inf: s overflows, e = inf - inf.
  two_sum(DBL_MAX, ulp_max / 2, s, e);
  EXPECT_TRUE(std::isinf(s) && s > 0);
  EXPECT_TRUE(std::isnan(e));
  // No spurious overflow in TwoSum's intermediates while s is finite.
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200000; ++i) {
    double a = random_double(rng, 1015, 1023), b = random_double(rng, 960, 1023);
    two_sum(a, b, s, e);
    if (std::isfinite(s)) {
      ASSERT_TRUE(ex.sum_is(a, b, s, e)) << std::hexfloat << a << " + " << b;
    }
  }
  // Split: factor * a overflows beyond DBL_MAX / (2^27 + 1), so Dekker's TwoProduct gives NaN
  // for a product that is perfectly finite; FMA's is exact.
  double hi, lo, p;
  split(0x1p1000, hi, lo);
  EXPECT_FALSE(std::isfinite(hi));
  two_prod_dekker(0x1p1000, 0x1.8p-10, p, e);
  EXPECT_TRUE(std::isnan(e));
  two_prod_fma(0x1p1000, 0x1.8p-10, p, e);
  EXPECT_TRUE(ex.prod_is(0x1p1000, 0x1.8p-10, p, e));
  // a = b just below 2^512: a*a is finite but Split rounds a's high part up to 2^512 and
  // a1*b1 = 2^1024 overflows.
  const double r = 0x1.fffffffffffffp511;
  two_prod_dekker(r, r, p, e);
  EXPECT_TRUE(std::isfinite(p));
  EXPECT_FALSE(std::isfinite(e));
  two_prod_fma(r, r, p, e);
  EXPECT_TRUE(ex.prod_is(r, r, p, e));
}

TEST(Eft, PowersOfTwo) {
  Exact ex;
  for (int i = -1074; i <= 1023; i += 7)
    for (int j = -1074; j <= 1023; j += 11) {
      double a = std::ldexp(1.0, i), b = std::ldexp(1.0, j), s, e, p;
      two_sum(a, b, s, e);
      ASSERT_TRUE(ex.sum_is(a, b, s, e)) << i << " " << j;
      two_sum(a, -b, s, e);
      ASSERT_TRUE(ex.sum_is(a, -b, s, e)) << i << " " << j;
      if (i + j >= -1074 && i + j <= 1023) {
        two_prod_fma(a, b, p, e);
        ASSERT_EQ(p, std::ldexp(1.0, i + j));
        ASSERT_EQ(e, 0.0);
        if (i <= 995 && j <= 995 && i + j >= -970) {
          two_prod_dekker(a, b, p, e);
          ASSERT_EQ(p, std::ldexp(1.0, i + j));
          ASSERT_EQ(e, 0.0);
        }
      }
    }
}

TEST(Eft, TiesRoundToEven) {
  double s, e, p;
  two_sum(0x1p53, 1.0, s, e);  // 2^53 + 1: halfway, even neighbour 2^53
  EXPECT_EQ(s, 0x1p53);
  EXPECT_EQ(e, 1.0);
  two_sum(0x1p53 + 2, 1.0, s, e);  // 2^53 + 3: halfway, even neighbour 2^53 + 4
  EXPECT_EQ(s, 0x1p53 + 4);
  EXPECT_EQ(e, -1.0);
  two_sum(1.0, 0x1p-53, s, e);
  EXPECT_EQ(s, 1.0);
  EXPECT_EQ(e, 0x1p-53);
  two_sum(1.0 + 0x1p-52, 0x1p-53, s, e);
  EXPECT_EQ(s, 1.0 + 0x1p-51);
  EXPECT_EQ(e, -0x1p-53);
  two_sum(-0x1p53, -1.0, s, e);  // symmetric for negatives
  EXPECT_EQ(s, -0x1p53);
  EXPECT_EQ(e, -1.0);
  // (2^27 + 1)(2^26 + 1) = 2^53 + 2^27 + 2^26 + 1: halfway between two doubles, even one below.
  const double a = 0x1p27 + 1, b = 0x1p26 + 1;
  two_prod_fma(a, b, p, e);
  EXPECT_EQ(p, 0x1p53 + 0x1p27 + 0x1p26);
  EXPECT_EQ(e, 1.0);
  two_prod_dekker(a, b, p, e);
  EXPECT_EQ(p, 0x1p53 + 0x1p27 + 0x1p26);
  EXPECT_EQ(e, 1.0);
}

TEST(Eft, FastTwoSumNeedsItsPrecondition) {
  // |a| < |b|: the error is lost (documented precondition, the reason Neumaier branches).
  Exact ex;
  double s, e;
  fast_two_sum(0x1p-60, 1.0, s, e);
  EXPECT_EQ(s, 1.0);
  EXPECT_FALSE(ex.sum_is(0x1p-60, 1.0, s, e));
  fast_two_sum(1.0, 0x1p-60, s, e);
  EXPECT_TRUE(ex.sum_is(1.0, 0x1p-60, s, e));
  fast_two_sum(0.0, 0x1.8p-3, s, e);  // a = 0 is allowed
  EXPECT_TRUE(ex.sum_is(0.0, 0x1.8p-3, s, e));
}

}  // namespace
