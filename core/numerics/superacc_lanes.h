/* core/numerics/superacc_lanes.h: the one definition of the "lane" superaccumulator, a private
 * exact accumulator per GPU thread or OpenCL work-item (level 2 of Collange, Defour, Graillat,
 * Iakymchuk, "Numerical reproducibility for the parallel reduction on multi- and many-core
 * architectures", Parallel Computing 49, 2015, Sec. 3.2), for host C++, CUDA and OpenCL C alike.
 * Written, like core/numerics/numerics.h (whose macro layer it uses), in the common subset of
 * C99, OpenCL C 1.2, C++17 and CUDA. C++ and CUDA read it through
 * backends/cuda/thread/superacc_lanes.cuh; OpenCL kernels include it themselves.
 *
 * Why a second digit layout: core's digits (numerics.h) have w = 32 value bits per int64 (68
 * digits for a sum, 544 bytes); a private copy per thread at that size leaves too few threads
 * per SM to keep HBM busy. A lane digit has 50 value bits (43 digits, 344 bytes) and 13
 * carry-save bits of headroom; a private accumulator needs no atomics, so no carry can be lost
 * to contention, whatever the data. Digit i has weight W_i = 2^(50 i - 1074) (core's origin).
 *
 * A double goes in as two signed pieces cut by the FP64 unit rather than by integer shifts (the
 * integer pipe is the scarcer one on a GPU): with W_k the digit holding x's lowest bit,
 *   q = x / W_{k+1}          exact (a power-of-two scaling), |q| < 2^52, lowest bit >= 2^-50
 *   hi = 2 round(q / 2)      read from the bits of t = q + 1.5*2^53 (t's ulp is 2)
 *   lo = (q - hi) * 2^50     exact, |lo| <= 2^50, read from the bits of lo + 1.5*2^52
 * so x = hi W_{k+1} + lo W_k (Collange et al., Fig. 4, round a scaled x the same way). 1/W_{k+1}
 * is a double only when |x| >= 2^-972 (biased exponent >= 51); smaller terms (subnormals and
 * their neighbours, rare) are cut on integers into three pieces (accsum_lane_split_exact). The
 * cut's operations cannot be contracted into anything inexact: the only product, x / W_{k+1},
 * is exact, so fma(x, 1/W_{k+1}, magic) rounds like q + magic.
 *
 * After accsum_lane_normalize digits 0 .. D-2 are in [0, 2^50) and the top digit holds the
 * sign. A piece is at most 2^52 in magnitude, so a normalized digit absorbs
 * ACCSUM_LANE_MAX_PENDING pieces before it could overflow. Lane digits go back to core's 32-bit
 * digits (accsum_int64_pieces) for the block or work-group record, the merge and the rounding.
 *
 * Written for NVIDIA's OpenCL compiler too, which moved dynamically indexed private arrays to
 * local memory: every function here works on scalars and takes the digits by pointer and stride
 * (the lanes of a warp or work-group interleave their digits, [digit][lane]).
 */
#ifndef ACCSUM_CORE_SUPERACC_LANES_H
#define ACCSUM_CORE_SUPERACC_LANES_H

#include "core/numerics/numerics.h"

/* The address space of lane digits: OpenCL keeps them in local memory; C++ and CUDA pointers
 * are generic (CUDA's lanes live in shared memory). */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define ACCSUM_LANE_SPACE __local
#else
#define ACCSUM_LANE_SPACE
#endif

/* ---- the named constants; the rest follows from them ---- */
#define ACCSUM_LANE_DIGIT_BITS 50 /* value bits per lane digit */
#define ACCSUM_LANE_COUNT_BITS 52 /* room above 2^1024: a lane may hold 2^52 terms' worth */
#define ACCSUM_LANE_DIGITS \
  ((ACCSUM_EXP_TOP - ACCSUM_SUM_LSB + ACCSUM_LANE_COUNT_BITS + ACCSUM_LANE_DIGIT_BITS - 1) / ACCSUM_LANE_DIGIT_BITS)
#define ACCSUM_LANE_DIGIT_MASK ((((accsum_i64)1) << ACCSUM_LANE_DIGIT_BITS) - 1)
/* A piece of the FP64 cut is at most 2^52 = 2^(w + 2) in magnitude: a normalized digit
 * (< 2^50) takes 2^(63 - 52) - 1 of them within int64; one more is kept in reserve. */
#define ACCSUM_LANE_PIECE_BITS (ACCSUM_LANE_DIGIT_BITS + 2)
#define ACCSUM_LANE_MAX_PENDING ((1 << (63 - ACCSUM_LANE_PIECE_BITS)) - 2) /* 2046 */
/* The FP64 cut needs 1/W_{k+1} normal: k >= 1, so x's lowest bit at position >= 50, i.e. a
 * biased exponent >= 51 (|x| >= 2^-972), or x = 0. */
#define ACCSUM_LANE_FAST_MIN_BIASED (ACCSUM_LANE_DIGIT_BITS + 1)
/* floor(p / 50) for 0 <= p < 2^20 is the high word of p * ceil(2^32 / 50): the multiplier errs by
 * less than 2^-27 relative, far below the 1/50 that would move the floor. */
