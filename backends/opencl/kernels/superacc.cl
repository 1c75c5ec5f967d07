// The correctly rounded sum and dot on an OpenCL device (Collange, Defour, Graillat, Iakymchuk,
// "Numerical reproducibility for the parallel reduction on multi- and many-core architectures",
// Parallel Computing 2015: levels 1-5 on a device). The same representation as
// core/numerics/superacc.hpp (read its comment first), from the same code: core/numerics/numerics.h
// (ACCSUM_DIGIT_BITS-bit digits, the cut accsum_split_mantissa, accsum_normalize and the rounding
// accsum_round_magnitude) and core/numerics/superacc_lanes.h (the 50-bit lane accumulator). DIGITS
// signed 64-bit digits, digit i of weight 2^(w i + LSB).
//
//   superacc_partial: work-group g reduces a contiguous slice of about n / G terms, read as
//     16-byte vectors, U per work-item in flight (the next batch loads while one is added).
//     LANES (the default where local 64-bit atomics exist): superacc_lanes_partial.clh, a private
//     lane accumulator per work-item in local memory, no atomics in the hot loop. Otherwise
//     superacc_atomic_partial.clh: per-term atomics into COPIES local superaccumulators, or,
//     without 64-bit local atomics (HAVE_ATOM64 = 0), a private superaccumulator per work-item
//     written as its own partial. A partial is its digits, then 5 counters.
//   superacc_final: one work-group adds the partials digit by digit, many partials at once
//     (normalized digits are < 2^w, so 2^(63-w) partials fit), then one work-item normalizes
//     and rounds to nearest even on the device; the host reads one double. GLOBAL_MERGE (LANES
//     only): the groups add their nonzero digits into one partial with global 64-bit atomics
//     instead, and superacc_final reads that one (count = 1) and clears it for the next run.
// Build options (backends/opencl/superacc_cl.cpp): -DDIGITS -DLSB -DDOT -DFPE_N -DEARLY_EXIT
// -DCOPIES -DHAVE_ATOM64 -DU -DLANES -DGLOBAL_MERGE -DLS (the work-group size).
// offline-check: -DDIGITS=68 -DLSB=-1074 -DDOT=0 -DFPE_N=0 -DEARLY_EXIT=1 -DCOPIES=1 -DHAVE_ATOM64=1 -DU=8 -DLANES=1 -DGLOBAL_MERGE=1 -DLS=64
// offline-check: -DDIGITS=134 -DLSB=-2148 -DDOT=1 -DFPE_N=0 -DEARLY_EXIT=1 -DCOPIES=1 -DHAVE_ATOM64=1 -DU=4 -DLANES=1 -DGLOBAL_MERGE=1 -DLS=64
// offline-check: -DDIGITS=68 -DLSB=-1074 -DDOT=0 -DFPE_N=2 -DEARLY_EXIT=1 -DCOPIES=1 -DHAVE_ATOM64=1 -DU=1 -DLANES=1 -DGLOBAL_MERGE=0 -DLS=32
// offline-check: -DDIGITS=134 -DLSB=-2148 -DDOT=1 -DFPE_N=3 -DEARLY_EXIT=0 -DCOPIES=1 -DHAVE_ATOM64=1 -DU=4 -DLANES=1 -DGLOBAL_MERGE=0 -DLS=128
// offline-check: -DDIGITS=68 -DLSB=-1074 -DDOT=0 -DFPE_N=0 -DEARLY_EXIT=1 -DCOPIES=16 -DHAVE_ATOM64=1 -DU=8 -DLANES=0 -DGLOBAL_MERGE=0 -DLS=256
// offline-check: -DDIGITS=134 -DLSB=-2148 -DDOT=1 -DFPE_N=8 -DEARLY_EXIT=1 -DCOPIES=1 -DHAVE_ATOM64=1 -DU=4 -DLANES=0 -DGLOBAL_MERGE=0 -DLS=64
// offline-check: -DDIGITS=68 -DLSB=-1074 -DDOT=0 -DFPE_N=4 -DEARLY_EXIT=0 -DCOPIES=1 -DHAVE_ATOM64=0 -DU=8 -DLANES=0 -DGLOBAL_MERGE=0 -DLS=64
// offline-check: -DDIGITS=134 -DLSB=-2148 -DDOT=1 -DFPE_N=0 -DEARLY_EXIT=1 -DCOPIES=1 -DHAVE_ATOM64=0 -DU=2 -DLANES=0 -DGLOBAL_MERGE=0 -DLS=64
#include "core/numerics/numerics.h"
#include "core/numerics/superacc_lanes.h"
#include "core/numerics/expansion.h"
#include "core/numerics/ieee_special.h"
#if HAVE_ATOM64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#define POS_BIAS (ACCSUM_EXP_LSB - LSB)
#define STRIDE (DIGITS + 5)
#define F_NAN 0
#define F_PINF 1
#define F_NINF 2
#define F_NEGZERO 3
#define F_OTHER 4
#define FPE_MAX_INPUT as_double((ulong)ACCSUM_SUM_SLOW_HI << 32)      /* 2^970 */
#define DOT_MIN_PRODUCT as_double((ulong)ACCSUM_DOT_FAST_LO_HI << 32) /* 2^-968 */

