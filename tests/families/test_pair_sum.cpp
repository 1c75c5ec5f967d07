// The bounded pair sum (families/sum_dot/pair_sum.hpp) against the exact oracle: over random merge
// trees on every distribution, s + c lies within a * pair_bound_scale(D) of the exact sum, and
// whenever pair_round_within decides, its double is the exact sum (or dot, through its products'
// TwoProductFMA terms) rounded to nearest; it leaves
// midpoints, values a hair off a midpoint, zeros, tiny results, NaN, infinities and huge masses open.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/numerics/eft.hpp"
#include "families/sum_dot/pair_sum.hpp"
#include "core/numerics/superacc.hpp"
#include "tests/dataset_util.hpp"
#include "tests/exact_of.hpp"
#include "tests/same_bits.hpp"

namespace accsum {
namespace {

// A pair sum of x over a random tree: runs of terms added to a node, nodes merged pairwise in a
// random order. Returns the pair and the most merges on any term's path.
PairSum random_tree(const std::vector<double>& x, std::mt19937_64& rng, int64_t& depth) {
  struct Node {
    PairSum p;
    int64_t d = 0;
  };
  std::vector<Node> nodes;
  for (size_t i = 0; i < x.size();) {
    Node nd;
    const size_t run = 1 + rng() % 64;
    for (size_t k = 0; k < run && i < x.size(); ++k, ++i) {
      pair_add(nd.p, x[i]);
      ++nd.d;
    }
    nodes.push_back(nd);
  }
  if (nodes.empty()) nodes.push_back(Node{});
  while (nodes.size() > 1) {
    const size_t a = rng() % (nodes.size() - 1);
    pair_merge(nodes[a].p, nodes[a + 1].p);
    nodes[a].d = std::max(nodes[a].d, nodes[a + 1].d) + 1;
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(a) + 1);
  }
  depth = nodes[0].d;
  return nodes[0].p;
}

// |s + c - sum x| rounded to nearest, exactly accumulated.
double pair_error(const PairSum& p, const std::vector<double>& x) {
  Superacc acc;
  acc.clear();
  acc.add(p.s);
  acc.add(p.c);
  for (double v : x) acc.add(-v);
  return std::fabs(acc.round());
}

TEST(PairSum, WithinItsBoundAndDecidesOnlyTheCorrectRounding) {
  std::mt19937_64 rng(7);
  int decided = 0, open = 0, cases = 0, bounded = 0;
  for (const char* dist : {"uniform", "uniform-sym", "loguniform", "illcond", "overflow-cancel", "ties", "subnormal"})
    for (int64_t n : {1, 2, 3, 17, 1000, 40001})
      for (double cond : {1e3, 1e12, 1e30}) {
        if (std::string(dist) == "ties" && n < 2) continue;  // a single double is never a tie
        Dataset d = test::make(dist, false, n, cond, 11 + n, 1e50);
        int64_t D = 0;
        const PairSum p = random_tree(d.x, rng, D);
        const double scale = pair_bound_scale(D);
        ASSERT_GT(scale, 0.0);
        if (p.a < kPairSumMaxMass) {  // the bound's domain: no partial sum can overflow
          EXPECT_LE(pair_error(p, d.x), p.a * scale) << dist << " n=" << n << " D=" << D;
          ++bounded;
        }
        double r = 0;
        if (pair_round_within(p, scale, 0.0, r)) {
          EXPECT_PRED2(test::same_bits, r, test::exact_of(d).rounded) << dist << " n=" << n << " cond=" << cond;
          ++decided;
        } else {
          ++open;
        }
        ++cases;
      }
  EXPECT_EQ(cases, 7 * 6 * 3 - 3);
  EXPECT_GT(bounded, cases / 2);
  EXPECT_GT(decided, cases / 3);
  EXPECT_GT(open, 0);
}

PairSum sequential(const std::vector<double>& x) {
  PairSum p;
  for (double v : x) pair_add(p, v);
  return p;
}

bool decides(const std::vector<double>& x, double& r) {
  return pair_round_within(sequential(x), pair_bound_scale(static_cast<int64_t>(x.size())), 0.0, r);
}

TEST(PairSum, LeavesMidpointsZerosTinyAndSpecialsOpen) {
  const double inf = std::numeric_limits<double>::infinity();
  double r = 0;
  EXPECT_FALSE(decides({1.0, 0x1p-53}, r));              // exactly the midpoint of 1 and 1 + 2^-52
  EXPECT_FALSE(decides({1.0, 0x1p-53, 0x1p-200}, r));    // a hair above it: c loses the hair
  EXPECT_FALSE(decides({1.0, 0x1p-53, -0x1p-200}, r));   // a hair below it
  EXPECT_FALSE(decides({1.5, -1.5}, r));                 // zero: its sign is the exact pass's
  EXPECT_FALSE(decides({0x1p-1010, 0x1p-1012}, r));      // tiny
  EXPECT_FALSE(decides({1.0, std::nan("")}, r));         // NaN
  EXPECT_FALSE(decides({1.0, inf}, r));                  // an infinity
  EXPECT_FALSE(decides({0x1p1000, -0x1p1000, 1.0}, r));  // a mass that could overflow
  EXPECT_FALSE(decides({1e300, 1.0, -1e300}, r));        // condition 1e300: the bound is far too wide
  ASSERT_TRUE(decides({1.0, 0x1p-60}, r));
  EXPECT_EQ(r, 1.0);
  ASSERT_TRUE(decides({1.0, 0x1p-53, 0x1p-60}, r));  // past the midpoint by far more than the bound
  EXPECT_EQ(r, 1.0 + 0x1p-52);
  ASSERT_TRUE(decides({4.0, -0x1p-60}, r));  // below a power of two the gap is half as wide
  EXPECT_EQ(r, 4.0);
  EXPECT_FALSE(decides({4.0, -0x1p-52}, r));           // the midpoint of 4 and its lower neighbour
  ASSERT_TRUE(decides({4.0, -0x1p-52, -0x1p-60}, r));  // past it
  EXPECT_EQ(r, 4.0 - 0x1p-51);
}

// A dot product as the pair sum of its TwoProductFMA terms: within the bound plus the slack of
// underflowing products, and decided only to the exact dot rounded to nearest.
TEST(PairSum, DotsThroughTheirProductTerms) {
  std::mt19937_64 rng(9);
  int decided = 0, cases = 0;
  for (const char* dist : {"uniform", "uniform-sym", "loguniform", "illcond", "subnormal"})
    for (int64_t n : {1, 2, 5, 1000, 30001})
      for (double cond : {1e3, 1e30}) {
        Dataset d = test::make(dist, true, n, cond, 17 + n, 1e50);
        std::vector<double> terms;
        for (int64_t i = 0; i < n; ++i) {
          double h, t;
          two_prod_fma(d.x[i], d.y[i], h, t);
          terms.push_back(h);
          terms.push_back(t);
        }
        int64_t D = 0;
        const PairSum p = random_tree(terms, rng, D);
        const double scale = pair_bound_scale(D), slack = pair_dot_slack(n);
        EXPECT_GE(slack, std::ldexp(static_cast<double>(n), -1075));
        double r = 0;
        if (pair_round_within(p, scale, slack, r)) {
          EXPECT_PRED2(test::same_bits, r, test::exact_of(d).rounded) << dist << " n=" << n << " cond=" << cond;
          ++decided;
        }
        ++cases;
      }
  EXPECT_EQ(cases, 5 * 5 * 2);
  EXPECT_GT(decided, cases / 3);
}

TEST(PairSum, BoundScaleGrowsWithDepthAndGivesUpWhenMeaningless) {
  EXPECT_EQ(pair_bound_scale(0), 0.0);
  const double s1 = pair_bound_scale(1), s100 = pair_bound_scale(100), s1m = pair_bound_scale(1 << 20);
  EXPECT_GT(s1, 2 * 0x1p-106);  // gamma_2 u >= 2 u^2
  EXPECT_LT(s1, 3 * 0x1p-106);
  EXPECT_GT(s100, s1 * 100 * 100);  // ~ 2 D^2 u^2
  EXPECT_GT(s1m, s100);
  EXPECT_EQ(pair_bound_scale(int64_t(1) << 50), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace accsum
