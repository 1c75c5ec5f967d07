// sgemm-ozaki on the cpu backend (families/gemm/ozaki.hpp): the plan, and whole products against the
// exact oracle on every kind of hard data: U[0,1], U[-1,1], log-uniform spreads of 1e10 and 1e30
// within a row, cancellation, zeros, values near the float overflow threshold and near underflow,
// NaN / infinities, alpha and beta. The arithmetic and the accuracy targets: tests/families/test_ozaki*.cpp.
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
#include "tests/gemm_test_util.hpp"
using namespace accsum;
using namespace accsum::ozaki;

namespace {

using gemm_test::judge, gemm_test::named, gemm_test::ozaki_gen, gemm_test::run_ozaki;

// Every entry correctly rounded (and so faithful), and the run reports itself exact.
void expect_exact(const Dataset& d, Params user = {}) {
  const Result r = run_ozaki(d, user);
  const Metrics m = judge(d, r);
  EXPECT_TRUE(m.correctly_rounded) << d.generator << " share " << named(m.extra, "share_correctly_rounded");
  EXPECT_EQ(named(m.extra, "share_faithful"), 1.0);
  EXPECT_EQ(named(r.figures, "ozaki_exact"), 1.0);
  EXPECT_EQ(named(r.figures, "ozaki_rows_uncovered"), 0.0);
}

}  // namespace

TEST(Ozaki, PlanCoversTwentyFourBitDataWithEightModuliUpToK16384) {
  for (int64_t K : {1, 100, 8192, 16384}) EXPECT_GE(bit_budget(8, K), 48) << K;
  EXPECT_LT(bit_budget(8, 32768), 48);
  EXPECT_LT(bit_budget(7, 8192), 48);  // at N = 8192 seven moduli cannot cover 24 + 24 bits
  const uint32_t one = 0x3f800000u;    // 1.0f
  std::vector<uint32_t> mx{one};
  std::vector<int> lo{-24};  // 2^-24 is the lowest bit: span 1 - (-24) = 25
  const Plan p = make_plan(100, mx.data(), lo.data(), 1, mx.data(), lo.data(), 1, 0);
  EXPECT_EQ(p.need_a, 25);
  EXPECT_TRUE(p.exact());
  EXPECT_EQ(p.moduli, 8);
  const Plan q = make_plan(100, mx.data(), lo.data(), 1, mx.data(), lo.data(), 1, 3);
  EXPECT_EQ(q.moduli, 3);
  EXPECT_FALSE(q.exact());
  EXPECT_EQ(q.rows_uncovered + q.cols_uncovered, 2);
  // U[-1,1]-like data need 25 + 25 bits: at K = 8192 eight moduli hold 49, nine 57.
  EXPECT_EQ(bit_budget(8, 8192), 49);
  EXPECT_GE(bit_budget(9, 8192), 50);
  const Plan u = make_plan(8192, mx.data(), lo.data(), 1, mx.data(), lo.data(), 1, 0);
  EXPECT_EQ(u.moduli, 9);
  EXPECT_TRUE(u.exact());
  // The most moduli hold 100 bits at K = 1 and never more than kMaxSideBits per side.
  EXPECT_EQ(bit_budget(kMaxModuli, 1), 100);
  std::vector<int> wide_lo{-99};  // span 100 on one side: the side is capped, the run says so
  const Plan w = make_plan(1, mx.data(), wide_lo.data(), 1, mx.data(), lo.data(), 1, 0);
  EXPECT_EQ(w.moduli, kMaxModuli);
  EXPECT_LE(w.bits_a, kMaxSideBits);
  EXPECT_LE(w.bits_b, kMaxSideBits);
  EXPECT_EQ(w.rows_uncovered, 1);
  EXPECT_EQ(w.cols_uncovered, 0);
}

