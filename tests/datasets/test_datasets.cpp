// Generators: determinism by (seed, i), slices equal to the whole, what each distribution
// claims (dynamic range, condition number, ties, overflow, specials, subnormals) checked with
// the exact oracle, and the validation of a GenSpec.
#include <gtest/gtest.h>

#include "tests/dataset_util.hpp"
#include "tests/exact_of.hpp"
#include "tests/same_bits.hpp"
#include "tests/expect_usage_error.hpp"

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/oracle/oracle.hpp"
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"
#include "datasets/elements.hpp"
#include "datasets/rng.hpp"

using accsum::Dataset;
using accsum::GenSpec;
using accsum::UsageError;

namespace {

using accsum::test::has_y;
using accsum::test::spec_of;

using accsum::test::all_same_bits;

using accsum::test::exact_of;

using accsum::test::expect_usage_error;

const std::vector<std::string> kElementwise = {"uniform", "uniform-sym", "loguniform", "subnormal", "specials"};
const std::vector<std::string> kFamilies = {"sum", "dot"};

}  // namespace

// ---------------------------------------------------------------- counter-based RNG

TEST(DatasetsRng, DrawsArePureFunctionsOfSeedStreamIndex) {
  accsum::rng::CounterRng a(7, 0), b(7, 0), other_seed(8, 0), other_stream(7, 1);
  int equal_seed = 0, equal_stream = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(a.u64(i), b.u64(i));
    EXPECT_NE(a.u64(i, 0), a.u64(i, 1));
    equal_seed += a.u64(i) == other_seed.u64(i);
    equal_stream += a.u64(i) == other_stream.u64(i);
  }
  EXPECT_EQ(equal_seed, 0);
  EXPECT_EQ(equal_stream, 0);
}