#define ACCSUM_LANE_DIV_MAGIC \
  ((accsum_u32)(((ACCSUM_U64(1) << 32) + ACCSUM_LANE_DIGIT_BITS - 1) / ACCSUM_LANE_DIGIT_BITS))
/* Doubles whose ulp is 2 and 1 (1.5 * 2^53, 1.5 * 2^52): adding one rounds to an integer whose
 * low bits are read back from the bits of the sum; and 2^w. */
#define ACCSUM_LANE_MAGIC_EVEN 0x1.8p53
#define ACCSUM_LANE_MAGIC_INT 0x1.8p52
#define ACCSUM_LANE_RADIX 0x1p50

/* ---- high words of |x|: one 32-bit compare classifies a term ---- */
#define ACCSUM_HI_MANT_BITS (ACCSUM_MANT_BITS - 32)                        /* significand bits in the high word */
#define ACCSUM_HI_INF ((accsum_u32)ACCSUM_EXP_MASK << ACCSUM_HI_MANT_BITS) /* infinities, NaN */
#define ACCSUM_LANE_FAST_LO_HI ((accsum_u32)ACCSUM_LANE_FAST_MIN_BIASED << ACCSUM_HI_MANT_BITS) /* 2^-972 */
/* Sums: a term at or above 2^970 (core/numerics/fpe.hpp: kFpeMaxInput) bypasses the expansion.
 * Dots: a product p = fl(a b) with 2^-968 <= |p| < 2^970 has not overflowed and its TwoProductFMA
 * error is exact (the exact product's lowest bit is at least 2^-1073). */
#define ACCSUM_FPE_MAX_EXP 970
#define ACCSUM_DOT_MIN_EXP (-968)
#define ACCSUM_SUM_SLOW_HI ((accsum_u32)(ACCSUM_EXP_BIAS + ACCSUM_FPE_MAX_EXP) << ACCSUM_HI_MANT_BITS)
#define ACCSUM_DOT_FAST_LO_HI ((accsum_u32)(ACCSUM_EXP_BIAS + ACCSUM_DOT_MIN_EXP) << ACCSUM_HI_MANT_BITS)

/* The high word of |x|: exponent and top significand bits. */
ACCSUM_FN accsum_u32 accsum_abs_hi(double x) { return (accsum_u32)(accsum_bits(x) >> 32) & 0x7FFFFFFFu; }

/* floor(p / 50) for 0 <= p < 2^20, one multiply-high. */
ACCSUM_FN accsum_u32 accsum_lane_div(accsum_u32 p) { return accsum_mul_hi32(p, ACCSUM_LANE_DIV_MAGIC); }

/* Whether the FP64 cut is exact for a finite x: biased exponent >= 51, or x = +-0. */
ACCSUM_FN int accsum_lane_fast_ok(double x) {
  accsum_u64 mag = accsum_bits(x) & ~ACCSUM_SIGN_BIT;
  return mag >= ((accsum_u64)ACCSUM_LANE_FAST_MIN_BIASED << ACCSUM_MANT_BITS) || mag == 0;
}

/* The FP64 cut: x finite with accsum_lane_fast_ok(x) (+-0 lands on digits 1, 2 as zeros).
 * x = lo W_k + hi W_{k+1}, both pieces signed, |piece| <= 2^52. */
ACCSUM_FN void accsum_lane_split_fast(double x, int* k, accsum_i64* lo, accsum_i64* hi) {
  const double magic_even = ACCSUM_LANE_MAGIC_EVEN, magic_int = ACCSUM_LANE_MAGIC_INT;
  accsum_u32 biased = (accsum_u32)(accsum_bits(x) >> ACCSUM_MANT_BITS) & (accsum_u32)ACCSUM_EXP_MASK;
  accsum_u32 pos = (biased > ACCSUM_LANE_FAST_MIN_BIASED ? biased : ACCSUM_LANE_FAST_MIN_BIASED) - 1;
  int kk = (int)accsum_lane_div(pos); /* 1 .. 40 */
  /* 1 / W_{k+1} = 2^(1074 - 50 (k+1)): a biased exponent in [47, 1997]. */
  double scale = accsum_double(
      (accsum_u64)(ACCSUM_EXP_BIAS - ACCSUM_SUM_LSB - ACCSUM_LANE_DIGIT_BITS - ACCSUM_LANE_DIGIT_BITS * kk)
      << ACCSUM_MANT_BITS);
  double q = x * scale;
  double t = q + magic_even;
  *k = kk;
  *hi = 2 * (accsum_i64)(accsum_bits(t) - accsum_bits(magic_even));
  double r = q - (t - magic_even);
  double u = fma(r, ACCSUM_LANE_RADIX, magic_int);
  *lo = (accsum_i64)(accsum_bits(u) - accsum_bits(magic_int));
}

