// fpe-sum / fpe-dot (families/sum_dot/fpe_sum.hpp) on cpu (the serial definition) and cpu-mt, and on CUDA
// where a device is present: against the exact oracle on every distribution (cancellation, huge
// ranges, ill-conditioned, subnormals, special values), n = 0, 1, signed zeros; the proven bound
// always holds; the R = 2 step written without its zero operations equals Algorithm 1 +
// Renormalize, and so does the R = 2 step with Fast2Sum (each Fast2Sum checked against 2Sum on
// adversarial lanes); the parallel backends give the serial bits; and R = 2 against dpsumk K = 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/exact_of.hpp"
#include "tests/same_bits.hpp"
#include "families/sum_dot/dpsum.hpp"
#include "core/numerics/fpe_step.hpp"
#include "core/numerics/fpe_step_r2.hpp"
#include "families/sum_dot/fpe_sum.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "tests/backend_present.hpp"
#include "datasets/dataset.hpp"

#include "tests/dataset_util.hpp"
#include "tests/special_values.hpp"

namespace accsum {
namespace {

using accsum::test::same_bits;

using accsum::test::kInf;
using accsum::test::kNaN;
const std::vector<int> kAllR = {2, 4, 8, 16, 32};

using test::backend_present;

const char* algo_of(bool dot) { return dot ? "fpe-dot" : "fpe-sum"; }

double run(const std::string& backend, const Dataset& d, int R, Params extra = {}) {
  const AlgoEntry* e = registry().find(algo_of(!d.y.empty()), backend);
  if (!e) throw std::runtime_error(std::string("not registered on ") + backend);
  extra["terms"] = std::to_string(R);
  auto k = e->make(d.problem(), registry().resolve_params(*e, extra));
  return k->run_scalar();
}

using test::exact_of;

Metrics check(const std::string& backend, const Dataset& d, int R, const ExactValue& ex) {
  const AlgoEntry* e = registry().find(algo_of(!d.y.empty()), backend);
  Params p = registry().resolve_params(*e, {{"terms", std::to_string(R)}});
  return measure(run(backend, d, R), ex, proven_bound(*e, p, ex.facts));
}

using test::from;
using test::make;

TEST(FpeSumSerial, TheR2StepIsAlgorithm1PlusRenormalize) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-80, 80);
  auto draw = [&] { return std::ldexp(mant(rng), ex(rng)); };
  for (int trial = 0; trial < 200000; ++trial) {
    double a[2] = {0, 0}, b[2] = {0, 0}, c[2], d[2];
    two_sum(draw(), draw(), a[0], a[1]);  // a 2Sum pair: what a lane holds
    if (trial % 5 == 0) a[0] = a[1] = 0.0;
    double x = trial % 7 == 0 ? -a[0] : draw(), y = draw();
    double h, t;
    fpe_acc_product(x, y, h, t);
    std::memcpy(b, a, sizeof a);
    std::memcpy(c, a, sizeof a);
    std::memcpy(d, a, sizeof a);
    fpe_acc_add_terms<2>(a, 2, &x, 1);
    fpe_acc_add2_sum(b, x);
    ASSERT_EQ(a[0], b[0]) << trial;
    ASSERT_EQ(a[1], b[1]) << trial;
    const double ht[2] = {h, t};
    fpe_acc_add_terms<2>(c, 2, ht, 2);
    fpe_acc_add2_dot<TwoSumOrdered>(d, h, t);
    ASSERT_EQ(c[0], d[0]) << trial;
    ASSERT_EQ(c[1], d[1]) << trial;
  }
}

// The R = 2 step with Fast2Sum (core/numerics/fpe_step_r2.hpp) on scalars, each Fast2Sum also done as
// 2Sum: they must give the same pair (the proof's claim), and the step the values of the definition's
// R = 2 step, on lanes driven towards the proof's edge cases: elements cancelling a0 exactly, to
// within a few ulps, at Sterbenz's bounds a0/2 and 2a0, of the size of a1; products whose high part
// cancels a0 and whose low part is then as large as what is left; subnormals; exponents over the
// whole range.
struct CheckedFastOps {
  using V = double;
  static inline int64_t fast_calls = 0, fast_wrong = 0;
  static void two_sum(V a, V b, V& s, V& e) { accsum::two_sum(a, b, s, e); }
  static V add(V a, V b) { return a + b; }
  static void fast_two_sum(V a, V b, V& s, V& e) {
    double s2, e2;
    accsum::fast_two_sum(a, b, s, e);
    accsum::two_sum(a, b, s2, e2);
    ++fast_calls;
    if (!(s == s2 && e == e2)) ++fast_wrong;
  }
};

