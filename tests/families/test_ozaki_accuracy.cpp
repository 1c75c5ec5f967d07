// sgemm-ozaki's accuracy targets on the cpu backend (families/gemm/ozaki_bound.hpp): fewer moduli within
// SGEMM's bound, faithful rounding, the reported bounds holding at every number of moduli, the
// --accuracy parameter. The arithmetic and whole exact products: tests/families/test_ozaki*.cpp.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/frame/family.hpp"
#include "core/oracle/gemm_oracle.hpp"
#include "core/numerics/float_entry.hpp"
#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_run.hpp"
#include "core/frame/registry.hpp"
#include "datasets/gemm_data.hpp"
#include "tests/cli_run.hpp"
#include "tests/gemm_test_util.hpp"
using namespace accsum;
using namespace accsum::ozaki;

namespace {

using gemm_test::judge, gemm_test::named, gemm_test::ozaki_gen, gemm_test::run_ozaki;

bool same_float(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0 || (a == 0 && b == 0);
}

}  // namespace

// ---- accuracy targets (families/gemm/ozaki_bound.hpp) ----

// Every run reports its error bound per row after the entries; the exact oracle finds every judged
// entry within it (plus half an ulp of the entry), whatever the number of moduli.
void expect_within_bound(const Dataset& d, const Result& r, const std::string& what) {
  ASSERT_EQ(r.what, kWithRowBounds);
  ASSERT_EQ(r.values.size(), static_cast<size_t>(d.rows * d.cols + d.rows));
  const Metrics m = judge(d, r);
  EXPECT_EQ(named(m.extra, "bound_violations"), 0.0) << what << " err/bound " << named(m.extra, "err_over_bound_max");
  EXPECT_LE(named(m.extra, "err_over_bound_max"), 1.0) << what;
  EXPECT_EQ(named(m.extra, "row_bound_max"), named(r.figures, "ozaki_row_bound_max")) << what;
}

TEST(Ozaki, ReportedRowBoundsHoldAtEveryNumberOfModuli) {
  for (const char* dist : {"uniform", "uniform-sym", "loguniform"}) {
    const Dataset d = ozaki_gen(dist, "23,19,700", 31, {{"range", "1e10"}, {"alpha", "-1.5"}, {"beta", "0.25"}});
    for (int L = 3; L <= kMaxModuli; L += 2) {
      const Result r = run_ozaki(d, {{"slices", std::to_string(L)}});
      expect_within_bound(d, r, std::string(dist) + " L " + std::to_string(L));
      if (named(r.figures, "ozaki_exact") == 1.0) {
        EXPECT_EQ(named(r.figures, "ozaki_row_bound_max"), 0.0);
      } else {
        EXPECT_GT(named(r.figures, "ozaki_row_bound_max"), 0.0);
      }
    }
  }
}

