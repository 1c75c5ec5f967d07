/* core/numerics/numerics.h: the one definition of the numerics shared by host C++, CUDA device code and
 * OpenCL C: the superaccumulator's named constants, the error-free transforms, the exact cut of
 * a double into digit pieces, carry propagation and the final rounding.
 *
 * Written in the common subset of C99, OpenCL C 1.2 and C++17 (no references, no namespaces, no
 * templates; results through pointers), with a small macro layer below. C++ includes it through
 * core/numerics/eft.hpp and core/numerics/superacc.hpp, which wrap it in their usual reference-style API; CUDA device
 * code gets the same functions as __host__ __device__; OpenCL kernel files (backends/opencl/kernels/)
 * include it, and CMake embeds them with this file's text inlined (cmake/embed_opencl.cmake).
 * The macro layer maps each operation to its host, CUDA or OpenCL form (e.g. the multiply-high
 * accsum_mul_hi32: __umulhi on CUDA, mul_hi in OpenCL C).
 *
 * Exactness needs IEEE binary64 operations with no contraction into FMA and no reassociation:
 * host code is built with -ffp-contract=off, OpenCL C here says FP_CONTRACT OFF, and CUDA device
 * code goes through __dadd_rn / __dsub_rn / __dmul_rn / __fma_rn, which nvcc never contracts
 * whatever --fmad says.
 *
 * References: TwoSum is Knuth, The Art of Computer Programming vol. 2 (Møller's algorithm);
 * FastTwoSum, Split and TwoProduct are Dekker, "A floating-point technique for extending the
 * available precision", Numer. Math. 18 (1971); all as Algorithms 3.1, 3.2, 3.3 and 3.5 of Ogita,
 * Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005. The
 * superaccumulator is Kulisch's long accumulator with a carry-save digit layout (Collange,
 * Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel reduction on multi-
 * and many-core architectures", Parallel Computing 49, 2015, Sec. 3.2-3.3; constants derived
 * from a few named ones as in Neal, "Fast exact summation using small and large
 * superaccumulators", arXiv:1505.05571, 2015).
 */
#ifndef ACCSUM_CORE_NUMERICS_H
#define ACCSUM_CORE_NUMERICS_H

/* ---- the macro layer ---- */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
typedef long accsum_i64;
typedef ulong accsum_u64;
typedef uint accsum_u32;
#define ACCSUM_FN inline
#define ACCSUM_U64(c) ((ulong)(c##UL))
#define ACCSUM_ADD(a, b) ((a) + (b))
#define ACCSUM_SUB(a, b) ((a) - (b))
#define ACCSUM_MUL(a, b) ((a) * (b))
#define ACCSUM_FMA(a, b, c) fma((a), (b), (c))
#define accsum_bits(x) as_ulong(x)
#define accsum_double(u) as_double(u)
#define accsum_clz64(u) ((int)clz(u))
#define accsum_mul_hi32(a, b) mul_hi((uint)(a), (uint)(b))
#define accsum_mul_hi64(a, b) mul_hi((ulong)(a), (ulong)(b))
#else
#include <math.h>
#include <stdint.h>

#include "base/hd.hpp"
typedef int64_t accsum_i64;
typedef uint64_t accsum_u64;
typedef uint32_t accsum_u32;
#define ACCSUM_FN ACCSUM_HD
#define ACCSUM_U64(c) (static_cast<uint64_t>(c##ull))
#if defined(__CUDA_ARCH__)
#define ACCSUM_ADD(a, b) __dadd_rn((a), (b))
#define ACCSUM_SUB(a, b) __dsub_rn((a), (b))
#define ACCSUM_MUL(a, b) __dmul_rn((a), (b))
#define ACCSUM_FMA(a, b, c) __fma_rn((a), (b), (c))
#else
#define ACCSUM_ADD(a, b) ((a) + (b))
#define ACCSUM_SUB(a, b) ((a) - (b))
#define ACCSUM_MUL(a, b) ((a) * (b))
#define ACCSUM_FMA(a, b, c) fma((a), (b), (c))
#endif
ACCSUM_FN accsum_u64 accsum_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
#endif
}
ACCSUM_FN double accsum_double(accsum_u64 u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
#endif
}
ACCSUM_FN int accsum_clz64(accsum_u64 u) { /* u != 0 */
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(u));
#else
  return __builtin_clzll(u);
