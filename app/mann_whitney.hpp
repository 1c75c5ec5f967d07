#pragma once
// The two-sided Mann-Whitney U test (Mann and Whitney, "On a test of whether one of two random
// variables is stochastically larger than the other", Ann. Math. Statist. 18, 1947): do two sets
// of timings come from the same distribution? Rank-based, so it needs no normality and one
// outlier moves it little; google/benchmark's compare.py decides slowdowns with the same test.
#include <cstddef>
#include <vector>

namespace accsum {

struct MannWhitneyResult {
  double u1 = 0;       // U of the first sample: pairs (x_i, y_j) with x_i > y_j, ties counted 1/2
  double p_value = 1;  // two-sided
  bool exact = false;  // p from the exact null distribution (else the normal approximation)
};

// Two-sided test of x against y (each at least one value; NaNs are the caller's to remove).
// Small samples without ties (either sample at most kMannWhitneyExactMax long, and at most
// kMannWhitneyExactPairs pairs, which bounds the work) get the exact p-value: twice the upper
// tail of U's null distribution, counted over all C(n1+n2, n1) orderings.
// Otherwise the normal approximation with midranks, the tie correction of the variance and a
// continuity correction of 1/2:
//   z = (max(U1, U2) - n1 n2 / 2 - 1/2) / sqrt(n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))),
//   p = erfc(z / sqrt 2), at most 1,
// where t runs over the sizes of the groups of tied values. These are the choices of
// scipy.stats.mannwhitneyu with its defaults (method "auto", use_continuity=True).
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

constexpr int kMannWhitneyExactMax = 8;
constexpr size_t kMannWhitneyExactPairs = 100000;

}  // namespace accsum
