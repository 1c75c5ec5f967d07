// dpsumk / dpdotk on cpu (the serial definitions) and cpu-mt, against the exact oracle: every
// distribution, ill-conditioned data up to cond 1e300, special values, small and odd n; the
// proven bound always holds; the K-fold shape; cpu-mt gives the serial bits for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/exact_of.hpp"
#include "tests/same_bits.hpp"
#include "families/sum_dot/dpsum.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"

#include "tests/dataset_util.hpp"
#include "tests/special_values.hpp"

namespace accsum {
namespace {

using accsum::test::same_bits;

using accsum::test::kInf;
using accsum::test::kNaN;

struct Case {
  std::string algo;  // dpsumk or dpdotk
  int K;
  std::string variant, twoprod;
  Params params() const {
    Params p{{"K", std::to_string(K)}, {"variant", variant}};
    if (algo == "dpdotk") p["twoprod"] = twoprod;
    return p;
  }
  std::string name() const { return algo + " K=" + std::to_string(K) + " " + variant + " " + twoprod; }
};

// Runs (algo, backend) through the registry, exactly as the CLI does.
double run_algo(const std::string& backend, const Case& c, const Dataset& d, Params extra = {}) {
  const AlgoEntry* e = registry().find(c.algo, backend);
  if (!e) throw std::runtime_error("not registered: " + c.algo + "/" + backend);
  Params user = c.params();
  for (auto& [k, v] : extra) user[k] = v;
  auto kernel = e->make(d.problem(), registry().resolve_params(*e, user));
  return kernel->run_scalar();
}

using test::exact_of;

Metrics check(const std::string& backend, const Case& c, const Dataset& d, const ExactValue& ex) {
  const AlgoEntry* e = registry().find(c.algo, backend);
  Params p = registry().resolve_params(*e, c.params());
  return measure(run_algo(backend, c, d), ex, proven_bound(*e, p, ex.facts));
}

using test::from;
using test::make;

std::vector<Case> all_cases(std::vector<int> Ks = {2, 3, 4}) {
  std::vector<Case> cs;
  for (int K : Ks)
    for (const char* v : {"tree", "fused"}) {
      cs.push_back({"dpsumk", K, v, ""});
      cs.push_back({"dpdotk", K, v, "fma"});
      cs.push_back({"dpdotk", K, v, "dekker"});
    }
  return cs;
}

// ---- the serial definitions ----

TEST(DpSumKSerial, DpSumPassKeepsTheExactSum) {
  std::mt19937_64 rng(7);
  for (int64_t n : {2, 3, 5, 8, 13, 100, 1023, 1025}) {
    std::vector<double> x(n);
    for (auto& v : x) v = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), int(rng() % 200) - 100);
    std::vector<double> p = x;
    for (int pass = 0; pass < 3; ++pass) {
      dp_sum_pass(p.data(), n);
      std::vector<double> both = p;  // sum(p) - sum(x) must be exactly 0
      for (double v : x) both.push_back(-v);
      EXPECT_EQ(exact_sum(both.data(), 2 * n).rounded, 0.0) << "n=" << n << " pass " << pass;
    }
    // After a pass, p[0] is the pairwise floating-point sum (the paper's DPRed on the input).
    std::vector<double> q = x;
    EXPECT_PRED2(same_bits, dp_red(q.data(), n), [&] {
      std::vector<double> r = x;
      dp_sum_pass(r.data(), n);
      return r[0];
    }());
  }
}

TEST(DpSumKSerial, TreePairsAreThePapers) {
  // n = 8 by hand (Suzuki, Fig. 1): level 0 (0,1)(2,3)(4,5)(6,7), level 1 (0,2)(4,6), level 2 (0,4).
  std::vector<double> p = {1, 0x1p-60, 1, 0x1p-60, 0x1p60, 1, -0x1p60, 3};
  dp_sum_pass(p.data(), 8);
  std::vector<double> r = {1, 0x1p-60, 1, 0x1p-60, 0x1p60, 1, -0x1p60, 3};
  auto ts = [&](int a, int b) {
    double s, e;
    two_sum(r[a], r[b], s, e);
    r[a] = s;
    r[b] = e;
  };
  ts(0, 1), ts(2, 3), ts(4, 5), ts(6, 7), ts(0, 2), ts(4, 6), ts(0, 4);
  for (int i = 0; i < 8; ++i) EXPECT_PRED2(same_bits, p[i], r[i]) << i;
  EXPECT_EQ(p[0], 2.0);         // 1 + 1 + 2^60 - 2^60, the small terms left in p[1..7]
  EXPECT_EQ(p[5] + p[7], 4.0);  // the 1 and 3 absorbed by +-2^60 sit where the paper puts errors
}

