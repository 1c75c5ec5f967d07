#pragma once
// OpenCL C source of the correctly rounded sum and dot (Collange, Defour, Graillat, Iakymchuk,
// "Numerical reproducibility for the parallel reduction on multi- and many-core architectures",
// Parallel Computing 2015: levels 1-5 on a device), appended to eft_prelude. The same
// representation as core/numerics/superacc.hpp (read its comment first), from the same code: core/numerics/numerics.h
// (ACCSUM_DIGIT_BITS-bit digits, the cut accsum_split_mantissa, accsum_normalize and the rounding
// accsum_round_magnitude). DIGITS signed 64-bit digits, digit i of weight 2^(w i + LSB).
//
//   superacc_partial: work-group g reduces a contiguous slice of about n / G terms, read as
//     16-byte vectors, U per work-item in flight (the next batch loads while one is added). Each
//     work-item keeps a private FP expansion of FPE_N terms (Collange et al. Alg. 2, EARLY_EXIT optional);
//     residues and terms the expansion must not take go, as three pieces, into one of COPIES
//     superaccumulators in local memory with 64-bit atom_add (cl_khr_int64_base_atomics).
//     Without that extension (HAVE_ATOM64 = 0) each work-item keeps a private
//     superaccumulator and writes it as its own partial. A slice has < 2^29 terms, so a digit
//     receives < 2^31 pieces in all: no carry handling before the end. One work-item then
//     sums the copies, propagates carries and writes the partial (digits, then 5 counters).
//   superacc_final: one work-group adds the partials digit by digit, many partials at once
//     (normalized digits are < 2^w, so 2^(63-w) partials fit), then one work-item normalizes
//     and rounds to nearest even on the device; the host reads one double. GLOBAL_MERGE (LANES
//     only): the groups add their nonzero digits into one partial with global 64-bit atomics
//     instead, and superacc_final reads that one (count = 1) and clears it for the next run.
//   LANES (the default where local 64-bit atomics exist): superacc_partial is the one of
//     superacc_lanes_cl.hpp instead (private accumulators in local memory, no per-term atomics);
//     the partial of this file is the fallback (per-term atomics, or private accumulators
//     without 64-bit local atomics).
// Build options: -DDIGITS -DLSB -DDOT -DFPE_N -DEARLY_EXIT -DCOPIES -DHAVE_ATOM64 -DU -DLANES
// -DGLOBAL_MERGE.
namespace accsum::opencl {
inline const char* superacc_source = R"CLC(
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
#define FPE_MAX_INPUT 0x1p970
#define DOT_MIN_PRODUCT 0x1p-968

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
  if (isnan(x)) { flags[F_NAN] = 1; return 0; }
  if (isinf(x)) { flags[x > 0 ? F_PINF : F_NINF] = 1; return 0; }
  if (x == 0.0) { flags[signbit(x) ? F_NEGZERO : F_OTHER] = 1; return 0; }
  flags[F_OTHER] = 1;
  return 1;
}

#if DOT
// The exact product a*b as a 106-bit integer (core/numerics/superacc.hpp: add_product).
inline void add_product(acc_t* dig, int* flags, double a, double b) {
  if (isnan(a) || isnan(b) || (isinf(a) && b == 0.0) || (isinf(b) && a == 0.0)) { flags[F_NAN] = 1; return; }
  int negative = signbit(a) != signbit(b);
  if (isinf(a) || isinf(b)) { flags[negative ? F_NINF : F_PINF] = 1; return; }
  if (a == 0.0 || b == 0.0) { flags[negative ? F_NEGZERO : F_OTHER] = 1; return; }
  flags[F_OTHER] = 1;
  ulong ma, mb;
  int pa, pb;
  accsum_decompose(as_ulong(a), &ma, &pa);
  accsum_decompose(as_ulong(b), &mb, &pb);
  ulong lo53, hi53;
  accsum_product_halves(mul_hi(ma, mb), ma * mb, &lo53, &hi53);
  int pos = pa + pb + (ACCSUM_DOT_LSB - LSB);
  long neg = negative ? -1 : 0;
  add_mantissa(dig, lo53, pos, neg);
  add_mantissa(dig, hi53, pos + 53, neg);
}
#endif