// Lines of bit span 25: entries on the grid 2^-25, one per line in [1/2, 1) (top 0), the others below 1/2
// (`wide`: in [1/2, 1) too, but for one odd multiple of 2^-25 per line, so the norms sit near their largest);
// with `b_is_a_transposed` column j of B is row j of A, where Cauchy-Schwarz is an equality: C'_jj = ||A'_j||^2.
Dataset spans25(int64_t M, int64_t N, int64_t K, uint64_t seed, bool wide, bool b_is_a_transposed = false,
                Params extra = {}) {
  Dataset d = ozaki_gen("uniform", std::to_string(M) + "," + std::to_string(N) + "," + std::to_string(K), seed, extra);
  std::mt19937_64 g(seed);
  auto value = [&](bool big, bool odd) {
    const int64_t lo = big ? int64_t{1} << 24 : 1, hi = big ? (int64_t{1} << 25) - 2 : (int64_t{1} << 24) - 1;
    int64_t k = std::uniform_int_distribution<int64_t>(lo, hi)(g);
    if (odd)
      k |= 1;
    else if (big)
      k &= ~int64_t{1};  // a multiple of 2^-24 in [1/2, 1): 24 bits
    const float v = std::ldexp(static_cast<float>(k), -25);
    return g() % 2 ? -v : v;
  };
  auto fill = [&](float* x, int64_t stride) {
    for (int64_t k = 0; k < K; ++k) x[k * stride] = value(wide && k != 1, !wide || k == 1);
    x[0] = value(true, false);
  };
  for (int64_t i = 0; i < M; ++i) fill(d.a.data() + i, M);
  for (int64_t j = 0; j < N; ++j) {
    if (b_is_a_transposed && j < M)
      for (int64_t k = 0; k < K; ++k) d.b[k + j * K] = d.a[j + k * M];
    else
      fill(d.b.data() + j * K, 1);
  }
  d.id = next_dataset_id();
  return d;
}

// max_ij |C'_ij| of a plan that covers every line, exactly (C' = A'B', A'_ik = a_ik 2^(bits_a - top_i)).
u128 largest_product(const Dataset& d, const Plan& p) {
  const int64_t M = d.rows, N = d.cols, K = d.inner;
  const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
  u128 most = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      i128 c = 0;
      for (int64_t k = 0; k < K; ++k) {
        const auto a = static_cast<int64_t>(std::ldexp(d.a[i + k * M], p.bits_a - line_top(rows.max_bits[i])));
        const auto b = static_cast<int64_t>(std::ldexp(d.b[k + j * K], p.bits_b - line_top(cols.max_bits[j])));
        c += static_cast<i128>(a) * b;
      }
      most = std::max(most, static_cast<u128>(c < 0 ? -c : c));
    }
  return most;
}

// U[-1,1]-like data whose rows and columns need 25 bits each, at a K where eight moduli hold
// only 49 by the rule's bound: the lines' norms bound C' below P_8/2, so the default takes eight
// and every entry is correctly rounded; eight given by --slices split their budget and leave lines
// uncovered (and say so).
TEST(Ozaki, SymmetricTwentyFiveBitDataTakeEightModuliAtK8192ByTheirNorms) {
  Dataset d = ozaki_gen("uniform-sym", "5,4,8192", 21, {{"beta", "0.5"}});
  gemm_test::give_25_bit_spans(d);
  const Result r = run_ozaki(d);
  EXPECT_EQ(named(r.figures, "ozaki_need_bits_a"), 25.0);
  EXPECT_EQ(named(r.figures, "ozaki_need_bits_b"), 25.0);
  EXPECT_EQ(named(r.figures, "ozaki_slices"), 8.0);
  const Lines rows = summarize_lines(d.a.data(), d.rows, d.inner, 1, d.rows),
              cols = summarize_lines(d.b.data(), d.cols, d.inner, d.inner, 1);
  EXPECT_EQ(cover_plan(d.inner, rows, cols, 0).moduli, 9);
  EXPECT_LE(largest_product(d, plan_for(d.inner, rows, cols, 0)), plan_for(d.inner, rows, cols, 0).bound.as<u128>());
  expect_exact(d);
  const auto ex = std::static_pointer_cast<const GemmExact>(family("gemm").oracle(d).exact);
  for (size_t e = 0; e < ex->ref.size(); ++e) EXPECT_EQ(r.values[e], ex->ref[e]) << e;
  const Result eight = run_ozaki(d, {{"slices", "8"}});
  EXPECT_EQ(named(eight.figures, "ozaki_exact"), 0.0);
  EXPECT_GT(named(eight.figures, "ozaki_rows_uncovered") + named(eight.figures, "ozaki_cols_uncovered"), 0.0);
}