#endif
}
/* The high halves of the full products a * b: 64 of 32x32 bits, 128 of 64x64 bits. */
ACCSUM_FN accsum_u32 accsum_mul_hi32(accsum_u32 a, accsum_u32 b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}
ACCSUM_FN accsum_u64 accsum_mul_hi64(accsum_u64 a, accsum_u64 b) { return accsum::mul_hi64(a, b); }
#endif

/* ---- binary64 ---- */
#define ACCSUM_MANT_BITS 52   /* stored significand bits */
#define ACCSUM_EXP_MASK 0x7FF /* biased exponent field, all ones: inf/NaN */
#define ACCSUM_MANT_MASK ((ACCSUM_U64(1) << ACCSUM_MANT_BITS) - 1)
#define ACCSUM_SIGN_BIT (ACCSUM_U64(1) << 63)
#define ACCSUM_EXP_LSB (-1074) /* weight 2^-1074 of a subnormal's last bit */
#define ACCSUM_EXP_TOP 1024    /* every finite |x| < 2^1024 */
#define ACCSUM_EXP_BIAS 1023   /* biased exponent of 1.0 */

/* ---- the superaccumulator's digits (core/numerics/superacc.hpp) ----
 * Digit i of an accumulator whose digit 0 has weight 2^L is an int64 of weight 2^(w i + L);
 * w = ACCSUM_DIGIT_BITS value bits and 63 - w carry-save bits of headroom. Everything else follows
 * from the digit width, the binary64 range and the number of terms to be summed (2^COUNT_BITS). */
#define ACCSUM_DIGIT_LOG2 5                                          /* w = 2^5 */
#define ACCSUM_DIGIT_BITS (1 << ACCSUM_DIGIT_LOG2)                   /* w = 32 */
#define ACCSUM_DIGIT_MASK ((ACCSUM_U64(1) << ACCSUM_DIGIT_BITS) - 1) /* 0xFFFFFFFF */
#define ACCSUM_HEADROOM_BITS (63 - ACCSUM_DIGIT_BITS)                /* 31 */
#define ACCSUM_COUNT_BITS 64                                         /* room for 2^64 terms */
/* sums: bits 2^-1074 .. 2^1102 (68 digits) */
#define ACCSUM_SUM_LSB ACCSUM_EXP_LSB
#define ACCSUM_SUM_DIGITS \
  ((ACCSUM_EXP_TOP - ACCSUM_SUM_LSB + ACCSUM_COUNT_BITS + ACCSUM_DIGIT_BITS - 1) / ACCSUM_DIGIT_BITS)
/* dot products: exact products lie in [2^-2148, 2^2048); bits up to 2^2140 (134 digits) */
#define ACCSUM_DOT_LSB (2 * ACCSUM_EXP_LSB)
#define ACCSUM_DOT_DIGITS \
  ((2 * ACCSUM_EXP_TOP - ACCSUM_DOT_LSB + ACCSUM_COUNT_BITS + ACCSUM_DIGIT_BITS - 1) / ACCSUM_DIGIT_BITS)

/* ---- error-free transformations (Ogita, Rump, Oishi 2005, Algorithms 3.1-3.5) ---- */

/* TwoSum (Knuth; ORO Alg. 3.1): s + e = a + b exactly, 6 flops, no precondition. */
ACCSUM_FN void accsum_two_sum(double a, double b, double* s, double* e) {
  double t = ACCSUM_ADD(a, b);
  double v = ACCSUM_SUB(t, a);
  *e = ACCSUM_ADD(ACCSUM_SUB(a, ACCSUM_SUB(t, v)), ACCSUM_SUB(b, v));
  *s = t;
}