// One term through the register expansion (Collange et al. Alg. 2); returns the residue.
inline double fpe_step(double* a, double x) {
#if FPE_N > 0
#pragma unroll
  for (int j = 0; j < FPE_N; ++j) {
    double s, e;
    accsum_two_sum(a[j], x, &s, &e);
    a[j] = s;
    x = e;
#if EARLY_EXIT
    if (x == 0.0) return x;
#endif
  }
#endif
  return x;
}

// The same, the residue going to the accumulator.
inline void fpe_accumulate(double* a, acc_t* dig, double x) {
  x = fpe_step(a, x);
  if (x != 0.0) add_finite(dig, x);
}

// Carry propagation on a private copy: digits [0, 2^w) below the top, the top signed.
inline void normalize(long* d) { accsum_normalize(d, DIGITS); }

#if !LANES
// The state of one work-item: its expansion, its accumulator (a local copy or its own), the
// special-value flags and whether a finite nonzero term went through the expansion.
typedef struct {
  double a[FPE_N > 0 ? FPE_N : 1];
  int flags[5];
  int fed;
} item_t;

// One term (sum) or one product (dot) into the work-item's state.
#if DOT
inline void take(item_t* st, acc_t* dig, double u, double v) {
  double p = u * v;
  if (fabs(p) >= DOT_MIN_PRODUCT && fabs(p) < FPE_MAX_INPUT) {
    double e = fma(u, v, -p);  // exact: the product's lowest bit is >= 2^-1074
    st->fed = 1;
#if FPE_N > 0
    fpe_accumulate(st->a, dig, p);
    if (e != 0.0) fpe_accumulate(st->a, dig, e);
#else
    add_finite(dig, p);
    if (e != 0.0) add_finite(dig, e);
#endif
  } else {
    add_product(dig, st->flags, u, v);
  }
}
#else
inline void take(item_t* st, acc_t* dig, double t, double unused) {
  if (t != 0.0 && fabs(t) < FPE_MAX_INPUT) {
    st->fed = 1;
#if FPE_N > 0
    fpe_accumulate(st->a, dig, t);
#else
    add_finite(dig, t);
#endif
  } else if (note_term(st->flags, t)) {
    add_finite(dig, t);
  }
}
#endif

#if DOT
#define LOAD_Y(v, i) ((v) = yv[i])
#else
#define LOAD_Y(v, i) ((v) = (double2)(0.0))
#endif