TEST(FpeSumSerial, FastTwoSumR2StepIsTheR2Step) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  auto sgn = [&] { return rng() % 2 ? 1.0 : -1.0; };
  auto draw = [&](int lo, int hi) {
    return sgn() * std::ldexp(mant(rng), lo + static_cast<int>(rng() % (hi - lo + 1)));
  };
  auto ulps = [&](double v, int k) {  // v moved by k ulps
    for (int i = 0; i < std::abs(k); ++i) v = std::nextafter(v, k > 0 ? kInf : -kInf);
    return v;
  };
  // An element meant to stress the lane (a0, a1).
  auto element = [&](const double* a) {
    const double a0 = a[0], a1 = a[1];
    switch (rng() % 12) {
      case 0:
        return -a0;
      case 1:
        return ulps(-a0, static_cast<int>(rng() % 9) - 4);
      case 2:
        return ulps(-a0 / 2, static_cast<int>(rng() % 5) - 2);
      case 3:
        return ulps(-2 * a0, static_cast<int>(rng() % 5) - 2);
      case 4:
        return a1 == 0.0 ? draw(-60, 60) : ulps(-a1 * (1 + rng() % 4), static_cast<int>(rng() % 3) - 1);
      case 5:
        return -a0 + (a1 == 0.0 ? 0.0 : ulps(a1, static_cast<int>(rng() % 3) - 1));
      case 6:
        return draw(-1074, -1020);  // subnormal and near it
      case 7:
        return draw(-1000, 1000);
      case 8:
        return a0 * std::ldexp(1.0, -52 - static_cast<int>(rng() % 4));  // the size of a1
      default:
        return draw(-60, 60);
    }
  };
  CheckedFastOps::fast_calls = CheckedFastOps::fast_wrong = 0;
  for (bool dot : {false, true}) {
    double a[2] = {0, 0}, b[2] = {0, 0};
    for (int trial = 0; trial < 400000; ++trial) {
      if (trial % 64 == 0) a[0] = a[1] = b[0] = b[1] = 0.0;
      if (trial % 64 == 1 && !dot) two_sum(draw(-60, 60), draw(-120, -100), a[0], a[1]), b[0] = a[0], b[1] = a[1];
      const double v = element(a);
      if (!std::isfinite(v)) continue;
      if (dot) {
        // h cancels v (as far as one product can) with a random low part.
        const double y = draw(-8, 8), x = v / y;
        double h, t;
        fpe_acc_product(x, y, h, t);
        if (!std::isfinite(h) || !std::isfinite(t)) continue;
        fpe_acc_add2_dot(a, h, t);
        fpe_step::step2_dot<CheckedFastOps>(b, h, t);
      } else {
        fpe_acc_add2_sum(a, v);
        fpe_step::step2_sum<CheckedFastOps>(b, v);
      }
      if (!std::isfinite(a[0]) || std::fabs(a[0]) > 0x1p1000) a[0] = a[1] = b[0] = b[1] = 0.0;
      ASSERT_TRUE(a[0] == b[0] && a[1] == b[1])
          << "dot " << dot << " trial " << trial << ": " << a[0] << " " << a[1] << " vs " << b[0] << " " << b[1];
    }
  }
  EXPECT_EQ(CheckedFastOps::fast_wrong, 0) << "of " << CheckedFastOps::fast_calls;
  EXPECT_GT(CheckedFastOps::fast_calls, 1000000);
}