TEST(DatasetsRng, UniformDrawsCoverTheirIntervals) {
  accsum::rng::CounterRng r(3, 0);
  const int n = 200000;
  double sum = 0, lo = 1, hi = 0, slo = 1, shi = -1;
  int bits_set = 0;
  for (int i = 0; i < n; ++i) {
    double u = r.uniform(i), s = r.uniform_sym(i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_GE(s, -1.0);
    ASSERT_LT(s, 1.0);
    ASSERT_LT(r.below(10, i), 10u);
    sum += u;
    lo = std::min(lo, u), hi = std::max(hi, u), slo = std::min(slo, s), shi = std::max(shi, s);
    bits_set += __builtin_popcountll(r.u64(i, 3));
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_LT(lo, 1e-4);
  EXPECT_GT(hi, 1 - 1e-4);
  EXPECT_LT(slo, -1 + 1e-4);
  EXPECT_GT(shi, 1 - 1e-4);
  EXPECT_NEAR(bits_set / (64.0 * n), 0.5, 0.001);
}

TEST(DatasetsRng, FeistelPermutationIsABijection) {
  for (uint64_t n : {1, 2, 3, 5, 64, 100, 1000, 4097}) {
    accsum::rng::FeistelPermutation p(n, 11, 2);
    std::set<uint64_t> seen;
    int fixed = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v = p(i);
      ASSERT_LT(v, n);
      seen.insert(v);
      fixed += v == i;
    }
    EXPECT_EQ(seen.size(), n);
    if (n >= 100) {
      EXPECT_LT(fixed, 10) << "n = " << n;  // a shuffle, not the identity
    }
  }
}

// ---------------------------------------------------------------- determinism

TEST(DatasetsDeterminism, ShorterDatasetIsAPrefixOfLonger) {
  for (const auto& family : kFamilies)
    for (const auto& dist : kElementwise) {
      Dataset a = accsum::generate(spec_of(dist, family, 1000, 5));
      Dataset b = accsum::generate(spec_of(dist, family, 5000, 5));
      EXPECT_TRUE(all_same_bits(a.x.data(), b.x.data(), 1000)) << dist << " " << family;
      if (has_y(family)) {
        EXPECT_TRUE(all_same_bits(a.y.data(), b.y.data(), 1000)) << dist;
      }
      if (!has_y(family)) {
        EXPECT_TRUE(a.y.empty());
      }
    }
}

TEST(DatasetsDeterminism, IndependentSlicesEqualTheWhole) {
  for (const auto& family : kFamilies)
    for (const auto& dist : accsum::dist_names()) {
      if (!accsum::counter_based(dist)) continue;
      const int64_t n = 3001;
      GenSpec s = spec_of(dist, family, n, 9);
      Dataset whole = accsum::generate(s);
      std::vector<double> x(n), y(n);
      for (auto [b, e] : {std::pair<int64_t, int64_t>{1001, 3001}, {1000, 1001}, {0, 1000}, {17, 17}})
        accsum::generate_range(s, b, e, x.data() + b, has_y(family) ? y.data() + b : nullptr);
      EXPECT_TRUE(all_same_bits(whole.x.data(), x.data(), n)) << dist << " " << family;
      if (has_y(family)) {
        EXPECT_TRUE(all_same_bits(whole.y.data(), y.data(), n)) << dist;
      }
    }
}

TEST(DatasetsDeterminism, ThreadedGenerationEqualsOneSlice) {
  setenv("ACCSUM_THREADS", "3", 1);  // three threads even on a two-core machine
  for (const auto& dist : {"loguniform", "ties", "specials"}) {
    GenSpec s = spec_of(dist, "dot", (1 << 18) + 7, 4);
    Dataset d = accsum::generate(s);
    std::vector<double> x(s.n), y(s.n);
    accsum::generate_range(s, 0, s.n, x.data(), y.data());
    EXPECT_TRUE(all_same_bits(d.x.data(), x.data(), s.n)) << dist;
    EXPECT_TRUE(all_same_bits(d.y.data(), y.data(), s.n)) << dist;
  }
  unsetenv("ACCSUM_THREADS");
}

TEST(DatasetsDeterminism, SameSeedSameDataOtherSeedOtherData) {
  for (const auto& family : kFamilies)
    for (const auto& dist : accsum::dist_names()) {
      Dataset a = accsum::generate(spec_of(dist, family, 500, 1));
      Dataset a2 = accsum::generate(spec_of(dist, family, 500, 1));
      Dataset b = accsum::generate(spec_of(dist, family, 500, 2));
      EXPECT_TRUE(all_same_bits(a.x.data(), a2.x.data(), 500)) << dist << " " << family;
      int differ = 0;
      for (int i = 0; i < 500; ++i) differ += std::memcmp(&a.x[i], &b.x[i], sizeof(double)) != 0;
      EXPECT_GT(differ, 250) << dist << " " << family;
    }
}

TEST(DatasetsDeterminism, XAndYComeFromDifferentStreams) {
  for (const auto& dist : {"uniform", "uniform-sym"}) {
    Dataset d = accsum::generate(spec_of(dist, "dot", 1000));
    int equal = 0;
    for (int i = 0; i < 1000; ++i) equal += d.x[i] == d.y[i];
    EXPECT_LT(equal, 5) << dist;
  }
}

// ---------------------------------------------------------------- metadata, validation

TEST(DatasetsGenerate, DescribesItselfWithFreshIds) {
  GenSpec s = spec_of("loguniform", "dot", 100, 42);
  s.range = 1e20;
  Dataset a = accsum::generate(s);
  EXPECT_EQ(a.family, "dot");
  EXPECT_EQ(a.generator, "loguniform");
  EXPECT_EQ(a.source, "");
  EXPECT_EQ(a.seed, 42u);
  EXPECT_EQ(a.n, 100);
  EXPECT_EQ(a.range, 1e20);
  EXPECT_EQ(a.target_cond, 0);
  EXPECT_EQ(a.x.size(), 100u);
  EXPECT_EQ(a.y.size(), 100u);
  s.dist = "illcond";
  s.cond = 1e12;
  Dataset b = accsum::generate(s);
  EXPECT_EQ(b.range, 0);
  EXPECT_EQ(b.target_cond, 1e12);
  EXPECT_NE(a.id, 0u);
  EXPECT_GT(b.id, a.id);
  EXPECT_GT(accsum::next_dataset_id(), b.id);
  EXPECT_EQ(b.problem().id, b.id);
  EXPECT_EQ(b.problem().n, 100);
}

TEST(DatasetsGenerate, UniformIntervals) {
  Dataset u = accsum::generate(spec_of("uniform", "sum", 100000));
  Dataset s = accsum::generate(spec_of("uniform-sym", "sum", 100000));
  for (int i = 0; i < 100000; ++i) {
    ASSERT_TRUE(u.x[i] >= 0 && u.x[i] < 1);
    ASSERT_TRUE(s.x[i] >= -1 && s.x[i] < 1);
  }
  EXPECT_LT(*std::min_element(s.x.begin(), s.x.end()), -0.999);
  EXPECT_GT(*std::max_element(u.x.begin(), u.x.end()), 0.999);
}

TEST(DatasetsValidation, BadSpecsAreUsageErrors) {
  expect_usage_error([] { accsum::generate(spec_of("gaussian", "sum", 10)); },
                     "valid: uniform, uniform-sym, loguniform");
  expect_usage_error([] { accsum::generate(spec_of("uniform", "sum", 0)); }, "n must be at least 1");
  expect_usage_error([] { accsum::generate(spec_of("uniform", "sum", -3)); }, "n must be at least 1");
  expect_usage_error([] { accsum::generate(spec_of("uniform", "dot", int64_t(1) << 50)); }, "memory");
  expect_usage_error([] { accsum::generate(spec_of("ties", "sum", 1)); }, "ties needs n >= 2");
  for (double r : {0.5, 0.0, -1.0, double(NAN), double(INFINITY)}) {
    GenSpec s = spec_of("loguniform", "sum", 10);
    s.range = r;
    expect_usage_error([&] { accsum::generate(s); }, "range must be");
  }
  for (double c : {0.999, -1.0, double(NAN), double(INFINITY), 1e301}) {
    GenSpec s = spec_of("illcond", "sum", 10);
    s.cond = c;
    expect_usage_error([&] { accsum::generate(s); }, "cond must be");
  }
  std::vector<double> x(10);
  expect_usage_error([&] { accsum::generate_range(spec_of("illcond", "sum", 10), 0, 10, x.data(), nullptr); },
                     "sequentially");
  expect_usage_error([&] { accsum::generate_range(spec_of("uniform", "sum", 10), 5, 11, x.data(), nullptr); },
                     "outside");
  EXPECT_TRUE(accsum::counter_based("ties"));
  EXPECT_FALSE(accsum::counter_based("illcond"));
}

// ---------------------------------------------------------------- loguniform

TEST(DatasetsLoguniform, AchievedDynamicRangeWithinFactorFourOfTarget) {
  for (const auto& family : kFamilies)
    for (double target : {1.0, 1e10, 1e50, 1e300}) {
      GenSpec s = spec_of("loguniform", family, 20000, 3);
      s.range = target;
      Dataset d = accsum::generate(s);
      double lo = INFINITY, hi = 0;
      int negative = 0;
      for (double v : d.x) {
        ASSERT_TRUE(std::isfinite(v) && v != 0);
        lo = std::min(lo, std::fabs(v));
        hi = std::max(hi, std::fabs(v));
        negative += v < 0;
      }
      double achieved = hi / lo;
      EXPECT_LE(achieved, 4 * target) << family << " target " << target;
      EXPECT_GE(achieved, target / 4) << family << " target " << target;
      EXPECT_NEAR(negative, 10000, 500) << "random signs";
      // Centred on 2^0: the geometric middle of the magnitudes is within a factor 4 of 1.
      EXPECT_NEAR(std::log2(hi * lo), 0, 2) << family << " target " << target;
      if (has_y(family)) {
        for (double v : d.y) ASSERT_TRUE(std::fabs(v) >= 1 && std::fabs(v) < 2);
      }
    }
}

// ---------------------------------------------------------------- illcond (exact condition number)

TEST(DatasetsIllcond, AchievedConditionNumberMatchesTarget) {
  // Stated tolerance: the exact condition number is within a relative 1e-6 of the target for
  // n >= 100 (the construction aims at the target itself; observed: below 1e-10 at n = 100,
  // about 1e-13 at n >= 1000) - far inside the factor 100 such generators are usually held to.
  for (const auto& family : kFamilies)
    for (double target : {1e10, 1e30, 1e100, 1e200, 1e300})
      for (int64_t n : {100, 5000}) {
        GenSpec s = spec_of("illcond", family, n, 17);
        s.cond = target;
        Dataset d = accsum::generate(s);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_TRUE(std::isfinite(d.x[i]));
          if (has_y(family)) {
            ASSERT_TRUE(std::isfinite(d.y[i]));
          }
        }
        accsum::ExactValue ex = exact_of(d);
        ASSERT_FALSE(ex.special);
        ASSERT_TRUE(std::isfinite(ex.sum_abs));
        EXPECT_NEAR(ex.cond / target, 1.0, 1e-6) << family << " n " << n << " target " << target;
      }
}

