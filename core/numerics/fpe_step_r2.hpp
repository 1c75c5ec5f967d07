#pragma once
// The R = 2 fpe-sum / fpe-dot step (families/sum_dot/fpe_sum.hpp: fpe_acc_add2_sum, fpe_acc_add2_dot) with
// Fast2Sum (T. J. Dekker, "A floating-point technique for extending the available precision", Numer.
// Math. 18, 1971: s = RN(a+b), err = b - RN(s - a), exact when a = 0 or e_a >= e_b) in place of 2Sum
// where its precondition is proven below: 13 floating-point additions per element instead of 19
// (dot: 20 instead of 26). Where both are exact the pair (RN(a+b), a+b-RN(a+b)) is the same, so
// the values are the definition's; zero terms may differ in sign (no nonzero value depends on it,
// and fpe_acc_finish decides the sign of a zero result anew).
//
// The lane (a0, a1) always holds a 2Sum's output: a1 = 0 or |a1| <= ulp(a0)/2 <= u|a0|, u = 2^-53.
// Lemma: for c = RN(x+y), d = x+y-c, either d = 0, or c is normal, |d| <= u|c| and
//   |c| >= max(|x|, |y|)/2 (x, y of opposite signs with |y| in [|x|/2, 2|x|] add exactly, Sterbenz).
// Sum step: (t, e) = 2Sum(a0, v); (s0, f) = 2Sum(t, a1); (a0, a1) = 2Sum(s0, e + f).
//  - 2Sum(t, a1) -> Fast2Sum: if a0 + v is in Sterbenz's range, t = a0 + v is a multiple of
//    min(ulp(a0), ulp(v)) >= ulp(a0)/2, so t = 0 or |t| >= |a1|; otherwise |t| >= |a0|/2 >= |a1|.
//  - 2Sum(s0, e + f) -> Fast2Sum: if e = 0, |e + f| = |f| <= u|s0|. If e != 0, |t| >= |a0|/2, so
//    |a1| <= 2u|t|, |s0| >= (1-3u)|t| and |e + f| <= u|t| + u|s0| < 3u|s0|.
// Dot step (h + tl the exact product, |tl| <= u|h|): (t, e) = 2Sum(a0, h); (s0, f) = 2Sum(t, a1);
//   (s1, g) = 2Sum(s0, tl); (a0, a1) = 2Sum(s1, (e + f) + g).
//  - 2Sum(t, a1) -> Fast2Sum as for the sum (v = h). 2Sum(s0, tl) stays: after a0 + h cancels,
//    tl may exceed s0.
//  - the last 2Sum -> Fast2Sum: with E = (e + f) + g, |E| <= |s1| in every case (s1 = 0 needs none):
//    g != 0: |s1| >= |s0|/2, |s1| >= |tl|/2, |g| <= u|s1|, |f| <= u|s0| <= 2u|s1|, and |e| <= u|t|
//      with |t| <= 2|s0| (f != 0) or |t| <= |s0|/(1-2u) (f = 0, e != 0): |E| < 8u|s1|.
//    g = 0, e != 0: |t| >= |h|/2, |t| >= |a0|/2, so |a1|, |tl| <= 2u|t| and |s1| >= (1-5u)|t|,
//      |E| <= u|t| + u|s0| < 3u|s1|.
//    g = 0, e = 0, f != 0: |E| = |f| <= ulp(s0)/2; s1 = s0 + tl is either in Sterbenz's range,
//      a multiple of min(ulp(s0), ulp(tl)) >= ulp(s0)/2, or |s1| >= |s0|/2: |E| <= |s1|.
//    e = f = g = 0: E = 0.
// Non-finite data: an overflowing sum gives a non-finite error in both forms (2Sum: NaN; Fast2Sum:
// NaN or the opposite infinity), and either way the lane, every merge above it and the rounded
// root are NaN (the registry's IEEE rule then decides the result from the input).
#include "base/hd.hpp"

namespace accsum::fpe_step {

// O::V the lane type; O::two_sum (2Sum), O::fast_two_sum (Fast2Sum), O::add.
template <class O>
ACCSUM_HD void step2_sum(typename O::V* a, typename O::V v) {
  typename O::V t, e, s0, f;
  O::two_sum(a[0], v, t, e);
  O::fast_two_sum(t, a[1], s0, f);
  O::fast_two_sum(s0, O::add(e, f), a[0], a[1]);
}

template <class O>
ACCSUM_HD void step2_dot(typename O::V* a, typename O::V h, typename O::V tl) {
  typename O::V t, e, s0, f, s1, g;
  O::two_sum(a[0], h, t, e);
  O::fast_two_sum(t, a[1], s0, f);
  O::two_sum(s0, tl, s1, g);
  O::fast_two_sum(s1, O::add(O::add(e, f), g), a[0], a[1]);
}

}  // namespace accsum::fpe_step
