/* core/numerics/modp.h: the one definition of arithmetic in Z/pZ on residues held exactly as
 * doubles, shared by host C++ (families/moddot/moddot.hpp), CUDA device code
 * (backends/cuda/moddot_cuda.cu) and OpenCL C (backends/opencl/kernels/moddot.cl): the field
 * operations, and the per-element steps of the lambda- and (alpha, beta, gamma, delta)-algorithms
 * of Jean, Graillat, "A parallel algorithm for dot product over word-size finite field using
 * floating-point arithmetic", SYNASC 2010 (Theorem 3; Algorithm 3), whose round-to-nearest
 * bounds are derived in families/moddot/moddot.hpp.
 *
 * The modulus travels with its precomputed constants in one struct (as FLINT's nmod_t does),
 * passed by value. Written like core/numerics/numerics.h: the common subset of C99, OpenCL C
 * 1.2, C++17 and CUDA, results through pointers.
 */
#ifndef ACCSUM_CORE_MODP_H
#define ACCSUM_CORE_MODP_H

#include "core/numerics/numerics.h"
#include "core/numerics/numerics_ext.h"

/* A prime p with p - 1 < 2^52 and what the algorithms derive from it; l is the split level,
 * 2^l <= p - 1 < 2^(l+1). The layout (five doubles, one 64-bit integer) is also a kernel
 * argument's: host and device agree on it. */
typedef struct accsum_modp {
  double p;          /* the modulus */
  double pinv;       /* fl(1 / p): reduce52's quotient estimate */
  double sigma;      /* 2^(l+53): the lambda-algorithm's ExtractScalar cuts h at 2^(l+1) */
  double scale;      /* 2^-(l+1): alpha in units of its cut */
  double unscale;    /* 2^(l+1) */
  accsum_i64 lambda; /* the largest lambda with lambda (p - 1) < 2^52 (Theorem 3's (3)) */
} accsum_modp;

/* 2^e as a double, -1022 <= e <= 1023. */
ACCSUM_FN_LOCAL double accsum_pow2(int e) { return accsum_double((accsum_u64)(e + 1023) << ACCSUM_MANT_BITS); }

/* The struct of a prime p, 2 <= p, p - 1 < 2^52. */
ACCSUM_FN_LOCAL accsum_modp accsum_modp_init(accsum_u64 p) {
  accsum_modp m;
  const int l = 63 - accsum_clz64(p - 1);
  m.p = (double)p;
  m.pinv = 1.0 / m.p;
  m.sigma = accsum_pow2(l + 53);
  m.scale = accsum_pow2(-(l + 1));
  m.unscale = accsum_pow2(l + 1);
  m.lambda = (accsum_i64)(((ACCSUM_U64(1) << 52) - 1) / (p - 1));
  return m;
}

/* The corrections below add or subtract p or 0, chosen by a compare: branch-free on every
 * backend (a compare and a select, then the addition: random residues would defeat a branch
 * predictor, and a GPU warp never diverges). Adding 0 is exact. */

/* x mod p in [0, p) for any double x holding an integer: fmod is exact. */
ACCSUM_FN_LOCAL double accsum_modp_mod(double x, accsum_modp m) {
  double r = fmod(x, m.p);
  return ACCSUM_ADD(r, r < 0 ? m.p : 0.0);
}

/* a + b mod p for residues a, b in [0, p): the sum is below 2^53, exact. */
ACCSUM_FN_LOCAL double accsum_modp_add(double a, double b, accsum_modp m) {
  double s = ACCSUM_ADD(a, b);
  return s >= m.p ? ACCSUM_SUB(s, m.p) : s;
}

/* An integer v in [-p, 2p) mapped into [0, p). Plain + and - (no product to contract, every
 * result exact): with them nvcc issues the add beside the compare and selects, where the
 * intrinsics' form (add after select, or a branch) made the lambda kernel 2 % slower on an H100. */