/* FastTwoSum (Dekker; ORO Alg. 1.1): needs |a| >= |b| (or a == 0). */
ACCSUM_FN void accsum_fast_two_sum(double a, double b, double* s, double* e) {
  double t = ACCSUM_ADD(a, b);
  *e = ACCSUM_SUB(b, ACCSUM_SUB(t, a));
  *s = t;
}

/* Split (Veltkamp/Dekker; ORO Alg. 3.2) with factor 2^27 + 1: a = hi + lo, 26 bits each. */
ACCSUM_FN void accsum_split(double a, double* hi, double* lo) {
  double c = ACCSUM_MUL(134217729.0, a); /* 2^27 + 1 */
  double h = ACCSUM_SUB(c, ACCSUM_SUB(c, a));
  *hi = h;
  *lo = ACCSUM_SUB(a, h);
}

/* TwoProduct (Dekker; ORO Alg. 3.3): 17 flops, no FMA; exact unless a*b underflows. */
ACCSUM_FN void accsum_two_prod_dekker(double a, double b, double* p, double* e) {
  double q = ACCSUM_MUL(a, b), a1, a2, b1, b2;
  accsum_split(a, &a1, &a2);
  accsum_split(b, &b1, &b2);
  *e = ACCSUM_SUB(ACCSUM_MUL(a2, b2),
                  ACCSUM_SUB(ACCSUM_SUB(ACCSUM_SUB(q, ACCSUM_MUL(a1, b1)), ACCSUM_MUL(a2, b1)), ACCSUM_MUL(a1, b2)));
  *p = q;
}

/* TwoProductFMA (ORO Alg. 3.5): one FMA recovers the rounding error of a*b exactly. */
ACCSUM_FN void accsum_two_prod_fma(double a, double b, double* p, double* e) {
  double q = ACCSUM_MUL(a, b);
  *e = ACCSUM_FMA(a, b, -q);
  *p = q;
}

/* ---- the superaccumulator's integer numerics ---- */

/* A finite double as |x| = m 2^(pos0 - 1074), m < 2^53: pos0 is the bit position of m's lowest
 * bit counted from 2^-1074 (0 for subnormals, biased exponent - 1 for normals). */
ACCSUM_FN void accsum_decompose(accsum_u64 bits, accsum_u64* m, int* pos0) {
  int biased = (int)((bits >> ACCSUM_MANT_BITS) & ACCSUM_EXP_MASK);
  accsum_u64 mant = bits & ACCSUM_MANT_MASK;
  if (biased != 0) mant |= ACCSUM_U64(1) << ACCSUM_MANT_BITS; /* the implicit bit */
  *m = mant;
  *pos0 = biased != 0 ? biased - 1 : 0;
}

/* Cuts m 2^pos (m < 2^53, pos >= 0 in units of the digit-0 weight) into three unsigned digit
 * pieces d0, d1 < 2^w, d2 < 2^21 for digits idx, idx+1, idx+2. */
ACCSUM_FN void accsum_split_mantissa(accsum_u64 m, int pos, int* idx, accsum_u64* d0, accsum_u64* d1, accsum_u64* d2) {
  int s = pos & (ACCSUM_DIGIT_BITS - 1);
  *idx = pos >> ACCSUM_DIGIT_LOG2;
  *d0 = (m << s) & ACCSUM_DIGIT_MASK;
  *d1 = (m >> (ACCSUM_DIGIT_BITS - s)) & ACCSUM_DIGIT_MASK;
  *d2 = (m >> ACCSUM_DIGIT_BITS) >> (ACCSUM_DIGIT_BITS - s); /* m >> (2w - s), no shift by 64 */
}

