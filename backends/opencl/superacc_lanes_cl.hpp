#pragma once
// OpenCL C source of superacc_partial in LANES mode (appended to superacc_source when LANES = 1):
// levels 1-2 of Collange, Defour, Graillat, Iakymchuk (Parallel Computing 2015) as the CUDA
// kernel does them (backends/cuda/thread/superacc_lanes.cuh explains the layout; agent/superacc_agent.cuh the
// steps). Each work-item keeps a private superaccumulator ("lane") of LANE_DIGITS digits of 50
// bits in local memory, interleaved [digit][work-item], so the hot loop has no atomics; an
// optional private FP expansion of FPE_N terms in registers (Alg. 2, EARLY_EXIT) sends its
// residues to the lane. At the end the lanes are normalized, summed over the group by a tree
// (normalized digits are < 2^50, so up to 2^13 lanes fit a digit) and cut into the group's
// DIGITS digits of 32 bits: the group's partial, or (GLOBAL_MERGE) added with global atomics
// into the one partial that superacc_final rounds.
//
// Written for NVIDIA's OpenCL compiler (its PTX, read with ACCSUM_OPENCL_DUMP, kept the old
// per-work-item state struct, the expansion and the load buffers in local memory, .local, because
// of dynamically indexed arrays): every state is a scalar or an array indexed only inside fully
// unrolled loops, flags are one bit mask, the piece count is checked once per batch of 2 U terms,
// and special or tiny terms leave the straight path after one test per batch. Build options of
// superacc_cl.hpp, and -DLS (the work-group size) and -DLANE_DIGITS.
namespace accsum::opencl {
// Digits of a lane: bits 0 .. 2149 above 2^-1074, every double and 2^52 terms of headroom (the
// layout of backends/cuda/thread/superacc_lanes.cuh). The host sizes the local memory with it.
constexpr int kLaneDigits = 43;
inline const char* superacc_lanes_source = R"CLC(
#if LANES
#define LANE_BITS 50
#define LANE_MASK (((long)1 << LANE_BITS) - 1)
#define LANE_MAX_PENDING 2046     /* 2^50 + 2046 * 2^52 < 2^63 */
#define LANE_FAST_MIN_BIASED 51u  /* the FP64 cut needs |x| >= 2^-972 (or x = 0) */
#define FAST_LO_HI (LANE_FAST_MIN_BIASED << 20)  /* high word of 2^-972 */
#define SPECIAL_HI 0x7FF00000u                   /* high word of inf */
#define SUM_SLOW_HI 0x7C900000u                  /* high word of 2^970 = FPE_MAX_INPUT */
#define DOT_FAST_LO_HI ((1023u - 968u) << 20)    /* high word of 2^-968 = DOT_MIN_PRODUCT */
#define FL_NAN (1u << F_NAN)
#define FL_PINF (1u << F_PINF)
#define FL_NINF (1u << F_NINF)
#define FL_NEGZERO (1u << F_NEGZERO)
#define FL_OTHER (1u << F_OTHER)
#define B (2 * U)                        /* terms per batch and work-item */
#define PER_BATCH (B * (DOT ? 2 : 1))    /* pieces a lane digit may get per batch */
#define NEG_ZERO_BITS 0x8000000000000000UL

// |x|'s high word: exponent and top significand bits, one integer compare classifies x.
inline uint abs_hi(double x) { return (uint)(as_ulong(x) >> 32) & 0x7FFFFFFFu; }

// The FP64 cut (thread/superacc_lanes.cuh: lane_split_fast): x finite with biased exponent >= 51, or
// +-0 (adds nothing); two signed pieces |piece| <= 2^52 at digits k, k+1.
inline void lane_add_fast(__local long* lane, int ls, double x) {
  const double magic2 = 0x1.8p53, magic1 = 0x1.8p52;  // doubles whose ulp is 2 and 1
  const uint biased = (uint)(as_ulong(x) >> 52) & 0x7FFu;
  const uint pos = max(biased, LANE_FAST_MIN_BIASED) - 1;
  const int k = (int)mul_hi(pos, 85899346u);  // floor(pos / 50) for pos < 2^20
  const double q = x * as_double((ulong)(2047 - 50 * k) << 52);  // x / 2^(50 (k+1) - 1074), exact
  const double t = q + magic2;
  const long hi = 2 * (long)(as_ulong(t) - as_ulong(magic2));
  const double r = q - (t - magic2);
  const long lo = (long)(as_ulong(fma(r, 0x1p50, magic1)) - as_ulong(magic1));
  lane[k * ls] += lo;
  lane[(k + 1) * ls] += hi;
}

// The integer cut for any finite x (thread/superacc_lanes.cuh: lane_split_exact): pieces in [0, 2^50)
// at digits k, k+1 and a small signed one at k+2.
inline void lane_add_exact(__local long* lane, int ls, double x) {
  const ulong bits = as_ulong(x);
  ulong m;
  int pos;
  accsum_decompose(bits, &m, &pos);  // |x| = m 2^(pos - 1074)
  const long neg = -(long)(bits >> 63), sm = ((long)m ^ neg) - neg;
  const int k = (int)mul_hi((uint)pos, 85899346u), sh = pos - 50 * k;
  const long rest = sm >> (LANE_BITS - sh);
  lane[k * ls] += (long)(((ulong)sm << sh) & (ulong)LANE_MASK);
  lane[(k + 1) * ls] += rest & LANE_MASK;
  lane[(k + 2) * ls] += rest >> LANE_BITS;
}

// Any finite x (an expansion residue or a product's error may be tiny).
inline void lane_add(__local long* lane, int ls, double x) {
  if (abs_hi(x) >= FAST_LO_HI || (as_ulong(x) << 1) == 0) lane_add_fast(lane, ls, x);
  else lane_add_exact(lane, ls, x);
}

inline void lane_normalize(__local long* lane, int ls) {
  long carry = 0;
  for (int i = 0; i < LANE_DIGITS - 1; ++i) {
    const long d = lane[i * ls] + carry;
    carry = d >> LANE_BITS;
    lane[i * ls] = d & LANE_MASK;
  }
  lane[(LANE_DIGITS - 1) * ls] += carry;
}

// Flags of a term whose exponent field is all ones.
inline uint special_flags(double x) {
  if (isnan(x)) return FL_NAN;
  return x > 0 ? FL_PINF : FL_NINF;
}

// (fpe_step, the register expansion: superacc_source.)

#if DOT
// The exact product a*b (|fl(a b)| outside [2^-968, 2^970), special or zero) into the group's
// SuperaccDot digits with atomics (rare); returns its flags (a -0 product: none).
inline uint dot_slow(__local long* dig, double a, double b) {
  if (isnan(a) || isnan(b) || (isinf(a) && b == 0.0) || (isinf(b) && a == 0.0)) return FL_NAN;
  const int negative = signbit(a) != signbit(b);
  if (isinf(a) || isinf(b)) return negative ? FL_NINF : FL_PINF;
  if (a == 0.0 || b == 0.0) return negative ? 0u : FL_OTHER;
  ulong ma, mb, lo53, hi53;
  int pa, pb;
  accsum_decompose(as_ulong(a), &ma, &pa);
  accsum_decompose(as_ulong(b), &mb, &pb);
  accsum_product_halves(mul_hi(ma, mb), ma * mb, &lo53, &hi53);
  const int pos = pa + pb + (ACCSUM_DOT_LSB - LSB);
  const long neg = negative ? -1 : 0;
  add_mantissa(dig, lo53, pos, neg);
  add_mantissa(dig, hi53, pos + 53, neg);
  return FL_OTHER;
}

// B products x[j] y[j] (TwoProductFMA, Ogita, Rump, Oishi 2005, Alg. 3.5: p + e exact when
// 2^-968 <= |p| < 2^970); the others go to dot_slow and pass -0 here.
inline void dot_batch(double* x, double* y, double* a, double* z, uint* fl, __local long* dig,
                      __local long* lane, int ls) {
  double p[B], e[B];
  uint slow = 0;
#pragma unroll
  for (int j = 0; j < B; ++j) {
    p[j] = x[j] * y[j];
    e[j] = fma(x[j], y[j], -p[j]);
    slow |= (abs_hi(p[j]) - DOT_FAST_LO_HI >= SUM_SLOW_HI - DOT_FAST_LO_HI) ? 1u << j : 0u;
  }
  if (slow) {
#pragma unroll
    for (int j = 0; j < B; ++j)
      if ((slow >> j) & 1) {
        *fl |= dot_slow(dig, x[j], y[j]);
        p[j] = e[j] = -0.0;
      }
  }
#pragma unroll
  for (int j = 0; j < B; ++j) {
#if FPE_N > 0
    double r = fpe_step(a, p[j]);
    if (r != 0.0) lane_add(lane, ls, r);
    r = fpe_step(a, e[j]);
    if (r != 0.0) lane_add(lane, ls, r);
#else
    *z += p[j];  // stays -0 only while every product is -0
    lane_add_fast(lane, ls, p[j]);
    lane_add(lane, ls, e[j]);
#endif
  }
}
#else
// B sum terms t[j]. Straight path: the FP64 cut (FPE_N = 0) or the expansion; special terms, and
// tiny ones (FPE_N = 0) or huge ones (FPE_N > 0), leave it after one test per batch.
inline void sum_batch(double* t, double* a, double* z, uint* fl, __local long* lane, int ls) {
#if FPE_N > 0
  uint worst = 0;
#pragma unroll
  for (int j = 0; j < B; ++j) worst = max(worst, abs_hi(t[j]));
  if (worst >= SUM_SLOW_HI) {
#pragma unroll
    for (int j = 0; j < B; ++j) {
      const uint h = abs_hi(t[j]);
      if (h >= SPECIAL_HI) {
        *fl |= special_flags(t[j]);
        t[j] = -0.0;
      } else if (h >= SUM_SLOW_HI) {  // |t| >= 2^970: past the expansion's domain
        lane_add_fast(lane, ls, t[j]);
        *fl |= FL_OTHER;
        t[j] = -0.0;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < B; ++j) {
    const double r = fpe_step(a, t[j]);
    if (r != 0.0) lane_add(lane, ls, r);
  }
#else
  uint worst = 0;  // the unsigned difference wraps for tiny terms and zeros
#pragma unroll
  for (int j = 0; j < B; ++j) worst = max(worst, abs_hi(t[j]) - FAST_LO_HI);
  if (worst >= SPECIAL_HI - FAST_LO_HI) {
#pragma unroll
    for (int j = 0; j < B; ++j) {
      const uint h = abs_hi(t[j]);
      if (h >= SPECIAL_HI) {
        *fl |= special_flags(t[j]);
        t[j] = 0.0;  // +0: "a term other than -0" for z
      } else if (h < FAST_LO_HI && (as_ulong(t[j]) << 1) != 0) {
        lane_add_exact(lane, ls, t[j]);
        t[j] = 0.0;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < B; ++j) {
    *z += t[j];  // stays -0 only while every term is -0
    lane_add_fast(lane, ls, t[j]);
  }
#endif
}
#endif

// Work-group g takes the 16-byte vectors [nv g / G, nv (g+1) / G) of x (and y), nv = n / 2; its
// work-items read them U at a time (vector base + lid + j ls: coalesced), the next batch's loads
// in flight while this one is processed. The rest of the slice (< one batch) is one masked
// batch; the last group also takes the odd last term.
__kernel void superacc_partial(__global const double* restrict x, __global const double* restrict y, long n,
                               __global long* restrict partial, __local long* lanes) {
  const int lid = get_local_id(0), ls = LS;  // the work-group size, a build option: constant strides
  const long groups = get_num_groups(0), g = get_group_id(0);
  __local long dig[DIGITS];
  __local uint group_flags;
  for (int i = lid; i < DIGITS; i += ls) dig[i] = 0;
  if (lid == 0) group_flags = 0;
  __local long* lane = lanes + lid;  // this work-item's digit i at lane[i * ls]
  for (int i = 0; i < LANE_DIGITS; ++i) lane[i * ls] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  double a[FPE_N > 0 ? FPE_N : 1];
  a[0] = -0.0;  // the sign of an all -0 sum survives the expansion
#pragma unroll
  for (int j = 1; j < FPE_N; ++j) a[j] = 0.0;
  double z = -0.0;
  uint fl = 0;
  int pending = 0;  // pieces a lane digit may have had since the last normalization

  __global const double2* xv = (__global const double2*)x;
  __global const double2* yv = (__global const double2*)y;
  const long nv = n / 2, vb = nv * g / groups, ve = nv * (g + 1) / groups, batch = (long)ls * U;
  const long full_end = vb + (ve - vb) / batch * batch;
  double2 cx[U], cy[U];
  double t[B], s[B];
#pragma unroll
  for (int j = 0; j < U; ++j) cy[j] = (double2)(0.0);
  if (vb < full_end) {
#pragma unroll
    for (int j = 0; j < U; ++j) {
      cx[j] = xv[vb + lid + j * ls];
#if DOT
      cy[j] = yv[vb + lid + j * ls];
#endif
    }
  }
  for (long b = vb; b < full_end; b += batch) {
    double2 nx[U], ny[U];
    if (b + batch < full_end) {
#pragma unroll
      for (int j = 0; j < U; ++j) {
        nx[j] = xv[b + batch + lid + j * ls];
#if DOT
        ny[j] = yv[b + batch + lid + j * ls];
#endif
      }
    }
    if (pending > LANE_MAX_PENDING - PER_BATCH) {
      lane_normalize(lane, ls);
      pending = 0;
    }
    pending += PER_BATCH;
#pragma unroll
    for (int j = 0; j < U; ++j) {
      t[2 * j] = cx[j].x;
      t[2 * j + 1] = cx[j].y;
      s[2 * j] = cy[j].x;
      s[2 * j + 1] = cy[j].y;
    }
#if DOT
    dot_batch(t, s, a, &z, &fl, dig, lane, ls);
#else
    sum_batch(t, a, &z, &fl, lane, ls);
#endif
#pragma unroll
    for (int j = 0; j < U; ++j) {
      cx[j] = nx[j];
#if DOT
      cy[j] = ny[j];
#endif
    }
  }
  // The rest of the slice (< one batch) as one masked batch, then (last group, work-item 0) the
  // odd last term as another: missing terms are x = -0, y = 1, which change nothing.
  const int odd = (n & 1) && g == groups - 1 && lid == 0;
  for (int part = 0; part < 2; ++part) {
    if (part == 0 ? full_end >= ve : !odd) continue;
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const long i = full_end + lid + j * ls;
      const int take = part == 0 && i < ve;
      const double2 u = take ? xv[i] : (double2)(-0.0);
#if DOT
      const double2 v = take ? yv[i] : (double2)(1.0);
#else
      const double2 v = (double2)(1.0);
#endif
      t[2 * j] = u.x;
      t[2 * j + 1] = u.y;
      s[2 * j] = v.x;
      s[2 * j + 1] = v.y;
    }
    if (part == 1) {
      t[0] = x[n - 1];
      s[0] = DOT ? y[n - 1] : 1.0;
    }
    if (pending > LANE_MAX_PENDING - PER_BATCH) {
      lane_normalize(lane, ls);
      pending = 0;
    }
    pending += PER_BATCH;
#if DOT
    dot_batch(t, s, a, &z, &fl, dig, lane, ls);
#else
    sum_batch(t, a, &z, &fl, lane, ls);
#endif
  }
  if (pending > LANE_MAX_PENDING - (FPE_N > 0 ? FPE_N : 1)) lane_normalize(lane, ls);
#pragma unroll
  for (int j = 0; j < FPE_N; ++j) lane_add(lane, ls, a[j]);
  if (as_ulong(a[0]) != NEG_ZERO_BITS || as_ulong(z) != NEG_ZERO_BITS) fl |= FL_OTHER;
  if (n > 0) fl |= FL_NEGZERO;  // a term exists: the sum is -0 if no term is "other"
  lane_normalize(lane, ls);
  if (fl) atomic_or(&group_flags, fl);
  barrier(CLK_LOCAL_MEM_FENCE);

  // Tree over the work-items' lanes, digit by digit (consecutive work-items, consecutive words):
  // lane w += lane w + h for the upper half, until lane 0 holds the group's column sums.
  for (int m = ls; m > 1;) {
    const int h = (m + 1) / 2, cells = (m - h) * LANE_DIGITS;
    for (int c = lid; c < cells; c += ls) {
      const int i = c / (m - h), w = c - i * (m - h);
      lanes[i * ls + w] += lanes[i * ls + w + h];
    }
    m = h;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // Column i (v 2^(50 i - 1074), any int64) into three pieces of the 32-bit digits
  // (thread/superacc_lanes.cuh: int64_pieces); the slow dot path's pieces are there already.
  for (int i = lid; i < LANE_DIGITS; i += ls) {
    const long v = lanes[i * ls];
    if (v == 0) continue;
    const int pos = LANE_BITS * i + (ACCSUM_EXP_LSB - LSB), sh = pos & (ACCSUM_DIGIT_BITS - 1);
    const int idx = pos >> ACCSUM_DIGIT_LOG2;
    const ulong lo = ((ulong)v & ACCSUM_DIGIT_MASK) << sh;
    const long hi = (v >> ACCSUM_DIGIT_BITS) * ((long)1 << sh);
    atom_add(dig + idx, (long)(lo & ACCSUM_DIGIT_MASK));
    atom_add(dig + idx + 1, (long)(lo >> ACCSUM_DIGIT_BITS) + (hi & (long)ACCSUM_DIGIT_MASK));
    atom_add(dig + idx + 2, hi >> ACCSUM_DIGIT_BITS);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {  // carries: digits [0, 2^32) below the top
    long carry = 0;
    for (int i = 0; i < DIGITS; ++i) {
      const long d = dig[i] + carry;
      carry = i < DIGITS - 1 ? d >> ACCSUM_DIGIT_BITS : 0;
      dig[i] = d - carry * ((long)1 << ACCSUM_DIGIT_BITS);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if GLOBAL_MERGE
  // Into the one partial (global atomics; a group has few nonzero digits): 2^31 groups of
  // normalized digits fit.
  for (int i = lid; i < DIGITS; i += ls)
    if (dig[i] != 0) atom_add(partial + i, dig[i]);
  for (int f = lid; f < 5; f += ls)
    if ((group_flags >> f) & 1) atom_add(partial + DIGITS + f, (long)1);
#else
  __global long* out = partial + g * STRIDE;
  for (int i = lid; i < DIGITS; i += ls) out[i] = dig[i];
  for (int f = lid; f < 5; f += ls) out[DIGITS + f] = (group_flags >> f) & 1;
#endif
}
#endif  // LANES
)CLC";
}  // namespace accsum::opencl