ACCSUM_FN_LOCAL double accsum_modp_to_field(double v, accsum_modp m) {
  v = v < 0 ? v + m.p : v;
  return v >= m.p ? v - m.p : v;
}

/* x mod p for an integer 0 <= x < 2^52 without a division: q = floor(x fl(1/p)) is within one
 * of floor(x / p) (two roundings of relative size <= 2^-52 on x / p < 2^52 / p give an absolute
 * error below 2 / p <= 1, in any rounding mode), x - q p is an integer in [-p, 2p) computed
 * exactly by one FMA, and one correction each way lands in [0, p). */
ACCSUM_FN_LOCAL double accsum_modp_reduce52(double x, accsum_modp m) {
  double q = ACCSUM_FLOOR52(ACCSUM_MUL(x, m.pinv));
  return accsum_modp_to_field(ACCSUM_FMA(-q, m.p, x), m);
}

/* ---- (alpha, beta, gamma, delta): the branch-free splitting of one product ----
 *   h + r = a b (TwoProduct by FMA); [alpha, beta'] = Split(2^131, h);
 *   [beta, eps] = Split(2^105, beta'); t = eps + r; [gamma, delta] = Split(s3, t)
 * with Split(sigma, v) = ExtractScalar (Rump, Ogita, Oishi, "Accurate floating-point summation
 * part I", SIAM J. Sci. Comput. 31(1), 2008, Alg. 3.2). s3 = 2^79 in round to nearest, 2^78 in
 * round toward zero (the derivations: families/moddot/moddot.hpp, backends/cpu/moddot_rz.cpp);
 * each piece is added to its sum A, B, C, D, all exact for blocks of at most 2^26 products.
 * The operations are parameters (ADD, SUB, MUL, FMA: CUDA's round-toward-zero intrinsics are
 * such a set); accsum_abgd_put below is the step with the backend's own operations. */
#define ACCSUM_ABGD_PUT(ADD, SUB, MUL, FMA, a, b, s3, A, B, C, D)            \
  do {                                                                       \
    const double h_ = MUL((a), (b));                                         \
    const double r_ = FMA((a), (b), -h_);                                    \
    const double al_ = SUB(ADD(0x1p131, h_), 0x1p131), bp_ = SUB(h_, al_);   \
    const double be_ = SUB(ADD(0x1p105, bp_), 0x1p105), ep_ = SUB(bp_, be_); \
    const double t_ = ADD(ep_, r_);                                          \
    const double ga_ = SUB(ADD((s3), t_), (s3)), de_ = SUB(t_, ga_);         \
    *(A) = ADD(*(A), al_);                                                   \
    *(B) = ADD(*(B), be_);                                                   \
    *(C) = ADD(*(C), ga_);                                                   \
    *(D) = ADD(*(D), de_);                                                   \
  } while (0)

ACCSUM_FN_LOCAL void accsum_abgd_put(double a, double b, double s3, double* A, double* B, double* C, double* D) {
  ACCSUM_ABGD_PUT(ACCSUM_ADD, ACCSUM_SUB, ACCSUM_MUL, ACCSUM_FMA, a, b, s3, A, B, C, D);
}

/* The residue of a block's four exact sums. */
ACCSUM_FN_LOCAL double accsum_abgd_residue(double A, double B, double C, double D, accsum_modp m) {
  return accsum_modp_add(accsum_modp_add(accsum_modp_mod(A, m), accsum_modp_mod(B, m), m),
                         accsum_modp_add(accsum_modp_mod(C, m), accsum_modp_mod(D, m), m), m);
}

/* ---- lambda: one product cut into three pieces, each made a field element ----
 * h + r = a b; [alpha, beta] = ExtractScalar(2^(l+53), h) (in either rounding mode the cut is
 * at 2^(l+1)); alpha 2^-(l+1), beta and r are integers in [-2^l, 2^(l+1)] and become field
 * elements, added to the chunk sums ca, cb, cr (exact for at most lambda products). The
 * product and the cut take the operations as parameters (as ACCSUM_ABGD_PUT); the field
 * elements' sums are exact in any mode. */