// Spreads the int64 scheme could not hold: log-uniform 1e5 within rows and columns needs about
// 41 + 41 bits; more than eight moduli cover it exactly.
TEST(Ozaki, LogUniformSpreadsBeyondEightModuliAreExact) {
  for (const char* shape : {"9,7,50", "6,5,3000"}) {
    const Dataset d = ozaki_gen("loguniform", shape, 22, {{"range", "1e5"}});
    const Result r = run_ozaki(d);
    const auto f = r.figures;
    SCOPED_TRACE(std::string(shape) + " need " + std::to_string(named(f, "ozaki_need_bits_a")) + "+" +
                 std::to_string(named(f, "ozaki_need_bits_b")));
    EXPECT_GT(named(f, "ozaki_need_bits_a") + named(f, "ozaki_need_bits_b"), bit_budget(8, d.inner));
    EXPECT_GT(named(f, "ozaki_slices"), 8.0);
    expect_exact(d);
  }
}

// ---- whole products against the exact oracle ----

TEST(Ozaki, ExactOnUniformData) {
  for (const char* dist : {"uniform", "uniform-sym"})
    for (const char* shape : {"1,1,1", "7,5,3", "33,17,65", "5,130,1", "40,31,300"}) {
      SCOPED_TRACE(std::string(dist) + " " + shape);
      expect_exact(ozaki_gen(dist, shape, 5));
    }
}

TEST(Ozaki, AlphaBeta) {
  expect_exact(ozaki_gen("uniform-sym", "37,29,200", 1, {{"alpha", "-0.75"}, {"beta", "1.5"}}));
  expect_exact(ozaki_gen("uniform", "37,29,200", 2, {{"alpha", "0"}, {"beta", "2"}}));
  expect_exact(ozaki_gen("uniform", "37,29,200", 3, {{"alpha", "3.1e-30"}, {"beta", "-7e20"}}));  // beta*c dominates
}

TEST(Ozaki, CancellationIsExact) {
  // Columns k + h of A repeat columns k, rows k + h of B negate rows k: the 2h products cancel
  // exactly, the last one survives (exactly: the data stay 24-bit, so every line is covered).
  Dataset d = ozaki_gen("uniform-sym", "20,9,61", 4);
  const int64_t M = d.rows, N = d.cols, K = d.inner, h = (K - 1) / 2;
  for (int64_t k = 0; k < h; ++k) {
    for (int64_t i = 0; i < M; ++i) d.a[i + (k + h) * M] = d.a[i + k * M];
    for (int64_t j = 0; j < N; ++j) d.b[k + h + j * K] = -d.b[k + j * K];
  }
  d.id = next_dataset_id();
  expect_exact(d);
}

TEST(Ozaki, ZerosAndZeroLines) {
  Dataset d = ozaki_gen("uniform-sym", "12,10,30", 6, {{"beta", "0.5"}});
  for (int64_t k = 0; k < d.inner; ++k) d.a[3 + k * d.rows] = 0.0f;   // a zero row of A
  for (int64_t k = 0; k < d.inner; ++k) d.b[k + 4 * d.inner] = 0.0f;  // a zero column of B
  d.id = next_dataset_id();
  expect_exact(d);
  Dataset z = ozaki_gen("uniform", "6,6,6", 1);
  std::fill(z.a.begin(), z.a.end(), 0.0f);
  z.id = next_dataset_id();
  const Result r = run_ozaki(z);
  for (double v : r.values) EXPECT_EQ(v, 0.0);
}