// The step unrolled for R (core/numerics/fpe_step.hpp: zero operations left out, both 2Sums) gives the
// values of Algorithm 1 + Renormalize for an element, a product, a batch of raw values and a lane merge, on
// accumulators holding 1 .. R terms, after cancellation, with zero and tiny inputs.
template <int R, class O>
void expect_unrolled_step_is_readable(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-300, 300);
  auto draw = [&] { return rng() % 11 == 0 ? 0.0 : std::ldexp(mant(rng), ex(rng)); };
  double a[R] = {}, b[R] = {};
  for (int trial = 0; trial < 30000; ++trial) {
    if (trial % 500 == 0) std::fill(a, a + R, 0.0), std::fill(b, b + R, 0.0);
    const double x = trial % 7 == 0 && trial % 4 == 0 ? -a[0] : draw(), y = draw();  // -a[0]: cancellation (case 0)
    switch (trial % 4) {
      case 3: {  // a batch: R raw values (overlapping, zeros, a short batch's zero tail)
        double c[R];
        const int k = 1 + static_cast<int>(rng() % R);
        for (int l = 0; l < R; ++l) c[l] = l >= k ? 0.0 : l == 1 && trial % 5 == 0 ? -c[0] : draw();
        fpe_acc_add_terms<R>(a, R, c, k);
        fpe_step::step<R, R, O>(b, c);
        break;
      }
      case 0: {
        fpe_acc_add_terms<R>(a, R, &x, 1);
        fpe_step::step<R, 1, O>(b, &x);
        break;
      }
      case 1: {
        double v[2];
        fpe_acc_product(x, y, v[0], v[1]);
        fpe_acc_add_terms<R>(a, R, v, 2);
        fpe_step::step<R, 2, O>(b, v);
        break;
      }
      default: {
        double c[R] = {};
        two_sum(draw(), draw(), c[0], c[1]);
        if (R > 2) two_sum(c[1], std::ldexp(draw(), -60), c[1], c[2]);
        fpe_acc_merge<R>(a, c, R);
        fpe_step::step<R, R, O>(b, c);
      }
    }
    for (int l = 0; l < R; ++l)  // equal values (the sign of a zero term may differ)
      ASSERT_TRUE(a[l] == b[l]) << "R=" << R << " trial " << trial << " term " << l << ": " << a[l] << " " << b[l];
  }
}

TEST(FpeSumSerial, UnrolledStepIsTheReadableStep) {
  expect_unrolled_step_is_readable<2, fpe_step::ScalarOps>(1);
  expect_unrolled_step_is_readable<4, fpe_step::ScalarOps>(2);
  expect_unrolled_step_is_readable<8, fpe_step::ScalarOps>(3);
  expect_unrolled_step_is_readable<4, fpe_step::ScalarOrderedOps>(4);
  expect_unrolled_step_is_readable<8, fpe_step::ScalarOrderedOps>(5);
}

TEST(FpeSumSerial, EmptyOneAndSignedZeros) {
  for (int R : kAllR)
    for (bool dot : {false, true}) {
      Dataset d0 = from({}, {});
      d0.family = dot ? "dot" : "sum";
      EXPECT_PRED2(same_bits, run("cpu", d0, R), 0.0) << R;
      Dataset d1 = dot ? from({3.0}, {0.1}) : from({0.1});
      EXPECT_PRED2(same_bits, run("cpu", d1, R), dot ? exact_dot(d1.x.data(), d1.y.data(), 1).rounded : 0.1) << R;
      Dataset dz = dot ? from({-0.0, 0.0, -0.0}, {1.0, -1.0, 2.0}) : from({-0.0, -0.0, -0.0});
      EXPECT_PRED2(same_bits, run("cpu", dz, R), -0.0) << R << " dot " << dot;
      Dataset dp = dot ? from({-0.0, 0.0}, {1.0, 1.0}) : from({-0.0, 0.0, -0.0});
      EXPECT_PRED2(same_bits, run("cpu", dp, R), 0.0) << R << " dot " << dot;
      Dataset dc = dot ? from({1.5, -1.5}, {2.0, 2.0}) : from({1.5, -1.5});
      EXPECT_PRED2(same_bits, run("cpu", dc, R), 0.0) << R << " dot " << dot;
    }
}

TEST(FpeSumSerial, SpecialValuesFollowIeee) {
  const auto cases = test::special_sums();
  for (int R : kAllR)
    for (auto& s : cases) {
      EXPECT_PRED2(same_bits, run("cpu", from(s.x), R), s.want) << R;
      EXPECT_PRED2(same_bits, run("cpu", from(s.x, std::vector<double>(s.x.size(), 1.0)), R), s.want) << R;
    }
}

