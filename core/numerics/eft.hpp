#pragma once
// Error-free transformations (Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci.
// Comput. 26(6), 2005, Sec. 3). Each returns a result s and an error e with s + e equal to the
// exact value. The formulas are defined once, in core/numerics/numerics.h (shared with CUDA device code and
// OpenCL C); these are their reference-style C++ names. They are only exact if nothing contracts
// a*b+c into an FMA nor reassociates: host code is built with -ffp-contract=off and no fast-math,
// CUDA device code uses __dadd_rn & co. (core/numerics/numerics.h), and every backend runs eft_self_test()
// before it computes anything.
#include <cmath>
#include "base/hd.hpp"
#include "core/numerics/numerics.h"

namespace accsum {

// Knuth's TwoSum (ORO Alg. 3.1): 6 flops, no branch, no precondition.
ACCSUM_HD void two_sum(double a, double b, double& s, double& e) { accsum_two_sum(a, b, &s, &e); }

// Dekker's FastTwoSum (ORO Alg. 1.1): needs |a| >= |b| (or a == 0).
ACCSUM_HD void fast_two_sum(double a, double b, double& s, double& e) { accsum_fast_two_sum(a, b, &s, &e); }

// Veltkamp/Dekker Split (ORO Alg. 3.2) with factor 2^27 + 1: a = hi + lo, each with at most 26 bits.
ACCSUM_HD void split(double a, double& hi, double& lo) { accsum_split(a, &hi, &lo); }

// Dekker's TwoProduct (ORO Alg. 3.3; 17 flops, no FMA needed); exact unless a*b underflows.
ACCSUM_HD void two_prod_dekker(double a, double b, double& p, double& e) { accsum_two_prod_dekker(a, b, &p, &e); }

// TwoProductFMA (ORO Alg. 3.5): one FMA recovers the rounding error of a*b exactly.
ACCSUM_HD void two_prod_fma(double a, double b, double& p, double& e) { accsum_two_prod_fma(a, b, &p, &e); }

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