TEST(Ozaki, NearOverflowAndUnderflow) {
  Dataset big = ozaki_gen("uniform", "16,12,40", 8);
  for (auto& x : big.a) x *= 0x1p120f;
  for (auto& x : big.b) x *= 0x1p5f;  // products up to 2^125: sums of 40 overflow in some entries
  big.id = next_dataset_id();
  expect_exact(big);
  const Result r = run_ozaki(big);
  bool some_inf = false;
  for (double v : r.values) some_inf |= std::isinf(v);
  EXPECT_TRUE(some_inf);
  Dataset tiny = ozaki_gen("uniform-sym", "16,12,40", 9);
  for (auto& x : tiny.a) x *= 0x1p-70f;
  for (auto& x : tiny.b) x *= 0x1p-70f;  // products near 2^-140: subnormal results
  tiny.id = next_dataset_id();
  expect_exact(tiny);
}

TEST(Ozaki, IeeeSpecials) {
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const Dataset d = ozaki_gen("specials", "9,7,20", seed, seed % 2 ? Params{{"beta", "1"}} : Params{});
    const Metrics m = judge(d, run_ozaki(d));
    EXPECT_TRUE(m.correctly_rounded) << "seed " << seed;
    EXPECT_EQ(named(m.extra, "share_correctly_rounded"), 1.0) << "finite entries, seed " << seed;
  }
}

// A spread of 1e10 or 1e30 within every row and column needs more bits (56 + 56 or more) than
// kMaxModuli moduli hold (100 at K = 1, families/gemm/ozaki.hpp): the
// run says how many lines it could not cover; entries whose row and column are covered stay
// correctly rounded; the rest keep the scheme's normwise accuracy.
TEST(Ozaki, WideSpreadsAreReportedAndCoveredEntriesStayExact) {
  for (const char* range : {"1e10", "1e30"}) {
    Dataset d = ozaki_gen("loguniform", "24,20,50", 12, {{"range", range}});
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    for (int64_t i = 0; i < M / 2; ++i)  // half the rows narrow again: 24-bit values in [1, 2)
      for (int64_t k = 0; k < K; ++k)
        d.a[i + k * M] = 1.0f + std::ldexp(static_cast<float>((i * 13 + k * 7) % 1000), -23);
    for (int64_t j = 0; j < N / 2; ++j)
      for (int64_t k = 0; k < K; ++k) d.b[k + j * K] = 1.0f + std::ldexp(static_cast<float>((k * 7 + j) % 100), -23);
    d.id = next_dataset_id();
    const Result r = run_ozaki(d);
    const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
    const Plan p = plan_for(K, rows, cols, 0);
    EXPECT_EQ(named(r.figures, "ozaki_exact"), 0.0) << range;
    EXPECT_EQ(named(r.figures, "ozaki_slices"), kMaxModuli);
    EXPECT_EQ(named(r.figures, "ozaki_rows_uncovered"), static_cast<double>(p.rows_uncovered));
    EXPECT_EQ(named(r.figures, "ozaki_cols_uncovered"), static_cast<double>(p.cols_uncovered));
    EXPECT_GT(p.rows_uncovered + p.cols_uncovered, 0);
    const auto ex = std::static_pointer_cast<const GemmExact>(family("gemm").oracle(d).exact);
    int64_t covered = 0;
    for (int64_t j = 0; j < N; ++j)
      for (int64_t i = 0; i < M; ++i)
        if (line_span(rows.max_bits[i], rows.low[i]) <= p.bits_a &&
            line_span(cols.max_bits[j], cols.low[j]) <= p.bits_b) {
          ++covered;
          EXPECT_EQ(r.values[i + j * M], ex->ref[i + j * M]) << range << " (" << i << ", " << j << ")";
        }
    EXPECT_GT(covered, 0) << range;
  }
}