TEST(DpSumKSerial, EmptyOneAndSignedZeros) {
  for (const Case& c : all_cases()) {
    bool dot = c.algo == "dpdotk";
    auto d0 = from({}, {});
    d0.family = dot ? "dot" : "sum";
    EXPECT_PRED2(same_bits, run_algo("cpu", c, d0), 0.0) << c.name();
    auto d1 = dot ? from({3.0}, {0.1}) : from({0.1});
    double want1 = dot ? exact_dot(d1.x.data(), d1.y.data(), 1).rounded : 0.1;
    EXPECT_PRED2(same_bits, run_algo("cpu", c, d1), want1) << c.name();
    auto dz = dot ? from({-0.0, 0.0, -0.0}, {1.0, -1.0, 2.0}) : from({-0.0, -0.0, -0.0});
    EXPECT_PRED2(same_bits, run_algo("cpu", c, dz), -0.0) << c.name();
    auto dp = dot ? from({-0.0, 0.0}, {1.0, 1.0}) : from({-0.0, 0.0, -0.0});
    EXPECT_PRED2(same_bits, run_algo("cpu", c, dp), 0.0) << c.name();
    auto dc = dot ? from({1.5, -1.5}, {2.0, 2.0}) : from({1.5, -1.5});  // exact cancellation: +0
    EXPECT_PRED2(same_bits, run_algo("cpu", c, dc), 0.0) << c.name();
  }
}

TEST(DpSumKSerial, SpecialValuesFollowIeee) {
  const auto cases = test::special_sums();
  for (const Case& c : all_cases({2, 3, 5})) {
    for (auto& s : cases) {
      Dataset d = c.algo == "dpdotk" ? from(s.x, std::vector<double>(s.x.size(), 1.0)) : from(s.x);
      EXPECT_PRED2(same_bits, run_algo("cpu", c, d), s.want) << c.name() << " n=" << s.x.size();
    }
  }
}

TEST(DpSumKSerial, WithinBoundOnEveryDistribution) {
  int checked = 0;
  test::for_each_dist({1, 2, 3, 7, 64, 1000, 4097}, 1e20, 11,
                      [&](const std::string& dist, bool dot, int64_t n, const Dataset& d) {
                        ExactValue ex = exact_of(d);
                        for (const Case& c : all_cases({2, 3, 4, 7})) {
                          if ((c.algo == "dpdotk") != dot) continue;
                          Metrics m = check("cpu", c, d, ex);
                          EXPECT_TRUE(!m.has_bound || m.within_bound)
                              << dist << " n=" << n << " " << c.name() << " err " << m.abs_err << " bound " << m.bound;
                          if (ex.special) {
                            EXPECT_TRUE(m.correctly_rounded) << dist << " n=" << n << " " << c.name();
                          }
                          ++checked;
                        }
                      });
  EXPECT_GT(checked, 500);
}

TEST(DpSumKSerial, WithinBoundIllConditionedUpTo1e300) {
  for (bool dot : {false, true})
    for (double cond : {1.0, 1e8, 1e16, 1e24, 1e32, 1e48, 1e64, 1e100, 1e200, 1e300}) {
      Dataset d = make("illcond", dot, 3000, cond, 5);
      ExactValue ex = exact_of(d);
      for (const Case& c : all_cases({2, 3, 4, 6, 20})) {
        if ((c.algo == "dpdotk") != dot) continue;
        Metrics m = check("cpu", c, d, ex);
        EXPECT_TRUE(m.within_bound) << "cond " << cond << " " << c.name() << " err " << m.abs_err << " bound "
                                    << m.bound;
      }
    }
}

// Relative error ~ u + cond u^K: full accuracy up to cond ~ 1e(16(K-1)), nothing left at ~1e(16K).
TEST(DpSumKSerial, KFoldShape) {
  struct Want {
    int K;
    double cond;
    bool accurate;  // >= 15 correct digits, else < 3
  };
  const std::vector<Want> wants = {{2, 1e10, true}, {2, 1e14, true},  {2, 1e40, false}, {3, 1e25, true},
                                   {3, 1e30, true}, {3, 1e60, false}, {4, 1e40, true},  {4, 1e80, false}};
  for (bool dot : {false, true})
    for (const Want& w : wants)
      for (uint64_t seed : {1, 2}) {
        Dataset d = make("illcond", dot, 2000, w.cond, seed);
        ExactValue ex = exact_of(d);
        for (const char* v : {"tree", "fused"}) {
          Case c{dot ? "dpdotk" : "dpsumk", w.K, v, "fma"};
          Metrics m = check("cpu", c, d, ex);
          if (w.accurate)
            EXPECT_GE(m.digits, 15.0) << c.name() << " cond " << w.cond << " cond(data) " << ex.cond;
          else
            EXPECT_LT(m.digits, 3.0) << c.name() << " cond " << w.cond << " cond(data) " << ex.cond;
        }
      }
}