// Cancellation the R-term accumulator represents exactly: 1e300, 1, -1e300 in one lane.
TEST(FpeSumSerial, WideCancellationIsExactForR4AndMore) {
  Dataset d = from({1e300, 1.0, 0x1p-600, -1e300, -1.0});  // three terms needed, then 2^-600 left
  for (int R : {4, 8, 16, 32}) EXPECT_EQ(run("cpu", d, R), 0x1p-600) << R;
  EXPECT_NE(run("cpu", d, 2), 0x1p-600);  // two terms cannot hold it
  Dataset e = from({0x1p100, 1.0, -0x1p100});
  for (int R : kAllR) EXPECT_EQ(run("cpu", e, R), 1.0) << R;
}

TEST(FpeSumSerial, WithinBoundOnEveryDistribution) {
  int checked = 0;
  test::for_each_dist({1, 2, 3, 7, 64, 1000, 4097}, 1e20, 11,
                      [&](const std::string& dist, bool, int64_t n, const Dataset& d) {
                        ExactValue ex = exact_of(d);
                        for (int R : {2, 4, 8}) {
                          Metrics m = check("cpu", d, R, ex);
                          EXPECT_TRUE(!m.has_bound || m.within_bound)
                              << dist << " n=" << n << " R=" << R << " err " << m.abs_err << " bound " << m.bound;
                          if (ex.special) {
                            EXPECT_TRUE(m.correctly_rounded) << dist << " n=" << n << " R=" << R;
                          }
                          ++checked;
                        }
                      });
  EXPECT_GT(checked, 300);
}

TEST(FpeSumSerial, WithinBoundIllConditionedUpTo1e300AndHugeRanges) {
  for (bool dot : {false, true})
    for (double cond : {1.0, 1e16, 1e32, 1e48, 1e100, 1e200, 1e300}) {
      Dataset d = make("illcond", dot, 3000, cond, 5);
      ExactValue ex = exact_of(d);
      for (int R : kAllR) {
        Metrics m = check("cpu", d, R, ex);
        EXPECT_TRUE(m.has_bound && m.within_bound)
            << "cond " << cond << " R=" << R << " dot " << dot << " err " << m.abs_err << " bound " << m.bound;
        // An R-term accumulator carries about 53R bits: correctly rounded when cond << 2^(50R).
        if (std::log2(cond) < 45.0 * R - 20) {
          EXPECT_TRUE(m.correctly_rounded) << "cond " << cond << " R=" << R << " dot " << dot;
        }
      }
    }
  Dataset wide = make("loguniform", false, 5000, 1e16, 3, 1e300);
  ExactValue ex = exact_of(wide);
  for (int R : kAllR) EXPECT_TRUE(check("cpu", wide, R, ex).within_bound) << R;
}

// The accuracy comparison with DPSumK K = 2 (both double-double accumulators) on data of
// condition number 1e20: both within their bounds, both far from the plain sum's error; fpe
// R = 2 keeps its expansion nonoverlapping, so its error stays near u|s| + u^2 cond; and
// R = 4 is correctly rounded where K = 2 is not.
TEST(FpeSumSerial, R2AgainstDpSumK2AtCond1e20) {
  for (bool dot : {false, true}) {
    Dataset d = make("illcond", dot, 100000, 1e20, 13);
    ExactValue ex = exact_of(d);
    const AlgoEntry* dp = registry().find(dot ? "dpdotk" : "dpsumk", "cpu");
    Params pp = registry().resolve_params(*dp, {{"K", "2"}});
    auto k = dp->make(d.problem(), pp);
    Metrics mdp = measure(k->run_scalar(), ex, proven_bound(*dp, pp, ex.facts));
    Metrics m2 = check("cpu", d, 2, ex), m4 = check("cpu", d, 4, ex);
    EXPECT_TRUE(mdp.within_bound && m2.within_bound && m4.within_bound) << dot;
    // Both lose about log10(cond) - 16 + a few digits at most; neither is off by more than 1e-8
    // relatively (u^2 cond ~ 1e-12).
    EXPECT_LT(m2.rel_err, 1e-8) << dot;
    EXPECT_LT(mdp.rel_err, 1e-8) << dot;
    // The expansion's bound is not looser than DPSumK's by more than a factor 16 here.
    EXPECT_LT(m2.bound, 16 * mdp.bound) << dot << " fpe " << m2.bound << " dpsumk " << mdp.bound;
    EXPECT_TRUE(m4.correctly_rounded) << dot;
  }
}