#if HAVE_ATOM64
typedef __local long acc_t;
#define ACC_ADD(p, v) atom_add((p), (v))
#else
typedef long acc_t;
#define ACC_ADD(p, v) (*(p) += (v))
#endif

// m 2^pos (m < 2^53) as pieces of digits idx, idx+1, idx+2, with sign; zero pieces skipped.
inline void add_mantissa(acc_t* dig, ulong m, int pos, long neg) {
  int idx;
  ulong u0, u1, u2;
  accsum_split_mantissa(m, pos, &idx, &u0, &u1, &u2);
  if (u0) ACC_ADD(dig + idx, ((long)u0 ^ neg) - neg);
  if (u1) ACC_ADD(dig + idx + 1, ((long)u1 ^ neg) - neg);
  if (u2) ACC_ADD(dig + idx + 2, ((long)u2 ^ neg) - neg);
}

// A finite nonzero double (subnormals included).
inline void add_finite(acc_t* dig, double x) {
  ulong bits = as_ulong(x), m;
  int pos0;
  accsum_decompose(bits, &m, &pos0);
  add_mantissa(dig, m, pos0 + POS_BIAS, -(long)(bits >> 63));
}

// Classifies a term the expansion does not take; returns 1 when it is finite and nonzero.
inline int note_term(int* flags, double x) {
  if (isnan(x)) {
    flags[F_NAN] = 1;
    return 0;
  }
  if (isinf(x)) {
    flags[x > 0 ? F_PINF : F_NINF] = 1;
    return 0;
  }
  if (x == 0.0) {
    flags[signbit(x) ? F_NEGZERO : F_OTHER] = 1;
    return 0;
  }
  flags[F_OTHER] = 1;
  return 1;
}

#if DOT
// The exact product a*b as a 106-bit integer (core/numerics/superacc.hpp: add_product).
inline void add_product(acc_t* dig, int* flags, double a, double b) {
  const int cls = accsum_product_class(as_ulong(a), as_ulong(b));  // core/numerics/ieee_special.h
  flags[cls == ACCSUM_PRODUCT_NAN        ? F_NAN
        : cls == ACCSUM_PRODUCT_POS_INF  ? F_PINF
        : cls == ACCSUM_PRODUCT_NEG_INF  ? F_NINF
        : cls == ACCSUM_PRODUCT_NEG_ZERO ? F_NEGZERO
                                         : F_OTHER] = 1;
  if (cls != ACCSUM_PRODUCT_FINITE) return;
  int negative = signbit(a) != signbit(b);
  ulong ma, mb;
  int pa, pb;
  accsum_decompose(as_ulong(a), &ma, &pa);
  accsum_decompose(as_ulong(b), &mb, &pb);
  ulong lo53, hi53;
  accsum_product_halves(accsum_mul_hi64(ma, mb), ma * mb, &lo53, &hi53);
  int pos = pa + pb + (ACCSUM_DOT_LSB - LSB);
  long neg = negative ? -1 : 0;
  add_mantissa(dig, lo53, pos, neg);
  add_mantissa(dig, hi53, pos + 53, neg);
}
#endif