#define ACCSUM_LAMBDA_CUT(ADD, SUB, MUL, FMA, a, b, sigma, h, r, al, be) \
  do {                                                                   \
    *(h) = MUL((a), (b));                                                \
    *(r) = FMA((a), (b), -*(h));                                         \
    *(al) = SUB(ADD((sigma), *(h)), (sigma));                            \
    *(be) = SUB(*(h), *(al));                                            \
  } while (0)

/* The three pieces added to the chunk sums. */
ACCSUM_FN_LOCAL void accsum_lambda_add(double al, double be, double r, accsum_modp m, double* ca, double* cb,
                                       double* cr) {
  *ca = ACCSUM_ADD(*ca, accsum_modp_to_field(ACCSUM_MUL(al, m.scale), m));
  *cb = ACCSUM_ADD(*cb, accsum_modp_to_field(be, m));
  *cr = ACCSUM_ADD(*cr, accsum_modp_to_field(r, m));
}

ACCSUM_FN_LOCAL void accsum_lambda_put(double a, double b, accsum_modp m, double* ca, double* cb, double* cr) {
  double h, r, al, be;
  ACCSUM_LAMBDA_CUT(ACCSUM_ADD, ACCSUM_SUB, ACCSUM_MUL, ACCSUM_FMA, a, b, m.sigma, &h, &r, &al, &be);
  accsum_lambda_add(al, be, r, m, ca, cb, cr);
}

/* A chunk's sums (each below 2^52) reduced into the residues Sa, Sb, Sr; the chunk restarts. */
ACCSUM_FN_LOCAL void accsum_lambda_flush(accsum_modp m, double* ca, double* cb, double* cr, double* Sa, double* Sb,
                                         double* Sr) {
  *Sa = accsum_modp_add(*Sa, accsum_modp_reduce52(*ca, m), m);
  *Sb = accsum_modp_add(*Sb, accsum_modp_reduce52(*cb, m), m);
  *Sr = accsum_modp_add(*Sr, accsum_modp_reduce52(*cr, m), m);
  *ca = *cb = *cr = 0;
}

/* a.b = 2^(l+1) Sa + Sb + Sr mod p (2^(l+1) Sa is exact: a power-of-two scaling of an integer
 * below 2^53). */
ACCSUM_FN_LOCAL double accsum_lambda_residue(double Sa, double Sb, double Sr, accsum_modp m) {
  return accsum_modp_add(accsum_modp_mod(ACCSUM_MUL(Sa, m.unscale), m), accsum_modp_add(Sb, Sr, m), m);
}

/* ---- 64 x 64 -> 128-bit integer products (the baseline) ----
 * (hi, lo) += a b, and (hi, lo) mod p. */
ACCSUM_FN_LOCAL void accsum_mac128(accsum_u64 a, accsum_u64 b, accsum_u64* hi, accsum_u64* lo) {
  const accsum_u64 pl = a * b, ph = ACCSUM_MULHI64(a, b);
  *lo += pl;
  *hi += ph + (*lo < pl ? 1 : 0);
}

/* (hi, lo) mod p for p < 2^52: hi mod p, then the 64 low bits 4 + 5 x 12 at a time (each step
 * keeps r 2^12 + 12 bits below 2^64). */
ACCSUM_FN_LOCAL accsum_u64 accsum_mod128(accsum_u64 hi, accsum_u64 lo, accsum_u64 p) {
  accsum_u64 r = hi % p;
  r = ((r << 4) | (lo >> 60)) % p;
  for (int s = 48; s >= 0; s -= 12) r = ((r << 12) | ((lo >> s) & 0xfff)) % p;
  return r;
}

#endif /* ACCSUM_CORE_MODP_H */
