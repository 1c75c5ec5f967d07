/* core/numerics/dpsum.h: the one definition of the per-element steps of DPSumK and DPDotK
 * (Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, SumK
 * Alg. 4.8 and DotK Alg. 5.10, as data-parallel reductions: Suzuki, "Parallel algorithms for
 * accurate summation and dot product on the GPU"), shared by host C++ (families/sum_dot/dpsum.hpp,
 * which holds the variants' definitions and the bound), CUDA device code
 * (backends/cuda/agent/dpsumk_agent.cuh) and OpenCL C (backends/opencl/kernels/dpsumk.cl).
 *
 * A fused lane keeps K levels a[0..K-1]: a[0..K-2] TwoSum accumulators, a[K-1] a plain one. The
 * tree variant's node is one pair (a, b) of the pairwise tree. Written like
 * core/numerics/numerics.h: the common subset of C99, OpenCL C 1.2, C++17 and CUDA; K, the
 * TwoSum and the TwoProduct are arguments that the callers pass as constants, so that after
 * inlining the loops unroll and the state stays in registers.
 */
#ifndef ACCSUM_CORE_DPSUM_H
#define ACCSUM_CORE_DPSUM_H

#include "core/numerics/numerics.h"
#include "core/numerics/numerics_ext.h"

/* Dekker's FastTwoSum after ordering the operands by magnitude. For finite data it returns the
 * very (s, e) of TwoSum: both are error-free and the error of a rounded sum is unique; only the
 * sign of a zero error may differ (which changes no nonzero result). It costs 3 additions and a
 * comparison instead of 6 additions, which is what keeps the GPU's fused kernel memory-bound
 * for K = 3, 4 (FP64 throughput is its other limit). */
ACCSUM_FN void accsum_two_sum_ordered(double a, double b, double* s, double* e) {
  const int a_big = fabs(a) >= fabs(b);
  const double hi = a_big ? a : b, lo = a_big ? b : a;
  const double t = ACCSUM_ADD(hi, lo);
  *e = ACCSUM_SUB(lo, ACCSUM_SUB(t, hi));
  *s = t;
}

/* Adds v at level `level` of a[0..K-1], passing each TwoSum error one level down (the vertical
 * form of SumK); `ordered` picks accsum_two_sum_ordered for the TwoSums (same nonzero bits). */
ACCSUM_FN void accsum_kf_add(double* a, int K, int level, double v, int ordered) {
  ACCSUM_UNROLL
  for (int k = 0; k < K - 1; ++k) {
    if (k >= level) {
      double s, e;
      if (ordered)
        accsum_two_sum_ordered(a[k], v, &s, &e);
      else
        accsum_two_sum(a[k], v, &s, &e);
      a[k] = s;
      v = e;
    }
  }
  a[K - 1] = ACCSUM_ADD(a[K - 1], v);
}

/* Every level at -0, the identity of round-to-nearest addition. */
ACCSUM_FN void accsum_kf_clear(double* a, int K) {
  ACCSUM_UNROLL
  for (int k = 0; k < K; ++k) a[k] = -0.0;
}

/* One element of a sum. */
ACCSUM_FN void accsum_kf_sum_elem(double* a, int K, double x, int ordered) { accsum_kf_add(a, K, 0, x, ordered); }

/* One element of a dot: x*y = h + t exactly (no underflow); h joins level 0, t level 1 (DotK). */
ACCSUM_FN void accsum_kf_dot_elem(double* a, int K, double x, double y, int dekker, int ordered) {
  double h, t;
  if (dekker)
    accsum_two_prod_dekker(x, y, &h, &t);
  else
    accsum_two_prod_fma(x, y, &h, &t);
  accsum_kf_add(a, K, 0, h, ordered);
  accsum_kf_add(a, K, 1, t, ordered);
}

/* a <- a merged with b (b's level k joins a's level k): the lane tree's node. */
ACCSUM_FN void accsum_kf_merge(double* a, const double* b, int K, int ordered) {
  ACCSUM_UNROLL
  for (int k = 0; k < K; ++k) accsum_kf_add(a, K, k, b[k], ordered);
}

/* The tree variant's node (a, b): TwoSum keeps the sum at a and the error at b (DPSum, Alg.
 * 3.2); plain adds b into a (DPRed, Alg. 3.1). The plain addition is the language's own: no
 * product feeds it, so nothing can contract, and a compiler may execute it speculatively where
 * the node is conditional (CUDA's __dadd_rn it would branch around). */
ACCSUM_FN void accsum_dp_node(double* a, double* b, int plain) {
  if (plain) {
    *a = *a + *b;
  } else {
    double s, e;
    accsum_two_sum(*a, *b, &s, &e);
    *a = s;
    *b = e;
  }
}

#endif /* ACCSUM_CORE_DPSUM_H */