// Large K on small, brutally cancelling data. fused adds the leading term last (as ORO's SumK),
// so its result is the rounded exact sum. The paper's tree is not, for any K: DPRed adds the
// leading term at the bottom of its tree, each level may round it again (the fixed point of
// DPSum has every error below half an ulp of its partner, not their sum), so it stays within
// ~log2(n) ulps: the first-order term gamma_{log2 n} of its bound.
TEST(DpSumKSerial, LargeKFusedIsCorrectlyRoundedTreeWithinLogNUlps) {
  std::mt19937_64 rng(3);
  int tree_off = 0;
  for (int rep = 0; rep < 40; ++rep) {
    int64_t n = 2 + rng() % 60;
    std::vector<double> x(n), y(n);
    for (auto& v : x) v = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), int(rng() % 1200) - 600);
    for (auto& v : y) v = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), int(rng() % 600) - 300);
    Dataset ds = from(x), dd = from(x, y);
    ExactValue es = exact_of(ds), ed = exact_of(dd);
    EXPECT_TRUE(measure(run_algo("cpu", {"dpsumk", 64, "fused", ""}, ds), es).correctly_rounded) << rep;
    EXPECT_TRUE(measure(run_algo("cpu", {"dpdotk", 40, "fused", "fma"}, dd), ed).correctly_rounded) << rep;
    Metrics ts = measure(run_algo("cpu", {"dpsumk", 64, "tree", ""}, ds), es);
    Metrics td = measure(run_algo("cpu", {"dpdotk", 40, "tree", "fma"}, dd), ed);
    EXPECT_LE(ts.ulps, ceil_log2(n)) << rep;
    EXPECT_LE(td.ulps, ceil_log2(2 * n)) << rep;
    tree_off += !ts.correctly_rounded + !td.correctly_rounded;
  }
  EXPECT_GT(tree_off, 0);  // the tree's first-order term is real, not an artefact of the proof
}

// two_sum_ordered (FastTwoSum after ordering, used by the CUDA fused kernel) is TwoSum for finite
// data, up to the sign of a zero error; the fused results are then the same bits everywhere.
TEST(DpSumKSerial, OrderedTwoSumGivesTheSameBits) {
  std::mt19937_64 rng(11);
  auto rnd = [&] {
    double v = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), int(rng() % 2090) - 1075);
    return rng() % 8 == 0 ? std::nextafter(v, 0.0) * 0x1p-1000 : v;  // some subnormals
  };
  for (int i = 0; i < 200000; ++i) {
    double a = rnd(), b = i % 3 ? rnd() : std::ldexp(a, int(rng() % 120) - 60);
    if (i % 7 == 0) b = -a;
    if (!std::isfinite(a + b)) continue;  // finite data only (no overflow): the transforms' domain
    double s1, e1, s2, e2;
    two_sum(a, b, s1, e1);
    two_sum_ordered(a, b, s2, e2);
    ASSERT_PRED2(same_bits, s1, s2) << a << " " << b;
    ASSERT_EQ(e1, e2) << a << " " << b;  // equal values (a zero error may differ in sign)
  }
  int compared = 0;
  test::for_each_dist(
      {2, 3, 17, 1000, 4099}, 1e25, 7, [&](const std::string& dist, bool dot, int64_t n, const Dataset& d) {
        for (int K : {2, 3, 4, 9}) {
          if (dot) {
            for (bool dk : {false, true})
              EXPECT_PRED2(same_bits, (dpdotk_fused<true>(d.x.data(), d.y.data(), n, K, dk)),
                           (dpdotk_fused<false>(d.x.data(), d.y.data(), n, K, dk)))
                  << dist << " n=" << n << " K=" << K;
          } else {
            EXPECT_PRED2(same_bits, dpsumk_fused<true>(d.x.data(), n, K), dpsumk_fused<false>(d.x.data(), n, K))
                << dist << " n=" << n << " K=" << K;
          }
          ++compared;
        }
      });
  for (auto x : std::vector<std::vector<double>>{{-0.0, -0.0}, {0.0, -0.0}, {1.0, -1.0, -0.0}, {-0.0, 2.0, -2.0}})
    for (int K : {2, 3, 5}) {
      auto n = static_cast<int64_t>(x.size());
      EXPECT_PRED2(same_bits, dpsumk_fused<true>(x.data(), n, K), dpsumk_fused<false>(x.data(), n, K));
      EXPECT_PRED2(same_bits, dpsumk_fused<true>(x.data(), n, K), exact_sum(x.data(), n).rounded) << K;
    }
  EXPECT_GT(compared, 300);
}