/* The exact product ma * mb (ma, mb < 2^53) as two 53-bit halves: ma mb = lo53 + hi53 2^53. */
ACCSUM_FN void accsum_product_halves(accsum_u64 prod_hi64, accsum_u64 prod_lo64, accsum_u64* lo53, accsum_u64* hi53) {
  *lo53 = prod_lo64 & ((ACCSUM_U64(1) << 53) - 1);
  *hi53 = (prod_lo64 >> 53) | (prod_hi64 << 11);
}

/* Carry propagation over D digits: digit[i] in [0, 2^w) for i < D-1; the top digit keeps the sign
 * (two's complement over the whole vector). */
ACCSUM_FN void accsum_normalize(accsum_i64* digit, int D) {
  for (int i = 0; i < D - 1; ++i) {
    accsum_i64 carry = digit[i] >> ACCSUM_DIGIT_BITS; /* arithmetic shift: floor(digit / 2^w) */
    digit[i] -= carry * ((accsum_i64)1 << ACCSUM_DIGIT_BITS);
    digit[i + 1] += carry;
  }
}

/* The magnitude sum_{i<=k} d[i] 2^(w i + L) (normalized digits, d[k] > 0 its top digit) rounded to
 * nearest, ties to even, as the bits of a non-negative double (+inf beyond DBL_MAX); Collange et
 * al. 2015, Sec. 3.3, done on integers: the leading 64 bits, a round bit and a sticky bit decide. */
ACCSUM_FN accsum_u64 accsum_round_magnitude(const accsum_i64* d, int k, int L) {
  const accsum_u64 inf_bits = (accsum_u64)ACCSUM_EXP_MASK << ACCSUM_MANT_BITS;
  const int w = ACCSUM_DIGIT_BITS;
  accsum_u64 top = (accsum_u64)d[k];
  if (top >> w) return inf_bits; /* beyond 2^(w D + L): far past DBL_MAX */
  /* Leading 64 bits of the magnitude, from digits k, k-1, k-2; the rest is sticky. */
  int b = 64 - accsum_clz64(top); /* 1..w bits in the top digit */
  accsum_u64 d1 = k >= 1 ? (accsum_u64)d[k - 1] : ACCSUM_U64(0);
  accsum_u64 d2 = k >= 2 ? (accsum_u64)d[k - 2] : ACCSUM_U64(0);
  accsum_u64 lead = (top << (64 - b)) | (d1 << (w - b)) | (d2 >> b);
  int sticky = (d2 & ((ACCSUM_U64(1) << b) - 1)) != 0;
  for (int i = k - 3; i >= 0 && !sticky; --i) sticky = d[i] != 0;
  /* The magnitude has bit length len (in units of 2^L); the result keeps bits from q up,
   * q = len - 53 unless that is below the subnormal quantum 2^-1074 (q_min). */
  int len = w * k + b;
  const int q_min = ACCSUM_EXP_LSB - L;
  int q = len - 53 > q_min ? len - 53 : q_min;
  int shift = q - (len - 64); /* >= 11 */
  accsum_u64 mant, round_bit;
  if (shift < 64) {
    mant = lead >> shift;
    round_bit = (lead >> (shift - 1)) & 1;
    sticky = sticky || (lead & ((ACCSUM_U64(1) << (shift - 1)) - 1)) != 0;
  } else {
    mant = 0;
    round_bit = shift == 64 ? lead >> 63 : ACCSUM_U64(0);
    sticky = sticky || (shift == 64 ? (lead << 1) != 0 : lead != 0);
  }
  if (round_bit && (sticky || (mant & 1))) ++mant;
  if (mant == (ACCSUM_U64(1) << 53)) {
    mant >>= 1;
    ++q;
  }
  if (mant < (ACCSUM_U64(1) << ACCSUM_MANT_BITS)) return mant; /* subnormal: q == q_min */
  int biased = q + L - ACCSUM_EXP_LSB + 1;
  if (biased >= ACCSUM_EXP_MASK) return inf_bits;
  return ((accsum_u64)biased << ACCSUM_MANT_BITS) | (mant & ACCSUM_MANT_MASK);
}

#endif /* ACCSUM_CORE_NUMERICS_H */