TEST(FpeSumSerial, BoundShapeAndDomain) {
  // The second-order term grows as gamma_T^R: R = 4 is far below R = 2.
  const double b2 = fpe_acc_bound(false, 2, 1 << 20, 0.0, 1.0), b4 = fpe_acc_bound(false, 4, 1 << 20, 0.0, 1.0);
  EXPECT_GT(b2, 0.0);
  EXPECT_LT(b2, 1e-25);
  EXPECT_LT(b4, b2 * 1e-20);
  EXPECT_EQ(fpe_acc_bound(false, 2, 0, 0.0, 0.0), 0.0);
  EXPECT_EQ(fpe_acc_bound(false, 2, 1000, 1.0, 0x1p1022), kInf);
  // u|s| is the first-order term.
  EXPECT_NEAR(fpe_acc_bound(false, 2, 1000, 1.0, 1.0), 0x1p-53, 0x1p-60);
  const AlgoEntry* e = registry().find("fpe-sum", "cpu");
  ASSERT_NE(e, nullptr);
  ExactFacts f;
  f.n = 10;
  f.sum_abs = 0x1p1021;
  EXPECT_NE(e->domain(registry().resolve_params(*e, {}), f), "");
  f.sum_abs = 1.0;
  EXPECT_EQ(e->domain(registry().resolve_params(*e, {}), f), "");
}

TEST(FpeSumSerial, BadParametersAreUsageErrors) {
  for (bool dot : {false, true}) {
    const AlgoEntry* e = registry().find(algo_of(dot), "cpu");
    ASSERT_NE(e, nullptr);
    EXPECT_THROW(registry().resolve_params(*e, {{"terms", "3"}}), UsageError);
    EXPECT_THROW(registry().resolve_params(*e, {{"terms", "64"}}), UsageError);
    EXPECT_EQ(registry().resolve_params(*e, {})["terms"], "2");
  }
}

// ---- cpu-mt: the serial bits for any thread count ----

TEST(FpeSumMt, SameBitsAsSerialForAnyThreadCount) {
  test::for_each_threading_case([](const std::string& dist, bool dot, int64_t n, const Dataset& d) {
    for (int R : {2, 4, 8}) {
      if (R > 2 && n > 50000) continue;  // the generic step is slow; R = 2 covers the shapes
      const double want = run("cpu", d, R);
      for (int t : {1, 2, 3, 7})
        EXPECT_PRED2(same_bits, run("cpu-mt", d, R, {{"threads", std::to_string(t)}}), want)
            << dist << " n=" << n << " R=" << R << " threads " << t << " dot " << dot;
    }
  });
}

// The vector lanes (4 lanes to an AVX2 register, blocks of 16 lanes, the scalar rest)
// on edge data placed at every slot of a block: signed zeros, subnormals, the largest doubles
// cancelling (partial sums overflow), infinities and NaN; n around the first sizes with 16 and 32
// lanes (n = 256, 512: tiles of one and two blocks) and odd sizes with a partial last round.
TEST(FpeSumMt, VectorLanesOnEdgeData) {
  const std::vector<double> edge = {
      -0.0, 0.0, 0x1p-1074, -0x1p-1060, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 1e308, -1e308, 0x1p-1022, 1.0};
  std::mt19937_64 rng(21);
  int compared = 0;
  for (int64_t n : {255, 256, 257, 511, 512, 513, 4099, 20001})
    for (int mode = 0; mode < 4; ++mode)  // 0 edge values mixed in, 1 plus inf, 2 plus NaN, 3 only zeros
      for (bool dot : {false, true}) {
        Dataset d = make("loguniform", dot, n, 1e16, 40 + n + mode);
        for (int64_t i = 0; i < n; ++i) {
          if (mode == 3)
            d.x[i] = (i % 3) ? -0.0 : 0.0;
          else if (rng() % 4 == 0)
            d.x[i] = edge[rng() % edge.size()];
        }
        if (mode == 1) d.x[rng() % n] = kInf;
        if (mode == 2) d.x[rng() % n] = kNaN;
        for (int R : {2, 4, 8}) {
          const double want = run("cpu", d, R);
          for (int t : {1, 2, 3})
            EXPECT_PRED2(same_bits, run("cpu-mt", d, R, {{"threads", std::to_string(t)}}), want)
                << "n=" << n << " mode " << mode << " R=" << R << " threads " << t << " dot " << dot;
          ++compared;
        }
      }
  EXPECT_EQ(compared, 8 * 4 * 2 * 3);
}

