#pragma once
// The AVX2 lanes of the moddot family's host kernels: the lambda- and (alpha, beta, gamma, delta)-
// algorithms of T. Jean, S. Graillat, "A parallel algorithm for dot product over word-size finite
// field using floating-point arithmetic", SYNASC 2010 (derivations in families/moddot/moddot.hpp),
// each lane the operations of core/numerics/modp.h's scalar steps, which also finish the tails.
// In an anonymous namespace, as moddot.hpp: the round-toward-zero translation unit
// (backends/cpu/moddot_rz.cpp) must never share an out-of-line copy with round-to-nearest code.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "core/numerics/modp.h"

namespace accsum::moddot {
namespace {

// The four exact sums of one block (n <= kAbgdBlock) of the branch-free splitting
//   [alpha, beta'] = Split(2^131, h), [beta, eps] = Split(2^105, beta'), t = eps + r,
//   [gamma, delta] = Split(s3, t)
// in AVX2 (x86-64-v3, the project's target): 2 x 4 lanes, each lane the same operations as the
// scalar tail. s3 = 2^79 in round to nearest (above); the round-toward-zero lane form of
// Algorithm 3 (backends/cpu/moddot_rz.cpp) calls it with s3 = 2^78 under FE_TOWARDZERO, which
// the vector unit obeys (MXCSR). Every sum is exact, so lane order does not matter.
struct AbgdSums {
  double a, b, c, d;
};
inline AbgdSums abgd_block_simd(const double* x, const double* y, int64_t n, double s3) {
  const __m256d S1 = _mm256_set1_pd(0x1p131), S2 = _mm256_set1_pd(0x1p105), S3 = _mm256_set1_pd(s3),
                ONE = _mm256_set1_pd(1.0);
  __m256d A0 = _mm256_setzero_pd(), B0 = A0, C0 = A0, D0 = A0, A1 = A0, B1 = A0, C1 = A0, D1 = A0;
  auto step = [&](__m256d a, __m256d b, __m256d& A, __m256d& B, __m256d& C, __m256d& D) {
    __m256d h = _mm256_mul_pd(a, b);
    __m256d r = _mm256_fmsub_pd(a, b, h);  // a b - h, one rounding: exact
    // Some additions are done as fma(v, +-1, w): the same rounded result (v * 1 is exact), but
    // on the multiply-add ports, so that both kinds of port are busy (AMD Zen: 2 add + 2 FMA
    // pipes; 8 operations on each per 4 elements instead of 14 on the adders).
    __m256d al = _mm256_sub_pd(_mm256_add_pd(S1, h), S1), bp = _mm256_fnmadd_pd(al, ONE, h);  // h - al
    __m256d be = _mm256_sub_pd(_mm256_add_pd(S2, bp), S2), ep = _mm256_sub_pd(bp, be);
    __m256d t = _mm256_fmadd_pd(ep, ONE, r);  // ep + r
    __m256d ga = _mm256_sub_pd(_mm256_add_pd(S3, t), S3), de = _mm256_sub_pd(t, ga);
    A = _mm256_fmadd_pd(al, ONE, A);
    B = _mm256_fmadd_pd(be, ONE, B);
    C = _mm256_fmadd_pd(ga, ONE, C);
    D = _mm256_fmadd_pd(de, ONE, D);
  };
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    step(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), A0, B0, C0, D0);
    step(_mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4), A1, B1, C1, D1);
  }
  alignas(32) double va[4], vb[4], vc[4], vd[4];
  _mm256_store_pd(va, _mm256_add_pd(A0, A1));
  _mm256_store_pd(vb, _mm256_add_pd(B0, B1));
  _mm256_store_pd(vc, _mm256_add_pd(C0, C1));
  _mm256_store_pd(vd, _mm256_add_pd(D0, D1));
  AbgdSums s{0, 0, 0, 0};
  for (int j = 0; j < 4; ++j) {
    s.a += va[j];
    s.b += vb[j];
    s.c += vc[j];
    s.d += vd[j];
  }
  for (; i < n; ++i) accsum_abgd_put(x[i], y[i], s3, &s.a, &s.b, &s.c, &s.d);  // the scalar tail
  return s;
}

