#pragma once
// Selectively compensated SGEMM: the readable definition every backend reproduces bit for bit.
//
// Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs"
// (Scientific Programming 19, 2011): each entry c_ij = sum_k a_ik b_kj is computed by summing
// `tile` products plainly into a strip sum p (Fig. 2, lines 5-7), then adding p to the running
// total with a compensated addition:
//   kahan: Kahan's compensated summation, Fig. 3 (Kahan 1965), one step per strip;
//   dcs:   Priest's doubly compensated summation, Fig. 1 lines 5-11 (Priest 1992), one step per
//          strip, with Fig. 2's ordering: when |partial| > |total| the strip sum plays the role
//          of the running sum and the total that of the summand (Fig. 2, lines 8-11). The
//          compensation c is carried from strip to strip (a fresh dcsum(2, ...) per strip, read
//          literally, would round back to a plain addition).
//   none:  plain recursive summation over all K products (the control, no strips).
// The result is s (Figs. 1 and 3 return s_n; the last compensation term is dropped).
// tile = 1 compensates every addition. fma = 1 accumulates products with fused multiply-add
// (p = fma(a, b, p)); fma = 0 rounds each product first (p = p + fl(a*b)), as in the paper's
// Table 3. Products enter in the order k = 0, 1, ..., K-1 for every entry, on every backend.
//
// BLAS conventions: C = alpha*A*B + beta*C, column-major, A is M x K (lda = M), B is K x N
// (ldb = K), C is M x N (ldc = M). beta == 0: C is not read; alpha == 0: A and B are not read.
// The final step rounds alpha*s, then adds beta*c (fma = 1: fma(alpha, s, fl(beta*c))).
// IEEE specials: when a compensated entry comes out non-finite (an infinity met a compensation
// term, giving inf - inf = NaN), the entry is recomputed without compensation, so NaN and the
// infinities propagate exactly as in plain summation.
//
// dgemm (BLAS DGEMM's plain form) is the none case in double: plain_dot and finish on doubles.
//
// Everything here is ACCSUM_HD (also compiled into the CUDA kernels).
#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "core/numerics/compensated.h"

namespace accsum::gemm {

enum Comp : int { kNone = ACCSUM_COMP_NONE, kKahan = ACCSUM_COMP_KAHAN, kDcs = ACCSUM_COMP_DCS };

ACCSUM_HD bool finite(float x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}

// One product accumulated into p (core/numerics/compensated.h).
ACCSUM_HD float mul_add(float a, float b, float p, bool fma) { return accsum_mul_add_f32(a, b, p, fma); }
ACCSUM_HD double mul_add(double a, double b, double p, bool fma) {
  if (fma) return ::fma(a, b, p);
  double prod = a * b;
  return p + prod;
}

// Plain recursive summation of the K products of row i of A (stride lda) and column j of B, in k order.
template <class F>
ACCSUM_HD F plain_dot(const F* a_row, int64_t lda, const F* b_col, int64_t K, bool fma) {
  F s = 0;
  for (int64_t k = 0; k < K; ++k) s = mul_add(a_row[k * lda], b_col[k], s, fma);
  return s;
}

// The running total (s, c) of the compensated summation.
struct CompState {
  float s = 0.0f, c = 0.0f;
};

// Kahan's (Fig. 3) or Priest's (Fig. 1 with Fig. 2's ordering) step: core/numerics/compensated.h.
ACCSUM_HD void comp_add(int comp, float& s, float& c, float x) { accsum_comp_add_f32(comp, &s, &c, x); }

// alpha*s + beta*c_in with BLAS conventions (see the header comment).
ACCSUM_HD float finish(float s, float alpha, float beta, const float* c_in, bool fma) {
  if (alpha == 0.0f) return beta == 0.0f ? 0.0f : beta * *c_in;
  if (beta == 0.0f) return alpha * s;
  float bc = beta * *c_in;
  if (fma) return fmaf(alpha, s, bc);
  float as = alpha * s;
  return as + bc;
}
ACCSUM_HD double finish(double s, double alpha, double beta, const double* c_in, bool fma) {
  if (alpha == 0.0) return beta == 0.0 ? 0.0 : beta * *c_in;
  if (beta == 0.0) return alpha * s;
  double bc = beta * *c_in;
  if (fma) return ::fma(alpha, s, bc);
  double as = alpha * s;
  return as + bc;
}

// The inner sum of one entry: row i of A (stride lda) times column j of B (contiguous).
ACCSUM_HD float dot_entry(const float* a_row, int64_t lda, const float* b_col, int64_t K, int comp, int tile,
                          bool fma) {
  if (comp == kNone) return plain_dot(a_row, lda, b_col, K, fma);
  float s = 0.0f, c = 0.0f;
  for (int64_t k0 = 0; k0 < K; k0 += tile) {
    int64_t k1 = k0 + tile < K ? k0 + tile : K;
    float p = 0.0f;
    for (int64_t k = k0; k < k1; ++k) p = mul_add(a_row[k * lda], b_col[k], p, fma);
    comp_add(comp, s, c, p);
  }
  if (!finite(s)) return dot_entry(a_row, lda, b_col, K, kNone, tile, fma);
  return s;
}

}  // namespace accsum::gemm
