#include "app/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace accsum {

namespace {

// P(U >= u) under the null hypothesis for samples of n1 and n2 distinct values. The largest of
// the n1 + n2 values belongs to the first sample with probability n1 / (n1 + n2) and then beats
// all n2 values of the second, so P_{m,n}(u) = m/(m+n) P_{m-1,n}(u-n) + n/(m+n) P_{m,n-1}(u)
// (Mann and Whitney 1947, eq. 1, as probabilities to stay in range).
double exact_upper_tail(int n1, int n2, int u) {
  const int top = n1 * n2;
  if (u <= 0) return 1.0;
  if (u > top) return 0.0;
  // prob[m][v] = P_{m,n}(U = v) for the current n; n = 0 first: U = 0 surely.
  std::vector<std::vector<double>> prob(n1 + 1, std::vector<double>(top + 1, 0.0));
  for (int m = 0; m <= n1; ++m) prob[m][0] = 1.0;
  for (int n = 1; n <= n2; ++n) {
    // m = 0: U = 0 surely, unchanged. Ascending m uses prob[m-1] of this n and prob[m] of n-1.
    for (int m = 1; m <= n1; ++m) {
      const double from_x = static_cast<double>(m) / (m + n), from_y = static_cast<double>(n) / (m + n);
      std::vector<double> next(top + 1, 0.0);
      for (int v = 0; v <= m * n; ++v) next[v] = (v >= n ? from_x * prob[m - 1][v - n] : 0.0) + from_y * prob[m][v];
      prob[m] = std::move(next);
    }
  }
  double tail = 0;
  for (int v = u; v <= top; ++v) tail += prob[n1][v];
  return tail;
}

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
  MannWhitneyResult r;
  if (n1 == 0 || n2 == 0) return r;
  // Midranks of the pooled sample (1-based), and the tie sizes for the variance.
  std::vector<std::pair<double, size_t>> pooled;  // value, index (< n1: from x)
  for (size_t i = 0; i < n1; ++i) pooled.push_back({x[i], i});
  for (size_t j = 0; j < n2; ++j) pooled.push_back({y[j], n1 + j});
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i), midrank = 0.5 * static_cast<double>(i + 1 + j);
    if (j - i > 1) ties = true;
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second < n1) rank_sum_x += midrank;
    i = j;
  }
  const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2), dn = static_cast<double>(n);
  r.u1 = rank_sum_x - d1 * (d1 + 1) / 2;
  const double u_max = std::max(r.u1, d1 * d2 - r.u1);
  if (!ties && std::min(n1, n2) <= static_cast<size_t>(kMannWhitneyExactMax) && n1 * n2 <= kMannWhitneyExactPairs) {
    r.exact = true;  // U's null distribution is the same for (n1, n2) and (n2, n1): the short one is m
    const int small = static_cast<int>(std::min(n1, n2)), large = static_cast<int>(std::max(n1, n2));
    r.p_value = std::min(1.0, 2 * exact_upper_tail(small, large, static_cast<int>(u_max)));
    return r;
  }
  const double variance = d1 * d2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (!(variance > 0)) return r;  // every value equal: no evidence either way, p = 1
  const double z = (u_max - d1 * d2 / 2 - 0.5) / std::sqrt(variance);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace accsum
