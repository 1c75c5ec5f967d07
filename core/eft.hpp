#pragma once
// Error-free transformations (seed 000 §2; Ogita, Rump, Oishi 2005). Each returns a result s
// and an error e with s + e equal to the exact value. They are only exact if the compiler
// neither contracts a*b+c into an FMA nor reassociates: host code is built with
// -ffp-contract=off and no fast-math, CUDA code with --fmad=false (see CMakeLists.txt), and
// every backend runs eft_self_test() before it computes anything.
#include <cmath>
#include "core/hd.hpp"

namespace accsum {

// Knuth's TwoSum: 6 flops, no branch, no precondition.
ACCSUM_HD void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  double v = s - a;
  e = (a - (s - v)) + (b - v);
}

// Dekker's FastTwoSum: needs |a| >= |b| (or a == 0).
ACCSUM_HD void fast_two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  e = b - (s - a);
}

// Veltkamp/Dekker Split with factor 2^27 + 1: a = hi + lo, each with at most 26 bits.
ACCSUM_HD void split(double a, double& hi, double& lo) {
  const double factor = 134217729.0;  // 2^27 + 1
  double c = factor * a;
  hi = c - (c - a);
  lo = a - hi;
}

// Dekker's TwoProduct (17 flops, no FMA needed); exact unless a*b underflows.
ACCSUM_HD void two_prod_dekker(double a, double b, double& p, double& e) {
  p = a * b;
  double a1, a2, b1, b2;
  split(a, a1, a2);
  split(b, b1, b2);
  e = a2 * b2 - (((p - a1 * b1) - a2 * b1) - a1 * b2);
}

// TwoProductFMA: one FMA recovers the rounding error of a*b exactly.
ACCSUM_HD void two_prod_fma(double a, double b, double& p, double& e) {
  p = a * b;
  e = fma(a, b, -p);
}

// Self-test of the transforms on cases where contraction or reassociation would change the
// error term; returns true when all are exact. `volatile` keeps constants from folding.
inline bool eft_self_test() {
  volatile double one = 1.0, tiny = 0x1p-60, big = 0x1p53;
  double s, e;
  two_sum(one, tiny, s, e);
  if (s != 1.0 || e != 0x1p-60) return false;
  two_sum(big, one, s, e);  // 2^53 + 1 rounds to even: error 1
  if (s != 0x1p53 || e != 1.0) return false;
  volatile double a = 1.0 + 0x1p-30, b = 1.0 - 0x1p-30;
  double p;
  two_prod_dekker(a, b, p, e);
  if (p != 1.0 || e != -0x1p-60) return false;
  two_prod_fma(a, b, p, e);
  if (p != 1.0 || e != -0x1p-60) return false;
  fast_two_sum(one, tiny, s, e);
  return s == 1.0 && e == 0x1p-60;
}

}  // namespace accsum
