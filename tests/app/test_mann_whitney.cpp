// The Mann-Whitney U test against scipy.stats.mannwhitneyu (scipy 1.17.1, defaults: two-sided,
// method "auto", use_continuity=True), computed offline:
//   from scipy.stats import mannwhitneyu; r = mannwhitneyu(x, y); r.statistic, r.pvalue
#include <gtest/gtest.h>

#include <vector>

#include "app/mann_whitney.hpp"

using accsum::mann_whitney_u;

namespace {
struct Known {
  const char* what;
  std::vector<double> x, y;
  double u1, p;
  bool exact;
};
}  // namespace

TEST(MannWhitney, MatchesScipy) {
  const std::vector<Known> cases{
      // scipy's documentation example (exact: no ties, a sample of at most 8)
      {"males/females", {19, 22, 16, 29, 24}, {20, 11, 17, 12}, 17.0, 0.1111111111111111, true},
      // ties: normal approximation with the tie-corrected variance
      {"ties", {1, 2, 2, 3, 4}, {2, 3, 3, 5, 6, 7}, 6.0, 0.11390314458853068, false},
      // 10 timings against the same scaled by about 1.5: normal approximation (both samples > 8)
      {"shifted",
       {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00, 1.02, 0.99},
       {1.50, 1.53, 1.47, 1.52, 1.49, 1.54, 1.46, 1.50, 1.53, 1.48},
       0.0,
       0.00017761066068896375,
       false},
      {"interleaved",
       {1, 3, 5, 7, 9, 11, 13, 15, 17, 19},
       {2, 4, 6, 8, 10, 12, 14, 16, 18, 20},
       45.0,
       0.7337299956962472,
       false},
      {"overlap with a tie",
       {10.1, 9.8, 10.3, 10.0, 9.9, 10.2, 10.4, 9.7, 10.05, 10.15},
       {10.2, 10.5, 10.35, 10.6, 10.1, 10.45, 10.25, 10.55, 10.3, 10.65},
       11.5,
       0.004030366618852268,
       false},
      // 7 against 12 without ties: exact
      {"7 vs 12",
       {3.1, 2.9, 3.3, 3.0, 3.2, 2.8, 3.4},
       {3.5, 3.05, 3.6, 3.25, 3.7, 3.15, 3.8, 3.45, 3.9, 3.55, 3.35, 3.65},
       10.0,
       0.00523934270064301,
       true},
      // 8 against 9 (x = 0..7, y = 3.5..11.5): still exact, a sample of 8
      {"8 vs 9",
       {0, 1, 2, 3, 4, 5, 6, 7},
       {3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5},
       10.0,
       0.011106540518305223,
       true},
      {"3 vs 10", {1, 2, 3}, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 0.0, 0.006993006993006993, true},
      {"all equal", {1, 1, 1, 1}, {1, 1, 1, 1, 1}, 10.0, 1.0, false},
  };
  for (auto& c : cases) {
    auto r = mann_whitney_u(c.x, c.y);
    EXPECT_DOUBLE_EQ(r.u1, c.u1) << c.what;
    EXPECT_NEAR(r.p_value, c.p, 1e-12 * c.p + 1e-15) << c.what;
    EXPECT_EQ(r.exact, c.exact) << c.what;
  }
}

TEST(MannWhitney, SymmetricInItsSamples) {
  std::vector<double> x{1.1, 2.3, 0.7, 5.0, 3.3, 2.2, 4.1, 0.2, 9.0},
      y{2.0, 3.9, 6.1, 7.7, 8.8, 5.5, 4.4, 6.6, 1.9, 3.1};
  auto a = mann_whitney_u(x, y), b = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(a.p_value, b.p_value);
  EXPECT_DOUBLE_EQ(a.u1 + b.u1, static_cast<double>(x.size() * y.size()));
}

TEST(MannWhitney, EmptySampleDecidesNothing) { EXPECT_EQ(mann_whitney_u({}, {1.0, 2.0}).p_value, 1.0); }