TEST(DatasetsIllcond, LowAndModerateTargets) {
  for (const auto& family : kFamilies)
    for (double target : {1.0, 2.0, 10.0, 16.0, 1e3, 1e6})
      for (int64_t n : {2, 3, 64, 1000}) {
        GenSpec s = spec_of("illcond", family, n, 5);
        s.cond = target;
        accsum::ExactValue ex = exact_of(accsum::generate(s));
        EXPECT_NEAR(ex.cond / target, 1.0, 1e-3) << family << " n " << n << " target " << target;
      }
  // Few terms: a huge target may be out of reach, but the data stay finite, never overshoot
  // (by more than the last term's rounding, 1% at worst), and the target is met once n allows
  // (n >= 32 for 1e300).
  for (const auto& family : kFamilies)
    for (double target : {1e30, 1e100, 1e300})
      for (int64_t n = 2; n <= 40; n += 2)
        for (uint64_t seed : {1, 11}) {
          GenSpec s = spec_of("illcond", family, n, seed);
          s.cond = target;
          Dataset d = accsum::generate(s);
          for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(d.x[i]) && (d.y.empty() || std::isfinite(d.y[i])));
          accsum::ExactValue ex = exact_of(d);
          EXPECT_TRUE(ex.cond >= 1 && ex.cond <= target * 1.01) << family << " n " << n << " target " << target;
          if (n >= 32) {
            EXPECT_NEAR(ex.cond / target, 1.0, 0.01) << family << " n " << n << " target " << target;
          }
        }
  // One term: S / |s| is 1 whatever was asked.
  GenSpec one = spec_of("illcond", "sum", 1);
  one.cond = 1e20;
  EXPECT_EQ(exact_of(accsum::generate(one)).cond, 1.0);
}