// At K = 32, 25 + 25 bits need 8 moduli by K 2^50 = 2^55 > P_7/2 ~ 2^54.7; the lines' norms bound C' below
// P_7/2, so the plan takes 7, and every entry stays correctly rounded (the bound holds on the exact C').
TEST(Ozaki, NormsLowerAnExactPlansModuli) {
  for (bool wide : {false, true})
    for (bool transposed : {false, true}) {
      const std::string what = std::string(wide ? "wide" : "narrow") + (transposed ? ", B = A^T" : "");
      const uint64_t seed = wide ? 7 : 8;
      const Dataset d = spans25(20, 20, 32, seed, wide, transposed);
      const int64_t M = d.rows, N = d.cols, K = d.inner;
      const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
      const Plan cover = cover_plan(K, rows, cols, 0), p = plan_for(K, rows, cols, 0);
      ASSERT_EQ(cover.need_a + cover.need_b, 50) << what;
      EXPECT_EQ(cover.moduli, 8) << what;
      EXPECT_TRUE(norms_may_lower<float>(cover, K, Accuracy::cr, 0)) << what;
      EXPECT_EQ(p.moduli, 7) << what;
      EXPECT_TRUE(p.exact()) << what;
      const u128 largest = largest_product(d, p), bound = p.bound.as<u128>();
      EXPECT_LE(largest, bound) << what;
      EXPECT_LT(bound, moduli_product(7) / 2) << what;
      if (wide && transposed) EXPECT_GT(largest, bound / 2) << what << ": the data meet the bound within a factor 2";
      for (const Params& q : {Params{}, Params{{"alpha", "-0.75"}, {"beta", "1.5"}}}) {
        const Dataset e = spans25(20, 20, 32, seed, wide, transposed, q);
        const Result r = run_ozaki(e);
        EXPECT_EQ(named(r.figures, "ozaki_slices"), 7) << what;
        EXPECT_LT(named(r.figures, "ozaki_product_bound_log2"), std::log2(static_cast<double>(moduli_product(7) / 2)));
        EXPECT_GT(named(r.figures, "ozaki_product_bound_log2"), 50.0) << what;
        expect_exact(e);
      }
      EXPECT_EQ(named(run_ozaki(d, {{"accuracy", "sgemm"}}).figures, "ozaki_exact"), 0.0) << what;
      EXPECT_EQ(named(run_ozaki(d, {{"slices", "8"}}).figures, "ozaki_slices"), 8) << what << ": a given L is kept";
    }
}

TEST(Ozaki, CeilSqrtIsExact) {
  std::mt19937_64 g(5);
  for (int t = 0; t < 2000; ++t) {
    const uint64_t r = t < 1000 ? g() >> (t % 64) : g();
    const u128 sq = static_cast<u128>(r) * r;
    EXPECT_EQ(ceil_sqrt(sq), r);
    if (r > 1) EXPECT_EQ(ceil_sqrt(sq - 1), r);
    if (r < UINT64_MAX) EXPECT_EQ(ceil_sqrt(sq + 1), r + 1);
  }
  EXPECT_EQ(ceil_sqrt(0), 0u);
  const u128 most = static_cast<u128>(UINT64_MAX) * UINT64_MAX;
  EXPECT_EQ(ceil_sqrt(most), UINT64_MAX);
  EXPECT_EQ(ceil_sqrt(most - 1), UINT64_MAX);
  EXPECT_THROW(ceil_sqrt(most + 1), std::logic_error);
}

// The norms are summed only where they may lower L: the rule's bound within 3x (what uniform lines gain) of the
// next smaller half product, for a cr plan whose L the rule chose.
TEST(Ozaki, NormsAreTriedOnlyWhereUniformLinesWouldGain) {
  auto plan = [](int moduli, int need_a, int need_b) {
    Plan p;
    p.moduli = moduli;
    p.need_a = need_a;
    p.need_b = need_b;
    return p;
  };
  EXPECT_TRUE(norms_may_lower<float>(plan(9, 25, 25), 8192, Accuracy::cr, 0));   // 2^63 against P_8/2 ~ 2^62.6
  EXPECT_FALSE(norms_may_lower<float>(plan(8, 24, 24), 8192, Accuracy::cr, 0));  // 2^61 against P_7/2 ~ 2^54.7
  EXPECT_FALSE(norms_may_lower<float>(plan(9, 25, 25), 8192, Accuracy::sgemm, 0));
  EXPECT_FALSE(norms_may_lower<float>(plan(9, 25, 25), 8192, Accuracy::cr, 9));  // a given L is kept
  Plan uncovered = plan(9, 25, 25);
  uncovered.rows_uncovered = 1;
  EXPECT_FALSE(norms_may_lower<float>(uncovered, 8192, Accuracy::cr, 0));
  // Doubles of U[0,1]: 53 + 53 bits at K = 4096 pass P_15/2 by 3.3x, beyond uniform lines' gain.
  EXPECT_FALSE(norms_may_lower<double>(plan(16, 53, 53), 4096, Accuracy::cr, 0));
  EXPECT_TRUE(norms_may_lower<double>(plan(16, 53, 52), 4096, Accuracy::cr, 0));
}

