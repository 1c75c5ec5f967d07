/* core/numerics/ieee_special.h: IEEE 754's special values in exact sums and dot products, defined
 * once for the C++ superaccumulator (core/numerics/superacc.hpp), the CUDA lane accumulator
 * (backends/cuda/thread/superacc_lanes.cuh), the OpenCL kernels (backends/opencl/kernels/) and
 * the registry's IEEE rule (core/frame/ieee_special.hpp). Same subset and macro layer as
 * core/numerics/numerics.h.
 *
 * A product a*b is NaN when a factor is NaN or it is inf * 0, an infinity when a factor is
 * infinite (the other nonzero), a zero signed by the factors' signs when a factor is zero; finite
 * products that overflow in floating point are finite exactly and go to the digits. The result of
 * a sum of terms: NaN if any term is NaN or both infinities occur, else the one infinity, else the
 * exact sum rounded; an exact zero is -0 only when every term was -0 (mpfr_sum).
 */
#ifndef ACCSUM_CORE_IEEE_SPECIAL_H
#define ACCSUM_CORE_IEEE_SPECIAL_H

#include "core/numerics/numerics.h"

/* The classes of accsum_product_class. */
#define ACCSUM_PRODUCT_FINITE 0 /* finite and nonzero: its digits are added */
#define ACCSUM_PRODUCT_NAN 1
#define ACCSUM_PRODUCT_POS_INF 2
#define ACCSUM_PRODUCT_NEG_INF 3
#define ACCSUM_PRODUCT_POS_ZERO 4
#define ACCSUM_PRODUCT_NEG_ZERO 5

#define ACCSUM_INF_BITS ((accsum_u64)ACCSUM_EXP_MASK << ACCSUM_MANT_BITS)
#define ACCSUM_NAN_BITS (ACCSUM_INF_BITS | (ACCSUM_U64(1) << (ACCSUM_MANT_BITS - 1))) /* the quiet NaN */

/* The class of the exact product of the doubles with bits ba and bb. */
ACCSUM_FN int accsum_product_class(accsum_u64 ba, accsum_u64 bb) {
  const accsum_u64 abs_a = ba & ~ACCSUM_SIGN_BIT, abs_b = bb & ~ACCSUM_SIGN_BIT;
  /* The common case first, one unsigned compare per factor: 1 <= |bits| < inf bits. */
  if (abs_a - 1 < ACCSUM_INF_BITS - 1 && abs_b - 1 < ACCSUM_INF_BITS - 1) return ACCSUM_PRODUCT_FINITE;
  const int negative = ((ba ^ bb) & ACCSUM_SIGN_BIT) != 0;
  if (abs_a > ACCSUM_INF_BITS || abs_b > ACCSUM_INF_BITS) return ACCSUM_PRODUCT_NAN;
  if (abs_a == ACCSUM_INF_BITS || abs_b == ACCSUM_INF_BITS) {
    if (abs_a == 0 || abs_b == 0) return ACCSUM_PRODUCT_NAN; /* inf * 0 */
    return negative ? ACCSUM_PRODUCT_NEG_INF : ACCSUM_PRODUCT_POS_INF;
  }
  return negative ? ACCSUM_PRODUCT_NEG_ZERO : ACCSUM_PRODUCT_POS_ZERO; /* a zero factor, the other finite */
}

/* What the special terms seen decide: the bits of NaN or of the infinity, or 0 when they decide
 * nothing (no NaN, no infinity: the finite terms give the result). */
ACCSUM_FN accsum_u64 accsum_special_result_bits(int nan_seen, int pos_inf_seen, int neg_inf_seen) {
  if (nan_seen || (pos_inf_seen && neg_inf_seen)) return ACCSUM_NAN_BITS;
  if (pos_inf_seen) return ACCSUM_INF_BITS;
  if (neg_inf_seen) return ACCSUM_INF_BITS | ACCSUM_SIGN_BIT;
  return ACCSUM_U64(0);
}

/* The bits of an exact zero result: -0 only when some term was -0 and none other. */
ACCSUM_FN accsum_u64 accsum_zero_result_bits(int neg_zero_seen, int other_seen) {
  return (neg_zero_seen && !other_seen) ? ACCSUM_SIGN_BIT : ACCSUM_U64(0);
}

#endif /* ACCSUM_CORE_IEEE_SPECIAL_H */