TEST(DatasetsIllcond, LargeDatasetReachesHugeCondition) {
  GenSpec s = spec_of("illcond", "sum", 1 << 20, 3);
  s.cond = 1e300;
  Dataset d = accsum::generate(s);
  accsum::ExactValue ex = exact_of(d);
  EXPECT_NEAR(ex.cond / 1e300, 1.0, 1e-3);
  // Shuffled: the large terms are spread over the whole array (not all in the first half).
  double first = 0, second = 0;
  for (int64_t i = 0; i < s.n; ++i) (i < s.n / 2 ? first : second) += std::fabs(d.x[i]);
  EXPECT_NEAR(first / (first + second), 0.5, 0.2);
}

// ---------------------------------------------------------------- ties

namespace {
// True when the exact sum (dot) of d lies exactly halfway between two adjacent doubles:
// with r = RN(exact) and o the neighbour of r on the exact value's side, 2 exact - 2r = o - r.
// Everything is doubled so the half-ulp is representable even between subnormals.
// `away` tells whether RN rounded away from zero (so RN differs from round-toward-zero).
::testing::AssertionResult is_midpoint(const Dataset& d, bool& away) {
  accsum::ExactValue ex = exact_of(d);
  const double r = ex.rounded;
  std::vector<double> x = d.x, y = d.y;
  if (y.empty()) y.assign(d.n, 1.0);
  for (auto& v : y) v *= 2;  // exact
  x.push_back(-r);
  y.push_back(2.0);
  const double twice_residual = accsum::exact_dot(x.data(), y.data(), (int64_t)x.size()).rounded;
  if (twice_residual == 0) return ::testing::AssertionFailure() << "exact value is a double: " << ex.hex;
  const double o = std::nextafter(r, twice_residual > 0 ? INFINITY : -INFINITY);
  away = (twice_residual > 0) != (r > 0);
  if (twice_residual != o - r)
    return ::testing::AssertionFailure() << "not a midpoint: exact " << ex.decimal << ", RN " << ex.hex;
  x.push_back(-twice_residual);  // and the residual is exactly that (nothing below it)
  y.push_back(1.0);
  if (accsum::exact_dot(x.data(), y.data(), (int64_t)x.size()).rounded != 0)
    return ::testing::AssertionFailure() << "residual is not exactly half an ulp";
  return ::testing::AssertionSuccess();
}
}  // namespace

TEST(DatasetsTies, ExactResultIsHalfwayBetweenTwoDoubles) {
  int away = 0, toward_zero = 0;
  for (const auto& family : kFamilies)
    for (uint64_t seed = 1; seed <= 8; ++seed)
      for (int64_t n : {2, 3, 10, 1001}) {
        Dataset d = accsum::generate(spec_of("ties", family, n, seed));
        bool rounded_away = false;
        EXPECT_TRUE(is_midpoint(d, rounded_away)) << family << " seed " << seed << " n " << n;
        (rounded_away ? away : toward_zero)++;
        accsum::ExactValue ex = exact_of(d);
        const double r = std::fabs(ex.rounded);
        if (accsum::gen::ties_low_variant(seed)) {
          if (has_y(family)) {
            EXPECT_LT(r, DBL_MIN) << "a tie between two subnormals";
          } else {
            EXPECT_TRUE(r >= 0x1p-1021 && r <= 0x1p-1020) << "the lowest binade with ties: " << ex.hex;
          }
        } else {
          EXPECT_GT(r, 0x1p-260);
        }
      }
  // Round-half-even: RN differs from round-toward-zero for about half of the ties.
  EXPECT_GT(away, 10);
  EXPECT_GT(toward_zero, 10);
}