// Narrow lines at K = 1: 8 + 8 bits, K 2^16 > P_2/2 = 32640 by the rule, but |C'| = 129^2 = 16641 ((1/2 + 2^-8)
// 2^8 = 129) by the norms (their scale 2^-32 cut to an integer bound, rounded up): two moduli, exact.
TEST(Ozaki, NormsLowerAPlanBelowTheirOwnScale) {
  Dataset d = ozaki_gen("uniform", "3,2,1", 4);
  for (auto& x : d.a) x = 0.5f + 0x1p-8f;
  for (auto& x : d.b) x = -(0.5f + 0x1p-8f);
  d.id = next_dataset_id();
  const Lines rows = summarize_lines(d.a.data(), d.rows, d.inner, 1, d.rows),
              cols = summarize_lines(d.b.data(), d.cols, d.inner, d.inner, 1);
  const Plan cover = cover_plan(d.inner, rows, cols, 0), p = plan_for(d.inner, rows, cols, 0);
  EXPECT_EQ(cover.moduli, 3);
  EXPECT_EQ(p.moduli, 2);
  EXPECT_EQ(p.bound.s, 0);
  EXPECT_GE(p.bound.m, 16641u);
  EXPECT_LE(p.bound.m, 16642u);
  expect_exact(d);
}

// Lines whose norms are as large as the spans allow (every entry near 2^top) keep the rule's moduli.
TEST(Ozaki, NormsKeepTheModuliWhereTheyCannotLowerThem) {
  Dataset d = spans25(12, 10, 32, 9, true);
  for (auto& x : d.a) x = std::copysign(1.0f - 0x1p-24f, x);
  for (auto& x : d.b) x = std::copysign(1.0f - 0x1p-24f, x);
  d.a[0] = 0x1p-25f;  // a 25-bit span again, in one row and one column
  d.b[0] = 0x1p-25f;
  d.id = next_dataset_id();
  const Lines rows = summarize_lines(d.a.data(), d.rows, d.inner, 1, d.rows),
              cols = summarize_lines(d.b.data(), d.cols, d.inner, d.inner, 1);
  const Plan p = plan_for(d.inner, rows, cols, 0);
  EXPECT_EQ(p.moduli, 8);
  EXPECT_EQ(p.bound.m, static_cast<uint64_t>(d.inner));
  expect_exact(d);
}

TEST(Ozaki, SlicesSweepReportsWhatEachSettingComputes) {
  const Dataset d = ozaki_gen("uniform", "20,20,40", 13);
  for (int L = kMinModuli; L <= kMaxModuli; ++L) {
    const Result r = run_ozaki(d, {{"slices", std::to_string(L)}});
    EXPECT_EQ(named(r.figures, "ozaki_slices"), L);
    EXPECT_EQ(named(r.figures, "ozaki_int8_products"), L);
    const Metrics m = judge(d, r);
    if (named(r.figures, "ozaki_exact") == 1.0) EXPECT_TRUE(m.correctly_rounded) << L;
    // Eight or more moduli make every product of 24-bit data with K <= 2^14 exact.
    if (L >= 8) EXPECT_TRUE(m.correctly_rounded) << L;
    if (L >= 8) EXPECT_EQ(named(r.figures, "ozaki_exact"), 1.0) << L;
  }
  int fewest = kMaxModuli;  // the default: the fewest moduli whose budget holds 24 + 24 bits
  while (fewest > kMinModuli && bit_budget(fewest - 1, d.inner) >= 48) --fewest;
  const Result def = run_ozaki(d);
  EXPECT_EQ(named(def.figures, "ozaki_slices"), fewest);
  EXPECT_EQ(named(def.figures, "ozaki_exact"), 1.0);
}