// R = 2 over more than one tile of lanes (8192 lanes a tile; n = 270001 gives 16384 lanes, split
// unevenly among 3 threads) on huge ranges, ill-conditioned data and lanes whose elements cancel
// the previous round's element of the same lane exactly or to within a few ulps.
TEST(FpeSumMt, R2AcrossTilesOnHugeRangesAndCancellation) {
  const int64_t n = 270001, G = fused_lanes(n);
  ASSERT_EQ(G, 16384);
  std::mt19937_64 rng(31);
  int compared = 0;
  for (bool dot : {false, true})
    for (int mode = 0; mode < 3; ++mode) {
      Dataset d = mode == 0   ? make("loguniform", dot, n, 1e16, 50, 1e300)
                  : mode == 1 ? make("illcond", dot, n, 1e300, 51)
                              : make("loguniform", dot, n, 1e16, 52, 1e200);
      if (mode == 2)
        for (int64_t i = kFusedVec * G; i < n; ++i) {
          const double prev = -d.x[i - kFusedVec * G];
          d.x[i] = rng() % 2 ? prev : std::nextafter(prev, rng() % 2 ? kInf : -kInf);
          if (dot) d.y[i] = d.y[i - kFusedVec * G];
        }
      const double want = run("cpu", d, 2);
      for (int t : {1, 2, 3}) {
        EXPECT_PRED2(same_bits, run("cpu-mt", d, 2, {{"threads", std::to_string(t)}}), want)
            << "mode " << mode << " threads " << t << " dot " << dot;
        ++compared;
      }
    }
  EXPECT_EQ(compared, 2 * 3 * 3);
}

// ---- CUDA (the same binary on a GPU machine; skipped here without a device) ----

TEST(FpeSumCuda, SameBitsAsSerialOnEveryDistribution) {
  if (!backend_present("cuda")) GTEST_SKIP() << "no cuda device here: cuda tests skipped";
  int compared = 0;
  const std::vector<int64_t> sizes = {1, 2, 3, 7, 64, 1000, 4097, 100003, (int64_t(1) << 20) + 7};
  test::for_each_dist(sizes, 1e30, 17, [&](const std::string& dist, bool dot, int64_t n, const Dataset& d) {
    for (int R : {2, 4, 8}) {
      if (R > 2 && n > 200000) continue;
      EXPECT_PRED2(same_bits, run("cuda", d, R), run("cpu-mt", d, R))
          << dist << " n=" << n << " R=" << R << " dot " << dot;
      ++compared;
    }
  });
  EXPECT_GT(compared, 100);
}

TEST(FpeSumCuda, HandCasesAndAllR) {
  if (!backend_present("cuda")) GTEST_SKIP() << "no cuda device here: cuda tests skipped";
  std::vector<std::vector<double>> xs = {
      {},           {-0.0},       {-0.0, -0.0, -0.0}, {1.5, -1.5}, {0.0, -0.0, 3.0, -3.0, -0.0},
      {1, kNaN, 2}, {kInf, 1, 2}, {kInf, -kInf, 1},   {0x1p-1074}, {1e308, -1e308, 1}};
  for (int R : kAllR)
    for (auto& x : xs) {
      EXPECT_PRED2(same_bits, run("cuda", from(x), R), run("cpu", from(x), R)) << R;
      Dataset dd = from(x, std::vector<double>(x.size(), -1.0));
      EXPECT_PRED2(same_bits, run("cuda", dd, R), run("cpu", dd, R)) << R << " dot";
    }
  Dataset big = make("illcond", true, 300001, 1e40, 23);
  ExactValue ex = exact_of(big);
  for (int R : kAllR) {
    Metrics m = check("cuda", big, R, ex);
    EXPECT_TRUE(m.within_bound) << R;
    EXPECT_PRED2(same_bits, m.value, run("cpu-mt", big, R)) << R;
  }
}

}  // namespace
}  // namespace accsum