/* The integer cut for any finite x: x = p0 W_k + p1 W_{k+1} + p2 W_{k+2}, p0 and p1 in
 * [0, 2^50), p2 in [-4, 3] (the signed significand shifted by s <= 49 spans 103 bits). */
ACCSUM_FN void accsum_lane_split_exact(double x, int* k, accsum_i64* p0, accsum_i64* p1, accsum_i64* p2) {
  accsum_u64 bits = accsum_bits(x), m;
  int pos;
  accsum_decompose(bits, &m, &pos); /* |x| = m 2^(pos - 1074), pos in [0, 2045] */
  accsum_i64 neg = -(accsum_i64)(bits >> 63);
  accsum_i64 sm = ((accsum_i64)m ^ neg) - neg; /* signed significand, |sm| < 2^53 */
  int kk = (int)accsum_lane_div((accsum_u32)pos);
  int s = pos - ACCSUM_LANE_DIGIT_BITS * kk; /* 0 .. 49 */
  *k = kk;
  /* Two's complement: the low 50 bits of sm 2^s are those of (sm << s) mod 2^64, and the rest is
   * floor(sm 2^s / 2^50) = sm >> (50 - s), an arithmetic shift by 1 .. 50. */
  *p0 = (accsum_i64)(((accsum_u64)sm << s) & (accsum_u64)ACCSUM_LANE_DIGIT_MASK);
  accsum_i64 rest = sm >> (ACCSUM_LANE_DIGIT_BITS - s);
  *p1 = rest & ACCSUM_LANE_DIGIT_MASK;
  *p2 = rest >> ACCSUM_LANE_DIGIT_BITS;
}

/* x (finite, accsum_lane_fast_ok) into the lane whose digit i is lane[i * stride]. */
ACCSUM_FN void accsum_lane_add_fast(ACCSUM_LANE_SPACE accsum_i64* lane, int stride, double x) {
  int k;
  accsum_i64 lo, hi;
  accsum_lane_split_fast(x, &k, &lo, &hi);
  lane[k * stride] += lo;
  lane[(k + 1) * stride] += hi;
}

/* Any finite x, by the integer cut (three pieces). */
ACCSUM_FN void accsum_lane_add_exact(ACCSUM_LANE_SPACE accsum_i64* lane, int stride, double x) {
  int k;
  accsum_i64 p0, p1, p2;
  accsum_lane_split_exact(x, &k, &p0, &p1, &p2);
  lane[k * stride] += p0;
  lane[(k + 1) * stride] += p1;
  lane[(k + 2) * stride] += p2;
}

/* Any finite x (the integer cut only for tiny ones). */
ACCSUM_FN void accsum_lane_add(ACCSUM_LANE_SPACE accsum_i64* lane, int stride, double x) {
  if (accsum_lane_fast_ok(x))
    accsum_lane_add_fast(lane, stride, x);
  else
    accsum_lane_add_exact(lane, stride, x);
}

/* Carry propagation over one lane's digits: digits [0, 2^50) below the top, the top signed. */
ACCSUM_FN void accsum_lane_normalize(ACCSUM_LANE_SPACE accsum_i64* lane, int stride) {
  accsum_i64 carry = 0;
  for (int i = 0; i < ACCSUM_LANE_DIGITS - 1; ++i) {
    accsum_i64 d = lane[i * stride] + carry;
    carry = d >> ACCSUM_LANE_DIGIT_BITS; /* arithmetic: floor(d / 2^50) */
    lane[i * stride] = d & ACCSUM_LANE_DIGIT_MASK;
  }
  lane[(ACCSUM_LANE_DIGITS - 1) * stride] += carry;
}

/* ---- back to core's 32-bit digits ---- */

/* Bit position of lane digit i in a core accumulator whose digit 0 has weight 2^L. */
ACCSUM_FN int accsum_lane_digit_pos(int i, int L) { return ACCSUM_LANE_DIGIT_BITS * i + (ACCSUM_SUM_LSB - L); }

/* v 2^(w idx + s) (0 <= s < w = 32, any int64 v) as three pieces of core digits idx, idx+1,
 * idx+2: v = vlo + vhi 2^w with vlo in [0, 2^w) and vhi = v >> w in [-2^31, 2^31); every piece
 * is below 2^33 in magnitude. */
ACCSUM_FN void accsum_int64_pieces(accsum_i64 v, int s, accsum_i64* p0, accsum_i64* p1, accsum_i64* p2) {
  accsum_u64 a = ((accsum_u64)v & ACCSUM_DIGIT_MASK) << s;        /* < 2^63 */
  accsum_i64 b = (v >> ACCSUM_DIGIT_BITS) * ((accsum_i64)1 << s); /* |b| <= 2^62 */
  *p0 = (accsum_i64)(a & ACCSUM_DIGIT_MASK);
  *p1 = (accsum_i64)(a >> ACCSUM_DIGIT_BITS) + (b & (accsum_i64)ACCSUM_DIGIT_MASK);
  *p2 = b >> ACCSUM_DIGIT_BITS;
}

#endif /* ACCSUM_CORE_SUPERACC_LANES_H */