// --accuracy=sgemm: fewer moduli than cr on uniform data at large K, every entry within the
// reported bound, and each row's bound at most gamma_K ||a_i||_2 max_j ||b_j||_2 (from the data).
TEST(Ozaki, AccuracySgemmTakesFewerModuliWithinSgemmsBound) {
  for (const char* dist : {"uniform", "uniform-sym"}) {
    const Dataset d = ozaki_gen(dist, "40,36,4096", 32);
    const Result cr = run_ozaki(d), sg = run_ozaki(d, {{"accuracy", "sgemm"}});
    SCOPED_TRACE(dist);
    EXPECT_LT(named(sg.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices"));
    EXPECT_EQ(named(sg.figures, "ozaki_accuracy_sgemm"), 1.0);
    expect_within_bound(d, sg, dist);
    expect_within_bound(d, cr, dist);
    EXPECT_TRUE(judge(d, cr).correctly_rounded);
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    const double gamma = K * 0x1p-24 / (1 - K * 0x1p-24);
    for (int64_t i = 0; i < M; ++i) {
      double na = 0;
      for (int64_t k = 0; k < K; ++k) na += double(d.a[i + k * M]) * d.a[i + k * M];
      double nb_max = 0;  // bound_i covers max_j E_ij <= gamma ||a_i||_2 max_j ||b_j||_2
      for (int64_t j = 0; j < N; ++j) {
        double nb = 0;
        for (int64_t k = 0; k < K; ++k) nb += double(d.b[k + j * K]) * d.b[k + j * K];
        nb_max = std::max(nb_max, nb);
      }
      EXPECT_LE(sg.values[static_cast<size_t>(M * N + i)], gamma * std::sqrt(na * nb_max)) << "row " << i;
    }
    // One fewer modulus than chosen does not meet the target: the choice is the fewest.
    const int L = static_cast<int>(named(sg.figures, "ozaki_slices"));
    const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
    const Plan fewer =
        make_plan(K, rows.max_bits.data(), rows.low.data(), M, cols.max_bits.data(), cols.low.data(), N, L - 1);
    const LineMaximaByBits rm = line_maxima_by_bits(norms_of(rows)), cm = line_maxima_by_bits(norms_of(cols));
    EXPECT_FALSE(meets_sgemm_target(rm, cm, fewer.bits_a, fewer.bits_b, K));
    // The table by bits is the direct maxima over the lines at every bits.
    for (int bits = 0; bits <= kMaxSideBits; ++bits) {
      const LineMaxima direct = line_maxima(norms_of(rows), bits);
      EXPECT_EQ(rm.at[bits].step, direct.step) << bits;
      EXPECT_EQ(rm.at[bits].step_over_n2, direct.step_over_n2) << bits;
      EXPECT_EQ(rm.at[bits].n1_over_n2, direct.n1_over_n2) << bits;
      EXPECT_EQ(rm.at[bits].n1, direct.n1) << bits;
    }
  }
}

// The target is met on wide spreads too (log-uniform 1e10: more moduli than uniform data), and
// never with more moduli than cr.
TEST(Ozaki, AccuracySgemmOnWideSpreads) {
  const Dataset d = ozaki_gen("loguniform", "30,20,2000", 33, {{"range", "1e10"}});
  const Result cr = run_ozaki(d), sg = run_ozaki(d, {{"accuracy", "sgemm"}});
  EXPECT_LE(named(sg.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices"));
  expect_within_bound(d, sg, "loguniform 1e10");
}

// faithful_within: e below half the smaller gap around f proves RN(v) faithful for every x within e of v.
TEST(Ozaki, FaithfulWithinIsHalfTheSmallerGapAroundTheResult) {
  const float kMax = std::numeric_limits<float>::max();
  struct Case {
    float f;
    double limit;  // half the smaller gap
  };
  for (const Case c : {Case{1.0f, 0x1p-25}, Case{1.5f, 0x1p-24}, Case{0.0f, 0x1p-150}, Case{0x1p-149f, 0x1p-150},
                       Case{0x1p-126f, 0x1p-150}, Case{kMax, 0x1p103}, Case{-3.0f, 0x1p-23}}) {
    SCOPED_TRACE(c.f);
    EXPECT_TRUE(faithful_within(c.f, 0.0));
    EXPECT_TRUE(faithful_within(c.f, std::nextafter(c.limit, 0.0)));
    EXPECT_FALSE(faithful_within(c.f, c.limit));
  }
  EXPECT_TRUE(faithful_within(INFINITY, 0.0));  // an exact value's own rounding
  EXPECT_FALSE(faithful_within(INFINITY, 1e-30));
  EXPECT_FALSE(faithful_within(-INFINITY, 1e-30));
  EXPECT_FALSE(faithful_within(NAN, 1e-30));
  // Soundness: v rounding to f, x within e of v (e just below the limit): x is strictly between f's neighbours.
  std::mt19937_64 g(5);
  for (int t = 0; t < 100000; ++t) {
    uint32_t u = static_cast<uint32_t>(g()) & 0x7f7fffffu;
    if (u == 0x7f7fffffu) continue;
    const float f = of_bits<float>(u) * ((g() & 1) ? -1.0f : 1.0f), a = std::fabs(f);
    const double up = float_gap_above(a), down = float_gap_below(a);
    const double e = std::nextafter(0.5 * std::min(up, down), 0.0) * (0.5 + 0.5 * std::ldexp(double(g() >> 11), -53));
    ASSERT_TRUE(faithful_within(f, e));
    const double r1 = std::ldexp(double(g() >> 11), -53), r2 = std::ldexp(double(g() >> 11), -53);
    const double v = a + (r1 - 0.5) * ((r1 < 0.5 ? down : up));  // |v - a| <= half the gap on v's side
    ASSERT_EQ(static_cast<float>(v), a);
    const double x = v + (2 * r2 - 1) * e;
    EXPECT_GT(x, double(a) - down) << f;
    EXPECT_LT(x, double(a) + up) << f;
  }
}

// --accuracy=faithful: cr's plan; where lines stay uncovered (log-uniform spreads; or a given --slices), every entry
// whose own bound does not prove it faithful is summed exactly. Every entry is then faithful, those summed exactly
// are correctly rounded, the others are cr's bits, and the count is what the bounds say.
TEST(Ozaki, FaithfulSumsExactlyWhatItsBoundCannotProve) {
  struct Case {
    const char* dist;
    const char* range;
    const char* slices;
    Params extra;
  };
  const Case cases[] = {{"loguniform", "1e10", "0", {}},
                        {"loguniform", "1e30", "0", {{"alpha", "-1.5"}, {"beta", "0.25"}}},
                        {"loguniform", "1e10", "5", {{"alpha", "3"}}},
                        {"uniform-sym", "1", "4", {{"beta", "-2"}}},
                        {"uniform", "1", "0", {}}};
  for (const Case& c : cases) {
    Params extra = c.extra;
    extra["range"] = c.range;
    const Dataset d = ozaki_gen(c.dist, "21,18,300", 41, extra);
    const std::string what = std::string(c.dist) + " " + c.range + " slices " + c.slices;
    SCOPED_TRACE(what);
    const Result cr = run_ozaki(d, {{"slices", c.slices}});
    const Result ff = run_ozaki(d, {{"slices", c.slices}, {"accuracy", "faithful"}});
    const Metrics m = judge(d, ff);
    EXPECT_EQ(named(m.extra, "share_faithful"), 1.0);
    EXPECT_EQ(named(ff.figures, "ozaki_accuracy_faithful"), 1.0);
    EXPECT_EQ(named(ff.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices"));
    expect_within_bound(d, ff, what);
    const auto ex = std::static_pointer_cast<const GemmExact>(family("gemm").oracle(d).exact);
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
    const Plan p = plan_for(K, rows, cols, std::stoi(c.slices), Accuracy::faithful);
    const LineNorms rn = norms_of(rows), cn = norms_of(cols);
    const double abs_alpha = std::fabs(double{data_scalar<float>(d.data, "alpha", 1.0f)});
    int64_t summed = 0;
    for (int64_t j = 0; j < N; ++j)
      for (int64_t i = 0; i < M; ++i) {
        const size_t e = static_cast<size_t>(i + j * M);
        // Each entry's own bound, at most its row's reported one.
        const double bound = p.exact() ? 0.0
                                       : entry_bound(line_terms(rn, static_cast<size_t>(i), p.bits_a),
                                                     line_terms(cn, static_cast<size_t>(j), p.bits_b), K, abs_alpha);
        EXPECT_LE(bound, ff.values[static_cast<size_t>(M * N + i)]);
        if (faithful_within(static_cast<float>(cr.values[e]), bound)) {
          EXPECT_TRUE(same_float(ff.values[e], cr.values[e])) << i << ", " << j;
        } else {
          ++summed;
          EXPECT_TRUE(same_float(ff.values[e], ex->ref[e])) << i << ", " << j;
        }
      }
    EXPECT_EQ(named(ff.figures, "ozaki_exact_entries"), static_cast<double>(summed));
    if (named(cr.figures, "ozaki_exact") == 1.0) {
      EXPECT_EQ(summed, 0);
    } else if (std::string(c.slices) != "0") {
      EXPECT_GT(summed, 0);  // few moduli leave most entries to the exact sum
      EXPECT_LT(named(judge(d, cr).extra, "share_faithful"), 1.0);
    }
  }
}

// The exact sum of one entry is the oracle's: alpha, beta, cancellation to zero and below the float range.
TEST(Ozaki, ExactFloatEntryIsTheOracles) {
  const float a[] = {1.0f, 0x1p-12f, -0x1.8p100f, 0x1p-149f, 3.0f};
  const float b[] = {1.0f, 0x1p-12f, 0x1p20f, 0x1.000002p-149f, -1.0f / 3};
  for (const float alpha : {1.0f, -1.5f, 0x1p-100f, 0x1.000002p-149f, 0x1.fffffep127f})
    for (const float beta : {0.0f, 0.25f}) {
      const float c = 0x1.000002p120f;
      Dataset d;
      d.family = "gemm";
      d.rows = d.cols = 1;
      d.inner = d.n = 5;
      d.a.assign(a, a + 5);
      d.b.assign(b, b + 5);
      d.c = {c};
      d.data = {{"alpha", float_hex(alpha)}, {"beta", float_hex(beta)}};
      d.id = next_dataset_id();
      const auto ex = std::static_pointer_cast<const GemmExact>(exact_gemm(d).exact);
      EXPECT_TRUE(same_float(exact_float_entry(a, 1, b, 5, alpha, beta, &c), ex->ref[0])) << alpha << " " << beta;
    }
  const float x[] = {1.0f, -1.0f}, y[] = {1.0f, 1.0f};
  EXPECT_EQ(exact_float_entry(x, 1, y, 2, 1.0f, 0.0f, nullptr), 0.0f);
  EXPECT_FALSE(std::signbit(exact_float_entry(x, 1, y, 2, 1.0f, 0.0f, nullptr)));
  const float tiny[] = {0x1p-100f}, half[] = {0x1p-50f};
  EXPECT_EQ(exact_float_entry(tiny, 1, half, 1, 1.0f, 0.0f, nullptr), 0.0f);  // 2^-150: the tie rounds to even, 0
  EXPECT_EQ(exact_float_entry(tiny, 1, half, 1, 1.5f, 0.0f, nullptr), 0x1p-149f);
  // The accumulator's range ends: 2^-447 terms beside 2^384 ones, and a sum that overflows float.
  const float lo[] = {0x1p-149f, 0x1p127f, -0x1p127f}, hi[] = {0x1p-149f, 0x1p127f, 0x1p127f};
  EXPECT_EQ(exact_float_entry(lo, 1, hi, 3, 0x1p-149f, 0.0f, nullptr), 0.0f);  // 2^-447 rounds to 0
  const float big[] = {0x1.fffffep127f, 0x1.fffffep127f};
  EXPECT_EQ(exact_float_entry(big, 1, big, 2, 0x1.fffffep127f, 0.0f, nullptr), INFINITY);
  EXPECT_EQ(exact_float_entry(big, 1, big, 2, -0x1.fffffep127f, 0.0f, nullptr), -INFINITY);
  // 2^-149 + 2^-298: one rounding, to 2^-149.
  const float one_a[] = {1.0f, 0x1p-149f}, one_b[] = {0x1p-149f, 0x1p-149f};
  EXPECT_EQ(exact_float_entry(one_a, 1, one_b, 2, 1.0f, 0.0f, nullptr), 0x1p-149f);
}

// The faithful mode's promise is the run's guarantee: reported, checked against the oracle by bench, and listed.
TEST(OzakiCli, FaithfulIsPromisedCheckedAndListed) {
  const std::string path = cli_test::tmpdir() + "/faithful.json";
  const auto r = cli_test::accsum(
      "bench --algo=sgemm-ozaki --backend=cpu --accuracy=cr,faithful --slices=5 --shape=21,18,300 "
      "--dist=loguniform --range=1e10 --reps=1 --warmup=0 --json=" +
      path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(cli_test::slurp(path));
  int seen = 0;
  for (const auto& res : doc["results"]) {
    if (res["algo"] != "sgemm-ozaki") continue;
    ++seen;
    const bool faithful_mode = res["params"]["accuracy"] == "faithful";
    EXPECT_EQ(res["guarantee"], faithful_mode ? "faithful" : "none");
    EXPECT_TRUE(res["guarantee_met"].get<bool>());
    EXPECT_EQ(res["faithful"].get<bool>(), faithful_mode);  // 5 moduli leave cr's entries unfaithful here
  }
  EXPECT_EQ(seen, 2);
  const auto l = cli_test::accsum("list --format=json");
  ASSERT_EQ(l.code, 0) << l.err;
  bool listed = false;
  const auto listing = nlohmann::json::parse(l.out);
  for (const auto& a : listing["algorithms"])
    if (a["algo"] == "sgemm-ozaki") {
      listed = true;
      EXPECT_EQ(a["guarantee"], "none");
      EXPECT_EQ(a["guarantees"], nlohmann::json::array({"none", "faithful"}));
    }
  EXPECT_TRUE(listed);
}

TEST(Ozaki, AccuracyParameter) {
  const AlgoEntry* e = registry().find("sgemm-ozaki", "cpu");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(registry().resolve_params(*e, {}).at("accuracy"), "cr");
  EXPECT_EQ(registry().resolve_params(*e, {{"accuracy", "sgemm"}}).at("accuracy"), "sgemm");
  EXPECT_EQ(registry().resolve_params(*e, {{"accuracy", "faithful"}}).at("accuracy"), "faithful");
  EXPECT_THROW(registry().resolve_params(*e, {{"accuracy", "double"}}), UsageError);
  const AlgoEntry* de = registry().find("dgemm-ozaki", "cpu");  // no exact fallback for doubles
  ASSERT_NE(de, nullptr);
  EXPECT_THROW(registry().resolve_params(*de, {{"accuracy", "faithful"}}), UsageError);
}

TEST(Ozaki, RegisteredWithTheSlicesParameter) {
  const AlgoEntry* e = registry().find("sgemm-ozaki", "cpu");
  ASSERT_NE(e, nullptr);
  EXPECT_THROW(registry().resolve_params(*e, {{"slices", "1"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*e, {{"slices", std::to_string(kMaxModuli + 1)}}), UsageError);
  EXPECT_EQ(registry().resolve_params(*e, {{"slices", "9"}}).at("slices"), "9");
  EXPECT_EQ(registry().resolve_params(*e, {{"slices", std::to_string(kMaxModuli)}}).at("slices"),
            std::to_string(kMaxModuli));
  EXPECT_EQ(registry().resolve_params(*e, {}).at("slices"), "0");
  EXPECT_THROW(run_ozaki(ozaki_gen("uniform", "1,1,40000"), {{"slices", "2"}}), UsageError);  // 256 * 255 / 2 < K
}