TEST(DatasetsTies, NaiveSumMissesTheTieWithCancellingPairs) {
  // Pairs much larger than the tie make a plain left-to-right sum lose the half-ulp piece.
  int wrong = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Dataset d = accsum::generate(spec_of("ties", "sum", 1000, seed));
    double s = 0;
    for (double v : d.x) s += v;
    wrong += s != exact_of(d).rounded;
  }
  EXPECT_GT(wrong, 3);
}

// ---------------------------------------------------------------- overflow-cancel

TEST(DatasetsOverflowCancel, ExactSumFiniteWhileNaiveSumOverflows) {
  for (const auto& family : kFamilies)
    for (int64_t n : {2, 3, 16, 1000}) {
      Dataset d = accsum::generate(spec_of("overflow-cancel", family, n, 2));
      accsum::ExactValue ex = exact_of(d);
      ASSERT_FALSE(ex.special);
      EXPECT_TRUE(std::isfinite(ex.rounded)) << family << " n " << n;
      EXPECT_LT(std::fabs(ex.rounded), 0x1p20 * n) << "small compared to the terms";
      double biggest = 0, naive = 0;
      for (int64_t i = 0; i < n; ++i) {
        double term = has_y(family) ? d.x[i] * d.y[i] : d.x[i];
        ASSERT_TRUE(std::isfinite(term));
        biggest = std::max(biggest, std::fabs(term));
        naive += term;
      }
      EXPECT_GE(biggest, has_y(family) ? 0x1p1022 : 0x1p1023) << family << " n " << n;
      if (n == 1000) {
        EXPECT_FALSE(std::isfinite(naive)) << family;
      }
    }
}

// ---------------------------------------------------------------- specials

TEST(DatasetsSpecials, ContainWhatTheSeedClaimsAndTheOracleAgrees) {
  using namespace accsum::gen;
  for (const auto& family : kFamilies)
    for (uint64_t seed = 0; seed < 12; ++seed) {
      Dataset d = accsum::generate(spec_of("specials", family, 200, seed));
      const unsigned mask = specials_mask(seed);
      bool has_nan = false, has_pinf = false, has_ninf = false, has_pzero = false, has_nzero = false;
      for (int64_t i = 0; i < d.n; ++i) {
        double t = has_y(family) ? d.x[i] * d.y[i] : d.x[i];
        has_nan |= std::isnan(t);
        has_pinf |= t == INFINITY;
        has_ninf |= t == -INFINITY;
        has_pzero |= t == 0 && !std::signbit(t);
        has_nzero |= t == 0 && std::signbit(t);
      }
      EXPECT_EQ(has_nan, bool(mask >> kNaN & 1)) << family << " seed " << seed;
      EXPECT_EQ(has_pinf, bool(mask >> kPosInf & 1)) << family << " seed " << seed;
      EXPECT_EQ(has_ninf, bool(mask >> kNegInf & 1)) << family << " seed " << seed;
      EXPECT_TRUE(has_pzero && has_nzero) << family << " seed " << seed;
      // IEEE 754 (the IEEE 754 rules in the README): NaN, or +inf with -inf, gives NaN; one infinity wins.
      double r = exact_of(d).rounded;
      if (has_nan || (has_pinf && has_ninf))
        EXPECT_TRUE(std::isnan(r));
      else if (has_pinf)
        EXPECT_EQ(r, INFINITY);
      else if (has_ninf)
        EXPECT_EQ(r, -INFINITY);
      else
        EXPECT_TRUE(std::isfinite(r));
    }
}

// ---------------------------------------------------------------- subnormal

TEST(DatasetsSubnormal, MostlySubnormalWithTinyNormalsAndBothSigns) {
  for (const auto& family : kFamilies) {
    Dataset d = accsum::generate(spec_of("subnormal", family, 10000, 8));
    int sub = 0, negative = 0;
    std::set<int> binades;
    for (double v : d.x) {
      ASSERT_TRUE(v != 0 && std::fabs(v) < 0x1p-1000);
      sub += std::fabs(v) < DBL_MIN;
      negative += v < 0;
      binades.insert(std::ilogb(v));
    }
    EXPECT_NEAR(sub, 7500, 300);
    EXPECT_NEAR(negative, 5000, 300);
    EXPECT_GT(binades.size(), 60u) << "subnormal binades and tiny normals";
    accsum::ExactValue ex = exact_of(d);
    EXPECT_TRUE(std::isfinite(ex.rounded) && std::fabs(ex.rounded) < 0x1p-990);
  }
}