TEST(DpSumKSerial, FusedShape) {
  EXPECT_EQ(fused_lanes(1), 1);
  EXPECT_EQ(fused_lanes(int64_t(1) << 28), kFusedMaxLanes);
  EXPECT_EQ(fused_lane_elems(int64_t(1) << 28), 1024);
  for (int64_t n : {1, 2, 15, 16, 17, 1000, 65537, 1 << 22, (1 << 22) + 3}) {
    int64_t G = fused_lanes(n);
    EXPECT_EQ(G & (G - 1), 0) << n;  // a power of two: the lane tree is the pairwise tree
    // No lane takes more than fused_lane_elems (the bound's m), and that is tight to one element.
    std::vector<int64_t> count(G, 0);
    for (int64_t i = 0; i < n; ++i) ++count[(i / kFusedVec) % G];
    int64_t most = *std::max_element(count.begin(), count.end());
    EXPECT_LE(most, fused_lane_elems(n)) << n;
    EXPECT_GE(most + 1, fused_lane_elems(n)) << n;
  }
}

TEST(DpSumKSerial, BoundHasTheKFoldForm) {
  const double u = 0x1p-53;
  // fused K = 2: u|s| + (1+u) g^2 S with g = gamma_D, D = m + 2 (log2 G + 1).
  int64_t n = int64_t(1) << 28;
  double D = 1024 + 2 * 19, g = D * u / (1 - D * u);
  double b = dp_bound(false, DpVariant::fused, 2, n, 1.0, 1e10);
  EXPECT_NEAR(b, u + g * g * 1e10, 1e-6 * b);
  // tree K = 2: g (|s| + 2 g S), g = gamma_28.
  double gt = 28 * u / (1 - 28 * u);
  EXPECT_NEAR(dp_bound(false, DpVariant::tree, 2, n, 1.0, 1e10), gt * (1 + 2 * gt * 1e10), 1e-6 * gt);
  // Each extra K buys a factor of about 2 gamma on the S term.
  double b3 = dp_bound(false, DpVariant::tree, 3, n, 0.0, 1.0), b4 = dp_bound(false, DpVariant::tree, 4, n, 0.0, 1.0);
  EXPECT_NEAR(b4 / b3, 2 * gt, 1e-3 * gt);
  EXPECT_EQ(dp_bound(false, DpVariant::fused, 2, 1000, 1.0, 0x1p1022), std::numeric_limits<double>::infinity());
  EXPECT_EQ(dp_bound(true, DpVariant::tree, 3, 0, 0.0, 0.0), 0.0);
}

TEST(DpSumKSerial, BadParametersAreUsageErrors) {
  const AlgoEntry* e = registry().find("dpsumk", "cpu");
  ASSERT_NE(e, nullptr);
  EXPECT_THROW(registry().resolve_params(*e, {{"K", "1"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*e, {{"K", "65"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*e, {{"variant", "bushy"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*e, {{"twoprod", "fma"}}), UsageError);  // sums have none
  const AlgoEntry* d = registry().find("dpdotk", "cpu");
  ASSERT_NE(d, nullptr);
  EXPECT_THROW(registry().resolve_params(*d, {{"twoprod", "karatsuba"}}), UsageError);
  Params p = registry().resolve_params(*d, {});
  EXPECT_EQ(p["K"], "2");
  EXPECT_EQ(p["variant"], "fused");
  EXPECT_EQ(p["twoprod"], "fma");
}

// ---- cpu-mt: the serial bits for any thread count ----

TEST(DpSumKMt, SameBitsAsSerialForAnyThreadCount) {
  test::for_each_threading_case([](const std::string& dist, bool dot, int64_t n, const Dataset& d) {
    for (const Case& c : all_cases({2, 3, 5})) {
      if ((c.algo == "dpdotk") != dot) continue;
      double want = run_algo("cpu", c, d);
      for (int t : {1, 2, 3, 7})
        EXPECT_PRED2(same_bits, run_algo("cpu-mt", c, d, {{"threads", std::to_string(t)}}), want)
            << dist << " n=" << n << " " << c.name() << " threads " << t;
    }
  });
}

TEST(DpSumKMt, WithinBoundAndRegistered) {
  const AlgoEntry* e = registry().find("dpsumk", "cpu-mt");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->guarantee, Guarantee::kfold);
  ASSERT_TRUE(e->shape_variants);
  EXPECT_GE(e->shape_variants(registry().resolve_params(*e, {})).size(), 3u);
  Dataset d = make("illcond", false, 200000, 1e40, 9);
  ExactValue ex = exact_of(d);
  for (int K : {3, 4}) {
    Metrics m = check("cpu-mt", {"dpsumk", K, "fused", ""}, d, ex);
    EXPECT_TRUE(m.within_bound) << K;
  }
}

}  // namespace
}  // namespace accsum