// The lambda-algorithm in AVX2 lanes (the cpu-mt kernel): lane j takes elements i = j mod 4
// and keeps its own three chunk sums, reduced after every lambda of its terms (Theorem 3's
// condition per lane), then its own residues. The per-element operations are the same in both
// rounding modes: ExtractScalar(2^(l+53), h) cuts at 2^(l+1) in round-to-nearest (derivation
// above) and in round-toward-zero (the paper's Theorem 2: u sigma = 2^-52 2^(l+53)); the pieces
// are in [-2^l, 2^(l+1)] and one conditional add or subtract of p makes each a field element;
// reduce52 is exact in any mode. The round-toward-zero caller is backends/cpu/moddot_rz.cpp.
inline uint64_t lambda_simd(const double* x, const double* y, int64_t n, uint64_t p) {
  const accsum_modp m = accsum_modp_init(p);
  const int64_t lambda = m.lambda;
  const __m256d P = _mm256_set1_pd(m.p), PINV = _mm256_set1_pd(m.pinv), SIG = _mm256_set1_pd(m.sigma),
                SC = _mm256_set1_pd(m.scale), Z = _mm256_setzero_pd();
  auto field = [&](__m256d v) {
    v = _mm256_add_pd(v, _mm256_and_pd(_mm256_cmp_pd(v, Z, _CMP_LT_OQ), P));
    return _mm256_sub_pd(v, _mm256_and_pd(_mm256_cmp_pd(v, P, _CMP_GE_OQ), P));
  };
  auto reduce = [&](__m256d v) {  // reduce52, lane-wise
    __m256d q = _mm256_floor_pd(_mm256_mul_pd(v, PINV));
    __m256d r = _mm256_fnmadd_pd(q, P, v);
    r = _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, Z, _CMP_LT_OQ), P));
    return _mm256_sub_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, P, _CMP_GE_OQ), P));
  };
  auto addmod = [&](__m256d a, __m256d b) {
    __m256d t = _mm256_add_pd(a, b);
    return _mm256_sub_pd(t, _mm256_and_pd(_mm256_cmp_pd(t, P, _CMP_GE_OQ), P));
  };
  __m256d Sa = Z, Sb = Z, Sr = Z;
  const int64_t full = n / 4 * 4;
  for (int64_t i = 0; i < full;) {
    const int64_t e = i + 4 * std::min(lambda, (full - i) / 4);
    __m256d ca = Z, cb = Z, cr = Z;
    for (; i < e; i += 4) {
      __m256d a = _mm256_loadu_pd(x + i), b = _mm256_loadu_pd(y + i);
      __m256d h = _mm256_mul_pd(a, b);
      __m256d r = _mm256_fmsub_pd(a, b, h);
      __m256d al = _mm256_sub_pd(_mm256_add_pd(SIG, h), SIG), be = _mm256_sub_pd(h, al);
      ca = _mm256_add_pd(ca, field(_mm256_mul_pd(al, SC)));
      cb = _mm256_add_pd(cb, field(be));
      cr = _mm256_add_pd(cr, field(r));
    }
    Sa = addmod(Sa, reduce(ca));
    Sb = addmod(Sb, reduce(cb));
    Sr = addmod(Sr, reduce(cr));
  }
  alignas(32) double va[4], vb[4], vr[4];
  _mm256_store_pd(va, Sa);
  _mm256_store_pd(vb, Sb);
  _mm256_store_pd(vr, Sr);
  double sa = 0, sb = 0, sr = 0;
  for (int j = 0; j < 4; ++j) {
    sa = accsum_modp_add(sa, va[j], m);
    sb = accsum_modp_add(sb, vb[j], m);
    sr = accsum_modp_add(sr, vr[j], m);
  }
  for (int64_t i = full; i < n; ++i) {  // at most 3 elements, each a chunk of its own
    double ca = 0, cb = 0, cr = 0;
    accsum_lambda_put(x[i], y[i], m, &ca, &cb, &cr);
    accsum_lambda_flush(m, &ca, &cb, &cr, &sa, &sb, &sr);
  }
  return static_cast<uint64_t>(accsum_lambda_residue(sa, sb, sr, m));
}

}  // namespace
}  // namespace accsum::moddot
