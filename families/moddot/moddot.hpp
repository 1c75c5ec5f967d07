#pragma once
// Dot products over Z/pZ computed exactly in binary64: the lambda- and (alpha, beta, gamma,
// delta)-algorithms of
//   T. Jean, S. Graillat, "A parallel algorithm for dot product over word-size finite field
//   using floating-point arithmetic", SYNASC 2010 (Theorem 3; Section IV-C; Algorithm 3),
// and our round-to-nearest variants of both (derivation below).
//
// Inputs are residues a_i, b_i in [0, p) stored exactly as doubles, p prime with p - 1 < 2^52
// (the paper's hypothesis (1) with M = 53). Every function here returns the residue
// sum a_i b_i mod p as an integer.
//
// This header holds the round-to-nearest kernels and mode-independent helpers. Everything is
// in an anonymous namespace on purpose: the round-toward-zero kernels live in their own
// translation unit (backends/cpu/moddot_rz.cpp, compiled with -frounding-math) and must never
// share an out-of-line copy of a function with code compiled for round-to-nearest.
//
// ---- Round-to-nearest: the splitting bounds re-derived -------------------------------------
// Split(sigma, v) = ExtractScalar of Rump, Ogita, Oishi, "Accurate floating-point summation
// part I", SIAM J. Sci. Comput. 31(1), 2008, Alg. 3.2 / Lemma 3.3: for sigma = 2^k and
// |v| <= sigma, q = fl(fl(sigma + v) - sigma), e = fl(v - q) satisfy v = q + e exactly,
// q in 2^(k-53) Z, |e| <= 2^(k-53) (in round-to-nearest; signs may be mixed).
// TwoProduct by FMA: h = fl(a b), r = fma(a, b, -h) = a b - h exactly, |r| <= ulp(h)/2.
//
// (alpha, beta, gamma, delta), round to nearest. a, b in [0, 2^52): h in [0, 2^104],
// |r| <= 2^51.
//   [alpha, beta'] = Split(2^131, h):  alpha in 2^78 Z, |beta'| <= 2^78, alpha <= 2^104 + 2^78
//   [beta, eps]    = Split(2^105, beta'): beta in 2^52 Z, |eps| <= 2^52, |beta| <= 2^78 + 2^52
//   t = eps + r: an integer with |t| <= 2^52 + 2^51 < 2^53, so fl(eps + r) is exact
//   [gamma, delta] = Split(2^79, t):   gamma in 2^26 Z, |delta| <= 2^26, |gamma| <= 2^52+2^51+2^26
// In units of 2^78, 2^52, 2^26, 1 every piece is an integer of magnitude at most
// 2^26 + 2^25 + 1, so any partial sum of N <= 2^26 pieces is an integer multiple of its unit
// below 2^53 units: representable, hence every addition is exact (in any order, which is what
// lets threads and SIMD lanes split the sums). Blocks of at most 2^26 elements; the four sums
// are reduced mod p by fmod (exact) between blocks. No case analysis: branch-free.
//
// lambda, round to nearest. Let 2^l <= p - 1 < 2^(l+1) (l <= 51). h <= 2^(2l+2),
// |r| <= ulp(h)/2 <= 2^(2l-51) <= 2^l.
//   [alpha, beta] = Split(2^(l+53), h): h >= 0, so sigma + h lies in [2^(l+53), 2^(l+54)]
//   whose ulp is 2^(l+1): alpha in 2^(l+1) Z, |beta| <= 2^l (half an ulp); Split needs
//   h <= sigma, true as h <= 2^(2l+2) <= 2^(l+53) for l <= 51.
//   alpha' = alpha / 2^(l+1) in [0, 2^(l+1)]; beta, r in [-2^l, 2^l].
// Each piece v is mapped to a field element by v + p (v < 0) or v - p (v >= p): since
// 2^l <= p - 1 and 2^(l+1) <= 2p - 2 the result is in [0, p - 1]. Then, as in the paper's
// Theorem 3, lambda (p - 1) < 2^52 (hypothesis (3) with M = 53) bounds a chunk of lambda
// field elements below 2^52: summed exactly, then reduced. a.b = 2^(l+1) S_alpha + S_beta + S_r.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/frame/registry.hpp"
#include "core/numerics/modp.h"
#include "core/simd/modp_avx2.hpp"

namespace accsum::moddot {
namespace {

// Blocks of the (alpha, beta, gamma, delta)-algorithm: N <= 2^floor(53/2) (the paper's (4)).
constexpr int64_t kAbgdBlock = int64_t(1) << 26;

// The block length as an algorithm parameter: the default is the paper's one-pass limit; any
// shorter block is exact too (only more reductions), which lets tests cross block boundaries
// with small vectors.
inline ParamSpec block_param() {
  return ParamSpec{"block",
                   "terms summed before a reduction (default and maximum 2^26, the one-pass limit)",
                   true,
                   1,
                   kAbgdBlock,
                   {},
                   std::to_string(kAbgdBlock)};
}

// The field operations and the per-element steps are core/numerics/modp.h's (accsum_modp_*,
// accsum_abgd_*, accsum_lambda_*), shared with CUDA and OpenCL C.

// (alpha, beta, gamma, delta), round to nearest, one block of n <= kAbgdBlock elements:
// returns the residue.
inline double abgd_rn_block(const double* x, const double* y, int64_t n, accsum_modp m) {
  AbgdSums s = abgd_block_simd(x, y, n, 0x1p79);
  return accsum_abgd_residue(s.a, s.b, s.c, s.d, m);
}

// Blocks of `block` <= kAbgdBlock elements.
inline uint64_t abgd_rn(const double* x, const double* y, int64_t n, uint64_t p, int64_t block = kAbgdBlock) {
  const accsum_modp m = accsum_modp_init(p);
  double acc = 0;
  for (int64_t b = 0; b < n; b += block)
    acc = accsum_modp_add(acc, abgd_rn_block(x + b, y + b, std::min(block, n - b), m), m);
  return static_cast<uint64_t>(acc);
}

// lambda-algorithm, round to nearest: pieces mapped to field elements, chunks of lambda
// terms summed exactly, one reduction per chunk and accumulator.
inline uint64_t lambda_rn(const double* x, const double* y, int64_t n, uint64_t p) {
  const accsum_modp m = accsum_modp_init(p);
  double Sa = 0, Sb = 0, Sr = 0;  // residues
  for (int64_t c = 0; c < n; c += m.lambda) {
    const int64_t e = std::min(n, c + m.lambda);
    double ca = 0, cb = 0, cr = 0;  // at most lambda (p - 1) < 2^52: exact
    for (int64_t i = c; i < e; ++i) accsum_lambda_put(x[i], y[i], m, &ca, &cb, &cr);
    accsum_lambda_flush(m, &ca, &cb, &cr, &Sa, &Sb, &Sr);
  }
  return static_cast<uint64_t>(accsum_lambda_residue(Sa, Sb, Sr, m));
}

}  // namespace
}  // namespace accsum::moddot
