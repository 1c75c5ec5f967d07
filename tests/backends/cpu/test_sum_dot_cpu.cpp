// The cpu sum and dot algorithms and the cpu-mt plain baselines, judged by the exact oracle
// (core/oracle/oracle.hpp) through the registry, as `verify` runs them: every distribution of
// datasets/dataset.hpp, small and odd sizes, every proven bound held, the K-fold shape, IEEE
// special values, and the streamed SumK/DotK bitwise equal to Ogita-Rump-Oishi's vector form.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/dataset_util.hpp"
#include "tests/exact_of.hpp"
#include "tests/same_bits.hpp"
#include "core/frame/parallel.hpp"
#include "families/sum_dot/dot_serial.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_serial.hpp"
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

namespace {

using namespace accsum;

using accsum::test::same_bits;

// One algorithm on one backend with one parameter set.
struct Variant {
  std::string algo, backend;
  Params params;
  std::string name() const {
    std::string s = algo + "/" + backend;
    for (auto& [k, v] : params) s += " " + k + "=" + v;
    return s;
  }
};

std::vector<Variant> sum_variants() {
  std::vector<Variant> v = {
      {"naive", "cpu", {}}, {"pairwise", "cpu", {}}, {"kahan", "cpu", {}}, {"neumaier", "cpu", {}}, {"dcs", "cpu", {}}};
  for (int K : {2, 3, 4, 8}) v.push_back({"sumk", "cpu", {{"K", std::to_string(K)}}});
  for (int t : {1, 2, 3, 5}) v.push_back({"naive", "cpu-mt", {{"threads", std::to_string(t)}}});
  return v;
}

std::vector<Variant> dot_variants() {
  std::vector<Variant> v = {{"dot", "cpu", {}}};
  for (int K : {2, 3, 4, 8})
    for (const char* tp : {"fma", "dekker"}) v.push_back({"dotk", "cpu", {{"K", std::to_string(K)}, {"twoprod", tp}}});
  for (int t : {1, 2, 3, 5}) v.push_back({"dot", "cpu-mt", {{"threads", std::to_string(t)}}});
  return v;
}

struct Outcome {
  double value = 0;
  Metrics m;
  bool has_bound = false;
};

// Runs a variant on the data and measures it against ref with the entry's own bound.
Outcome run(const Variant& v, const Problem& p, const ExactValue& ref) {
  const AlgoEntry* e = registry().find(v.algo, v.backend);
  if (!e) throw std::runtime_error("not registered: " + v.name());
  Params prm = registry().resolve_params(*e, v.params);
  Outcome o;
  o.value = e->make(p, prm)->run_scalar();
  double bound = proven_bound(*e, prm, ref.facts);  // -1 outside the bound's domain
  o.has_bound = bound >= 0;
  o.m = measure(o.value, ref, bound);
  return o;
}

using test::exact_of;

// Every variant of the family on d: special results must be exactly IEEE's; finite ones within
// the variant's bound whenever it has one.
void check_all(const Dataset& d, const std::string& what) {
  const ExactValue ref = exact_of(d);
  const Problem p = d.problem();
  for (const Variant& v : test::has_y(d.family) ? dot_variants() : sum_variants()) {
    Outcome o = run(v, p, ref);
    SCOPED_TRACE(what + " " + v.name() + " value " + hex_double(o.value) + " exact " + ref.hex + " bound " +
                 hex_double(o.m.bound));
    if (ref.special || !std::isfinite(ref.rounded)) {
      EXPECT_TRUE(o.m.correctly_rounded);
      continue;
    }
    if (o.has_bound) {
      EXPECT_TRUE(o.m.within_bound) << "abs err " << o.m.abs_err;
    }
    if (ref.sum_abs == 0) {  // all terms (products) zero: the sign of zero is IEEE's
      EXPECT_TRUE(same_bits(o.value, ref.rounded));
    }
  }
}

Dataset make(const std::string& dist, const std::string& family, int64_t n, uint64_t seed, double range = 1e16,
             double cond = 1e16) {
  return generate(test::spec_of(dist, family, n, seed, range, cond));
}

// ---------------------------------------------------------------------------------------------

TEST(CpuSumDot, EveryAlgorithmOnEveryDistributionAndSize) {
  for (const std::string family : {"sum", "dot"})
    for (const std::string& dist : dist_names())
      for (int64_t n : {1, 2, 3, 17, 100, 1000, 4099}) {
        if (dist == "ties" && n < 2) continue;
        if (dist == "illcond" && n < 8) continue;  // GenSum / GenDot need a few terms
        for (uint64_t seed : {1, 2, 3, 4, 5, 6}) {
          if (dist != "specials" && seed > 2) continue;  // specials cycle through their kinds by seed
          check_all(make(dist, family, n, seed),
                    family + " " + dist + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
        }
      }
}

TEST(CpuSumDot, WideRangesAndConditionNumbers) {
  for (const std::string family : {"sum", "dot"}) {
    for (double range : {1.0, 1e16, 1e100, 1e200, 1e300})
      check_all(make("loguniform", family, 2000, 9, range), family + " loguniform range " + std::to_string(range));
    for (double cond : {1.0, 1e10, 1e20, 1e30, 1e60, 1e100, 1e200, 1e300})
      check_all(make("illcond", family, 2000, 9, 1e16, cond), family + " illcond cond " + std::to_string(cond));
  }
}

// ORO 2005 §1.2: "as if computed in K-fold working precision": with cond = 10^(16(K-1) - 6)
// the result still has all 15 digits; the plain sum has next to none there.
TEST(CpuSumDot, KFoldShape) {
  for (int K : {2, 3, 4, 8}) {
    const double cond = std::pow(10.0, std::min(300, 16 * (K - 1) - 6));
    Dataset s = make("illcond", "sum", 1000, 21 + K, 1e16, cond);
    ExactValue rs = exact_of(s);
    Outcome o = run({"sumk", "cpu", {{"K", std::to_string(K)}}}, s.problem(), rs);
    EXPECT_GE(o.m.digits, 15.0) << "sumk K=" << K << " cond " << cond;
    EXPECT_LE(run({"naive", "cpu", {}}, s.problem(), rs).m.digits, 9.0) << "cond " << cond;
    Dataset d = make("illcond", "dot", 1000, 31 + K, 1e16, cond);
    ExactValue rd = exact_of(d);
    for (const char* tp : {"fma", "dekker"}) {
      Outcome od = run({"dotk", "cpu", {{"K", std::to_string(K)}, {"twoprod", tp}}}, d.problem(), rd);
      EXPECT_GE(od.m.digits, 15.0) << "dotk K=" << K << " " << tp << " cond " << cond;
    }
  }
  // The brief's example, and K = 20 reaching cond 1e300.
  Dataset s = make("illcond", "sum", 1000, 5, 1e16, 1e10);
  EXPECT_GE(run({"sumk", "cpu", {{"K", "2"}}}, s.problem(), exact_of(s)).m.digits, 15.0);
  Dataset h = make("illcond", "sum", 1000, 6, 1e16, 1e300);
  ExactValue rh = exact_of(h);
  Outcome o20 = run({"sumk", "cpu", {{"K", "20"}}}, h.problem(), rh);
  EXPECT_GE(o20.m.digits, 15.0);
  EXPECT_TRUE(o20.m.within_bound);
}

TEST(CpuSumDot, EmptyInputIsPositiveZero) {
  const Problem empty = Problem::vectors(nullptr, nullptr, 0, next_dataset_id());
  const double none = 0;
  const Problem empty_dot = Problem::vectors(&none, &none, 0, next_dataset_id());
  for (const Variant& v : sum_variants()) {
    Outcome o = run(v, empty, exact_sum(nullptr, 0));
    EXPECT_TRUE(same_bits(o.value, 0.0)) << v.name();
  }
  for (const Variant& v : dot_variants()) {
    Outcome o = run(v, empty_dot, exact_dot(&none, &none, 0));
    EXPECT_TRUE(same_bits(o.value, 0.0)) << v.name();
  }
}

// IEEE 754 rules of the IEEE 754 rules in the README, hand-made, short and long (the long ones cross the cpu-mt lanes
// and thread chunks).
TEST(CpuSumDot, SpecialValuesFollowIeee) {
  const double inf = INFINITY, nan = NAN;
  struct Case {
    std::vector<double> x;
    double expect;
  };
  std::vector<Case> cases = {
      {{nan, 1.0}, nan},   {{1.0, nan, 2.0}, nan},     {{inf, 1.0, 2.0}, inf},
      {{1.0, -inf}, -inf}, {{inf, -inf}, nan},         {{inf, 5.0, inf}, inf},
      {{-0.0}, -0.0},      {{-0.0, -0.0, -0.0}, -0.0}, {{0.0, -0.0}, 0.0},
      {{-0.0, 0.0}, 0.0},  {{1.0, -1.0}, 0.0},         {{-1.0, 1.0, -0.0}, 0.0},
      {{0.0}, 0.0},        {{DBL_MAX, DBL_MAX}, inf},  {{-DBL_MAX, -DBL_MAX, -1.0}, -inf},
  };
  for (int pos : {0, 37, 999}) {  // long: the special among ordinary terms
    std::vector<double> x(1000, 0.25);
    x[pos] = inf;
    cases.push_back({x, inf});
    x[(pos + 500) % 1000] = -inf;
    cases.push_back({x, nan});
    std::vector<double> z(1000, -0.0);
    cases.push_back({z, -0.0});
    z[pos] = 0.0;
    cases.push_back({z, 0.0});
    std::vector<double> q(1000, 1.5);
    q[pos] = nan;
    cases.push_back({q, nan});
  }
  for (const Case& c : cases) {
    const Problem p = Problem::vectors(c.x.data(), nullptr, static_cast<int64_t>(c.x.size()), next_dataset_id());
    ExactValue ref = exact_sum(c.x.data(), p.n);
    ASSERT_TRUE(same_bits(ref.rounded, c.expect)) << "oracle disagrees with the test's expectation";
    for (const Variant& v : sum_variants()) {
      Outcome o = run(v, p, ref);
      EXPECT_TRUE(same_bits(o.value, c.expect))
          << v.name() << " n=" << c.x.size() << " got " << hex_double(o.value) << " want " << hex_double(c.expect);
    }
    // The same as a dot with y = 1 (x_i * 1 = x_i exactly, specials included).
    std::vector<double> ones(c.x.size(), 1.0);
    const Problem pd = Problem::vectors(c.x.data(), ones.data(), p.n, next_dataset_id());
    ExactValue refd = exact_dot(c.x.data(), ones.data(), p.n);
    for (const Variant& v : dot_variants()) {
      Outcome o = run(v, pd, refd);
      EXPECT_TRUE(same_bits(o.value, c.expect)) << v.name() << " n=" << c.x.size() << " got " << hex_double(o.value);
    }
  }
  // Dot-only rules: inf * 0 is NaN; a zero product's sign is the xor of the signs.
  struct DotCase {
    std::vector<double> x, y;
    double expect;
  };
  const std::vector<DotCase> dcases = {
      {{inf, 1.0}, {0.0, 1.0}, nan},  {{inf, 1.0}, {-2.0, 1.0}, -inf},
      {{-1.0}, {0.0}, -0.0},          {{-1.0, 2.0}, {0.0, -0.0}, -0.0},
      {{-1.0, 2.0}, {0.0, 0.0}, 0.0}, {{0x1p600, -0x1p600}, {0x1p600, 0x1p600}, nan}};  // inf + -inf
  for (const DotCase& c : dcases) {
    const Problem p = Problem::vectors(c.x.data(), c.y.data(), static_cast<int64_t>(c.x.size()), next_dataset_id());
    ExactValue ref = exact_dot(c.x.data(), c.y.data(), p.n);
    for (const Variant& v : dot_variants()) {
      Outcome o = run(v, p, ref);
      if (c.x[0] == 0x1p600) {  // products overflow: outside the domain, but IEEE's NaN all the same
        EXPECT_TRUE(std::isnan(o.value)) << v.name();
        continue;
      }
      EXPECT_TRUE(same_bits(o.value, c.expect)) << v.name() << " got " << hex_double(o.value);
      EXPECT_TRUE(o.m.correctly_rounded) << v.name();
    }
  }
}

// The streamed SumK / DotK (one read, no copy) are the vector algorithms of ORO 2005, bit for bit;
// Neumaier computes ORO's Sum2 = SumK with K = 2.
TEST(CpuSumDot, StreamedSumKAndDotKEqualTheVectorForm) {
  std::vector<Dataset> data;
  for (int64_t n : {1, 2, 3, 5, 17, 256, 1001}) {
    data.push_back(make("uniform-sym", "dot", n, 2));
    data.push_back(make("loguniform", "dot", n, 3, 1e200));
    data.push_back(make("ties", "dot", std::max<int64_t>(n, 2), 4));
    data.push_back(make("subnormal", "dot", n, 5));
    if (n >= 8)
      for (double c : {1e8, 1e40, 1e120}) data.push_back(make("illcond", "dot", n, 6, 1e16, c));
  }
  int nonzero = 0;
  for (const Dataset& d : data) {
    const double* x = d.x.data();
    const double* y = d.y.data();
    for (int K : {2, 3, 4, 5, 8, 17, 64}) {
      ASSERT_TRUE(same_bits(sum_k(x, d.n, K), sum_k_reference(x, d.n, K))) << d.generator << " n=" << d.n << " K=" << K;
      for (TwoProd tp : {TwoProd::fma, TwoProd::dekker})
        ASSERT_TRUE(same_bits(dot_k(x, y, d.n, K, tp), dot_k_reference(x, y, d.n, K, tp)))
            << d.generator << " n=" << d.n << " K=" << K;
    }
    double sum2 = sum_k(x, d.n, 2);
    if (sum2 != 0) {
      ++nonzero;
      EXPECT_TRUE(same_bits(sum_neumaier(x, d.n), sum2)) << d.generator << " n=" << d.n;
    }
  }
  EXPECT_GT(nonzero, 20);
}

TEST(CpuSumDot, PairwiseDepthMatchesTheRecursion) {
  // pairwise_depth(n) is what the bound uses: check it against the recursion's actual shape.
  std::function<int64_t(int64_t)> depth = [&](int64_t n) -> int64_t {
    if (n <= kPairwiseBase) return n > 0 ? n - 1 : 0;
    return 1 + std::max(depth(n / 2), depth(n - n / 2));
  };
  for (int64_t n = 0; n < 3000; ++n) ASSERT_EQ(pairwise_depth(n), depth(n)) << n;
  EXPECT_EQ(pairwise_depth(int64_t(1) << 24), 21 + 7);
}

TEST(CpuSumDot, CpuMtBaselinesAreBitwiseRepeatable) {
  for (const std::string family : {"sum", "dot"}) {
    Dataset d = make("loguniform", family, 300001, 8, 1e30);
    const bool dot = test::has_y(family);
    const AlgoEntry* e = registry().find(dot ? "dot" : "naive", "cpu-mt");
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->is_baseline);
    ASSERT_TRUE(e->shape_variants);
    for (const Params& prm : e->shape_variants(registry().resolve_params(*e, {}))) {
      auto k = e->make(d.problem(), prm);
      const double first = k->run_scalar();
      for (int rep = 0; rep < 3; ++rep)
        ASSERT_TRUE(same_bits(k->run_scalar(), first)) << family << " threads " << prm.at("threads");
      ASSERT_TRUE(same_bits(e->make(d.problem(), prm)->run_scalar(), first));  // a fresh kernel too
    }
    // One thread: 16 lanes in a fixed tree, the same as summing the lanes by hand.
    auto one = e->make(d.problem(), registry().resolve_params(*e, {{"threads", "1"}}));
    double lane[16];
    for (double& l : lane) l = -0.0;
    int64_t i = 0;
    for (; i + 16 <= d.n; i += 16)
      for (int j = 0; j < 16; ++j) lane[j] += dot ? d.x[i + j] * d.y[i + j] : d.x[i + j];
    for (int j = 0; i < d.n; ++i, ++j) lane[j] += dot ? d.x[i] * d.y[i] : d.x[i];
    for (int w = 8; w >= 1; w /= 2)
      for (int j = 0; j < w; ++j) lane[j] = lane[2 * j] + lane[2 * j + 1];
    EXPECT_TRUE(same_bits(one->run_scalar(), lane[0]));
  }
}

TEST(CpuSumDot, RegistryEntriesAndParameters) {
  for (const char* a : {"naive", "pairwise", "kahan", "neumaier", "dcs", "sumk"}) {
    const AlgoEntry* e = registry().find(a, "cpu");
    ASSERT_NE(e, nullptr) << a;
    EXPECT_EQ(e->family, "sum");
  }
  EXPECT_TRUE(registry().find("naive", "cpu")->is_baseline);
  EXPECT_TRUE(registry().find("dot", "cpu")->is_baseline);
  EXPECT_EQ(registry().baseline("sum", "cpu")->algo, "naive");
  EXPECT_EQ(registry().baseline("dot", "cpu")->algo, "dot");
  EXPECT_EQ(registry().baseline("sum", "cpu-mt")->algo, "naive");
  EXPECT_EQ(registry().baseline("dot", "cpu-mt")->algo, "dot");
  const AlgoEntry* sumk = registry().find("sumk", "cpu");
  const AlgoEntry* dotk = registry().find("dotk", "cpu");
  ASSERT_TRUE(sumk && dotk);
  EXPECT_EQ(sumk->guarantee, Guarantee::kfold);
  EXPECT_EQ(dotk->guarantee, Guarantee::kfold);
  EXPECT_FALSE(sumk->bound_cite.empty());
  EXPECT_EQ(registry().resolve_params(*sumk, {}).at("K"), "2");
  EXPECT_EQ(registry().resolve_params(*dotk, {}).at("twoprod"), "fma");
  EXPECT_THROW(registry().resolve_params(*sumk, {{"K", "1"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*sumk, {{"K", "65"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*dotk, {{"twoprod", "fast"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*dotk, {{"K", "x"}}), UsageError);
  // Bounds: +inf where the theorem's precondition on n fails or S could overflow.
  ExactFacts huge{int64_t(1) << 60, 1.0, 1.0};
  EXPECT_TRUE(std::isinf(sumk->bound(registry().resolve_params(*sumk, {}), huge)));
  ExactFacts big_s{1000, 1.0, 0x1p1022};
  EXPECT_TRUE(std::isinf(dotk->bound(registry().resolve_params(*dotk, {}), big_s)));
  ExactFacts one{1, 3.0, 3.0};  // a single term is exact: only rounding-up dust
  EXPECT_LT(registry().find("naive", "cpu")->bound({}, one), 1e-300);
}

}  // namespace