// Work-group g takes the 16-byte vectors [nv g / G, nv (g+1) / G) of x (and y), nv = n / 2; its
// work-items read them U at a time (vector base + lid + j ls: coalesced), the next batch's loads
// in flight while this one is processed (several loads per work-item hide the memory latency).
// The last group also takes the odd last term.
__kernel void superacc_partial(__global const double* x, __global const double* y, long n,
                               __global long* partial, __local long* unused_lanes) {
  const int lid = get_local_id(0), ls = get_local_size(0);
  const long groups = get_num_groups(0), g = get_group_id(0);
#if HAVE_ATOM64
  __local long digits[COPIES * DIGITS];
  __local int group_flags[5];
  for (int i = lid; i < COPIES * DIGITS; i += ls) digits[i] = 0;
  for (int f = lid; f < 5; f += ls) group_flags[f] = 0;  // local sizes below 5 too
  barrier(CLK_LOCAL_MEM_FENCE);
  acc_t* dig = digits + (lid % COPIES) * DIGITS;
#else
  long dig[DIGITS];
  for (int i = 0; i < DIGITS; ++i) dig[i] = 0;
#endif
  item_t st;
  for (int f = 0; f < 5; ++f) st.flags[f] = 0;
  for (int j = 0; j < (FPE_N > 0 ? FPE_N : 1); ++j) st.a[j] = 0.0;
  st.fed = 0;
  __global const double2* xv = (__global const double2*)x;
  __global const double2* yv = (__global const double2*)y;
  const long nv = n / 2, vb = nv * g / groups, ve = nv * (g + 1) / groups, batch = (long)ls * U;
  const long full_end = vb + (ve - vb) / batch * batch;
  double2 cx[U], cy[U], nx[U], ny[U];
  if (vb < full_end)
    for (int j = 0; j < U; ++j) { cx[j] = xv[vb + lid + j * ls]; LOAD_Y(cy[j], vb + lid + j * ls); }
  for (long b = vb; b < full_end; b += batch) {
    const long next = b + batch + lid;
    if (b + batch < full_end)
      for (int j = 0; j < U; ++j) { nx[j] = xv[next + j * ls]; LOAD_Y(ny[j], next + j * ls); }
    for (int j = 0; j < U; ++j) {
      take(&st, dig, cx[j].x, cy[j].x);
      take(&st, dig, cx[j].y, cy[j].y);
    }
    for (int j = 0; j < U; ++j) { cx[j] = nx[j]; cy[j] = ny[j]; }
  }
  for (long i = full_end + lid; i < ve; i += ls) {
    double2 u = xv[i], v;
    LOAD_Y(v, i);
    take(&st, dig, u.x, v.x);
    take(&st, dig, u.y, v.y);
  }
  if ((n & 1) && g == groups - 1 && lid == 0) take(&st, dig, x[n - 1], DOT ? y[n - 1] : 0.0);
  for (int j = 0; j < FPE_N; ++j)
    if (st.a[j] != 0.0) add_finite(dig, st.a[j]);
  if (st.fed) st.flags[F_OTHER] = 1;
#if HAVE_ATOM64
  for (int f = 0; f < 5; ++f)
    if (st.flags[f]) atomic_or(&group_flags[f], 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  // Sum the copies digit by digit (< 2^31 pieces per digit in all: no overflow), then one
  // work-item propagates the carries and writes the group's partial.
  for (int i = lid; i < DIGITS; i += ls) {
    long s = 0;
    for (int c = 0; c < COPIES; ++c) s += digits[c * DIGITS + i];
    digits[i] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    long carry = 0;
    __global long* out = partial + g * STRIDE;
    for (int i = 0; i < DIGITS; ++i) {
      long d = digits[i] + carry;
      carry = i < DIGITS - 1 ? d >> ACCSUM_DIGIT_BITS : 0;
      out[i] = d - carry * ((long)1 << ACCSUM_DIGIT_BITS);
    }
    for (int f = 0; f < 5; ++f) out[DIGITS + f] = group_flags[f];
  }
#else
  normalize(dig);
  __global long* out = partial + get_global_id(0) * STRIDE;
  for (int i = 0; i < DIGITS; ++i) out[i] = dig[i];
  for (int f = 0; f < 5; ++f) out[DIGITS + f] = st.flags[f];
#endif
}

#endif  // !LANES

// RN-even of the digit vector (core/numerics/superacc.hpp: round; accsum_round_magnitude), on the device.
inline double round_digits(long* d, __local long* flags) {
  if (flags[F_NAN] || (flags[F_PINF] && flags[F_NINF])) return as_double(0x7FF8000000000000UL);
  if (flags[F_PINF]) return as_double(0x7FF0000000000000UL);
  if (flags[F_NINF]) return as_double(0xFFF0000000000000UL);
  normalize(d);
  int negative = d[DIGITS - 1] < 0;
  if (negative) {
    for (int i = 0; i < DIGITS; ++i) d[i] = -d[i];
    normalize(d);
  }
  int k = DIGITS - 1;
  while (k >= 0 && d[k] == 0) --k;
  if (k < 0) return (flags[F_NEGZERO] && !flags[F_OTHER]) ? -0.0 : 0.0;
  return as_double(accsum_round_magnitude(d, k, LSB) | (negative ? ACCSUM_SIGN_BIT : 0UL));
}

// The partials are summed by all work-items at once: `rows` = ls / STRIDE rows of STRIDE cells,
// cell (q, d) adds digit (or counter) d of partials q, q + rows, ... (consecutive work-items read
// consecutive words), then work-item d adds its column and work-item 0 rounds. sum: rows * STRIDE
// longs of local memory (at least STRIDE).
__kernel void superacc_final(__global long* partial, long count, __global double* result,
                             __local long* sum) {
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
)CLC";
}  // namespace accsum::opencl