// One term through the register expansion (core/numerics/expansion.h); returns the residue.
inline double fpe_step(double* a, double x) { return accsum_expansion_absorb(a, FPE_N, x, EARLY_EXIT); }

// The same, the residue going to the accumulator.
inline void fpe_accumulate(double* a, acc_t* dig, double x) {
  x = fpe_step(a, x);
  if (x != 0.0) add_finite(dig, x);
}

// Carry propagation on a private copy: digits [0, 2^w) below the top, the top signed.
inline void normalize(long* d) { accsum_normalize(d, DIGITS); }

#if LANES
#include "backends/opencl/kernels/superacc_lanes_partial.clh"
#else
#include "backends/opencl/kernels/superacc_atomic_partial.clh"
#endif

// RN-even of the digit vector (core/numerics/superacc.hpp: round; accsum_round_magnitude), on the device.
inline double round_digits(long* d, __local long* flags) {
  const ulong special = accsum_special_result_bits(flags[F_NAN] != 0, flags[F_PINF] != 0, flags[F_NINF] != 0);
  if (special) return as_double(special);
  normalize(d);
  int negative = d[DIGITS - 1] < 0;
  if (negative) {
    for (int i = 0; i < DIGITS; ++i) d[i] = -d[i];
    normalize(d);
  }
  int k = DIGITS - 1;
  while (k >= 0 && d[k] == 0) --k;
  if (k < 0) return as_double(accsum_zero_result_bits(flags[F_NEGZERO] != 0, flags[F_OTHER] != 0));
  return as_double(accsum_round_magnitude(d, k, LSB) | (negative ? ACCSUM_SIGN_BIT : 0UL));
}

// The partials are summed by all work-items at once: `rows` = ls / STRIDE rows of STRIDE cells,
// cell (q, d) adds digit (or counter) d of partials q, q + rows, ... (consecutive work-items read
// consecutive words), then work-item d adds its column and work-item 0 rounds. sum: rows * STRIDE
// longs of local memory (at least STRIDE).
__kernel void superacc_final(__global long* partial, long count, __global double* result, __local long* sum) {
  const int lid = get_local_id(0), ls = get_local_size(0);
  const int rows = ls >= STRIDE ? ls / STRIDE : 1;
  for (int c = lid; c < rows * STRIDE; c += ls) {
    const int q = c / STRIDE, d = c - q * STRIDE;
    long s0 = 0, s1 = 0, s2 = 0, s3 = 0, p = q;  // four loads in flight per work-item
    for (; p + 3 * rows < count; p += 4 * rows) {
      s0 += partial[p * STRIDE + d];
      s1 += partial[(p + rows) * STRIDE + d];
      s2 += partial[(p + 2 * rows) * STRIDE + d];
      s3 += partial[(p + 3 * rows) * STRIDE + d];
    }
    for (; p < count; p += rows) s0 += partial[p * STRIDE + d];
    sum[c] = (s0 + s1) + (s2 + s3);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if GLOBAL_MERGE
  for (int c = lid; c < STRIDE; c += ls) partial[c] = 0;  // read above: cleared for the next run
#endif
  for (int d = lid; d < STRIDE; d += ls)
    for (int q = 1; q < rows; ++q) sum[d] += sum[q * STRIDE + d];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    long d[DIGITS];
    for (int i = 0; i < DIGITS; ++i) d[i] = sum[i];
    result[0] = round_digits(d, sum + DIGITS);
  }
}
