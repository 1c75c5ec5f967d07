#pragma once
// A sum within a proven bound, to decide a correct rounding without exact accumulation where
// the data allows it (the GPU superacc's bounded pass; the cpu kernels' analogue is
// families/sum_dot/superacc_host.hpp round_within).
//
// Sum2 of Ogita, Rump, Oishi ("Accurate sum and dot product", SISC 26(6), 2005, Alg. 4.4) over
// any tree of merges: a node keeps s, the float sum of its terms, c, the float sum of the
// errors of the TwoSums (Knuth) that formed s, and a, the float sum of |term|. A leaf added to a
// node or two nodes merged is one merge. With D the most merges on any term's path to the root,
// A = sum |x|, S = sum x (our derivation, the argument of ORO's Prop. 4.5 on a tree):
//   s + E = S exactly, E the sum of the TwoSum errors (TwoSum is error-free, also with underflow);
//   a merge's float sum has |s| <= (1+u)^D A_node, so its error is at most u (1+u)^D A_node, and a
//   term lies in at most D merges: sum |e| <= D u (1+u)^D A;
//   c adds the errors plainly, each through at most 2D additions (c1 + c2, then + e):
//   |c - E| <= gamma_2D sum |e|;
//   a passes each |x| through at most D additions: A <= a / (1-u)^D.
// Hence |s + c - S| <= a * scale, scale = gamma_2D D u (1+u)^D / (1-u)^D (pair_bound_scale).
// Additions never err by more than u times their result (an addition that underflows is
// exact), so no underflow term enters. No partial sum can overflow while a < 2^1000.
// A dot product is the sum of the 2n terms h, t of TwoProductFMA (Ogita, Rump, Oishi 2005,
// Alg. 3.5: h = fl(x y), t = fma(x, y, -h)); h + t = x y exactly unless the product underflows,
// and |x y - h - t| <= 2^-1075 otherwise, so the dot's bound adds n 2^-1075 (pair_dot_slack).
#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "core/numerics/eft.hpp"

namespace accsum {

struct PairSum {
  double s = 0.0, c = 0.0, a = 0.0;
};

ACCSUM_HD void pair_add(PairSum& p, double x) {
  double e;
  two_sum(p.s, x, p.s, e);
  p.c += e;
  p.a += ::fabs(x);
}

ACCSUM_HD void pair_merge(PairSum& p, const PairSum& q) {
  double e;
  two_sum(p.s, q.s, p.s, e);
  p.c = (p.c + q.c) + e;
  p.a += q.a;
}

// Below this, no partial sum, error or bound of a pair sum can overflow.
constexpr double kPairSumMaxMass = 0x1p1000;
// The rounding is decided only for results at least this large: their neighbours' half-gaps are
// exact and far from the subnormal range.
constexpr double kPairSumMinResult = 0x1p-1000;

// The correctly rounded sum, when the pair's bound decides it: S lies within a * scale of s + c,
// and every value of that interval rounds to the same double. False when it does not (the
// interval holds a rounding boundary), when a is not below kPairSumMaxMass (also NaN or an
// infinity among the terms), or when the result would be zero or tiny (the sign of a zero and
// subnormal gaps are left to the exact path).
// slack: what the terms may differ from the data's exact sum by (0 for a sum, pair_dot_slack).
ACCSUM_HD bool pair_round_within(const PairSum& p, double scale, double slack, double& out) {
  if (!(p.a < kPairSumMaxMass)) return false;
  double r, t;
  two_sum(p.s, p.c, r, t);  // r = RN(s + c), r + t = s + c
  const double ar = ::fabs(r);
  if (!(ar >= kPairSumMinResult && ar < kPairSumMaxMass)) return false;
  const double b = ::nextafter(p.a * scale, HUGE_VAL);   // >= a * scale (one rounding to nearest)
  const double b_up = ::nextafter(b + slack, HUGE_VAL);  // >= a * scale + slack
  // S in [r + t - b_up, r + t + b_up]; RN(S) = r while S stays strictly between the midpoints
  // r - lo and r + hi (exact: half the gaps to r's neighbours).
  const double hi = (::nextafter(r, HUGE_VAL) - r) * 0.5, lo = (r - ::nextafter(r, -HUGE_VAL)) * 0.5;
  const double top = ::nextafter(t + b_up, HUGE_VAL), bottom = ::nextafter(t - b_up, -HUGE_VAL);
  if (!(top < hi && bottom > -lo)) return false;
  out = r;
  return true;
}

// scale = gamma_2D D u (1+u)^D / (1-u)^D rounded up, for at most D merges on any term's path;
// +inf when D is too large for the bound to mean anything.
double pair_bound_scale(int64_t depth);
// n 2^-1075 rounded up: the most the TwoProductFMA terms of n products may miss them by.
double pair_dot_slack(int64_t n);

}  // namespace accsum
