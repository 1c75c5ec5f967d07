#pragma once
// Part of families/gemm/ozaki.hpp, which includes it at its end: include that header, not this one.
// Faster equivalents of families/gemm/ozaki.hpp's definitions for the cuda backend: the same values,
// fewer and cheaper operations (tests/families/test_ozaki.cpp checks each against its definition).
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace accsum::ozaki {

// ---- faster equivalents for the cuda backend (the same values as the definitions above) ----

// 2^e as a double, exactly, for e in [-1022, 1023].
ACCSUM_HD double pow2(int e) {
  const uint64_t bits = static_cast<uint64_t>(e + 1023) << 52;
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  __builtin_memcpy(&d, &bits, 8);
  return d;
#endif
}

// scaled_integer(x, shift) with factor = pow2(shift): the shifts of step 1 lie in [-128, 210]
// (line_top in [-148, 128], bits in [0, kMaxSideBits]), so the factor is a normal double and
// x * factor is exact (24-bit significand, magnitude in [2^-277, 2^63]): the value ldexp gives.
ACCSUM_HD int64_t scaled_integer_by(float x, double factor) {
  const double v = static_cast<double>(x) * factor;
#if defined(__CUDA_ARCH__)
  return static_cast<int64_t>(rint(v));
#else
  return static_cast<int64_t>(std::rint(v));
#endif
}

// residue_symmetric(v, p) in 32-bit unsigned arithmetic (|v| <= 2^62): |v| in 16-bit chunks d_0 .. d_3
// (d_3 <= 2^14), split once per entry and shared by its moduli, gives |v| mod p = (sum_i d_i (2^(16 i)
// mod p)) mod p with the sum below 2^16 + 2 * 2^24 + 2^22 < 2^26 (p <= 256): one 32-bit remainder by
// the constant p (a multiply-high when the moduli loop is unrolled), then the sign and the symmetric
// range.
struct Chunks16 {
  uint32_t d[4];
  bool negative;
};
ACCSUM_HD Chunks16 chunks16(int64_t v) {
  const uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  Chunks16 c;
  for (int i = 0; i < 4; ++i) c.d[i] = static_cast<uint32_t>(mag >> (16 * i)) & 0xffffu;
  c.negative = v < 0;
  return c;
}
// The symmetric residue of v from |v| mod p (r in [0, p)) and the sign of v.
ACCSUM_HD int symmetric_of(uint32_t r, bool negative, int p) {
  return to_symmetric(negative && r != 0 ? p - static_cast<int>(r) : static_cast<int>(r), p);
}
ACCSUM_HD int residue_symmetric_chunks(const Chunks16& c, int p) {
  const uint32_t up = static_cast<uint32_t>(p);
  const uint32_t w1 = (uint32_t{1} << 16) % up, w2 = w1 * w1 % up, w3 = w2 * w1 % up;  // 2^(16 i) mod p
  return symmetric_of((c.d[0] + c.d[1] * w1 + c.d[2] * w2 + c.d[3] * w3) % up, c.negative, p);
}

// The same for a plan's side of at most kNarrowSideBits bits (then |v| <= 2^30; floats on lines that span
// at most 30 bits, the usual case): the scaled integer as an int32, whose magnitude is one 32-bit
// remainder by the constant p away from the residue; about half the integer work of the chunks.
constexpr int kNarrowSideBits = 30;
ACCSUM_HD int32_t scaled_integer_narrow(float x, double factor) {
  const double v = static_cast<double>(x) * factor;  // exact, as in scaled_integer_by
#if defined(__CUDA_ARCH__)
  return __double2int_rn(v);
#else
  return static_cast<int32_t>(std::rint(v));
#endif
}
ACCSUM_HD int residue_symmetric_narrow(int32_t v, int p) {
  const uint32_t mag = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
  return symmetric_of(mag % static_cast<uint32_t>(p), v < 0, p);
}

// scaled_residue(x, shift, p) of a double, split as the cuda backend uses it: the scaled integer
// once per entry as m 2^s (s = 0: m = RN(x 2^shift) itself, |m| <= 2^62; else m the 53-bit
// significand and s > 9), then per modulus residue_symmetric_chunks of m, times 2^s mod p.
struct ScaledInteger {
  int64_t m = 0;
  int s = 0;
};
ACCSUM_HD ScaledInteger scaled_integer_wide(double x, int shift) {
  ScaledInteger r;
  const double v = ldexp(x, shift);
  if (fabs(v) <= 0x1p62) {
    r.m = static_cast<int64_t>(rint(v));
    return r;
  }
  int e = 0;
  const double f = frexp(v, &e);
  r.m = static_cast<int64_t>(ldexp(f, 53));
  r.s = e - 53;
  return r;
}
ACCSUM_HD int residue_symmetric_wide(const ScaledInteger& v, int p) {
  const int r0 = residue_symmetric_chunks(chunks16(v.m), p);  // the chunks are shared by an entry's moduli
  if (v.s == 0) return r0;
  return to_symmetric((r0 < 0 ? r0 + p : r0) * pow2_mod(v.s, p) % p, p);
}

// A bound B = m 2^s on every |C'_ij| of a plan (m > 0 or B = 0): bits() is the smallest t with B < 2^t.
struct ProductBound {
  uint64_t m = 0;
  int s = 0;
  int bits() const { return m == 0 ? 0 : bit_length(static_cast<u128>(m)) + s; }
  template <class U>
  U as() const {  // B exactly; the caller keeps bits() within U's width
    return static_cast<U>(m) << s;
  }
};

// The CRT when every |C'| <= B (the plan's ProductBound) fits a signed integer of the width of W
// (uint64_t for floats, unsigned __int128 for doubles) and B <= P/2 - P 2^-kSmallMargin (U[0,1)
// floats up to K = 2^14 with their 8 moduli, the sgemm accuracy's plans; doubles whose plans keep
// B below 2^127): S = sum_l r_l W_l = q P + C' with q an integer and |C'/P| <= 1/2 -
// 2^-kSmallMargin, so q is the integer nearest S/P = sum_l r_l (W_l/P). f = sum_l r_l RN(W_l/P) in
// double is within 2^-35 of S/P: each RN(W_l/P) (W_l, P and the quotient rounded) is within
// 3 * 2^-53 of W_l/P (< 1), times r_l < 2^8, and each of the L <= 26 steps f + r_l RN(W_l/P), one
// fused multiply-add, rounds a sum below 2^13 by at most 2^-41 (26 (2^-43 + 2^-41) < 2^-35); so
// rint(f) = q (f is more than 2^-35 from any half-integer). Then C' = S - qP is known modulo 2^width from W_l and P
// modulo 2^width in wrapping arithmetic, and |C'| < 2^(width - 1) makes that residue, read as signed, C' itself. The
// same exact C' as crt_magnitude, for a fraction of the instructions of the wider forms.
constexpr int kSmallMargin = 34;
template <class W, int N>
struct CrtSmallOf {
  double fraction[N];  // RN(W_l / P)
  W weight_low[N];     // W_l mod 2^width
  W product_low = 0;   // P mod 2^width
  bool applies = false;
};

// The low bits of an exact integer as W.
template <class W>
ACCSUM_HD W low_bits(u128 v) {
  return static_cast<W>(v);
}
template <class W, int Limbs>
ACCSUM_HD W low_bits(const UWide<Limbs>& v) {
  if constexpr (sizeof(W) == 8)
    return static_cast<W>(v.limb[0]);
  else
    return static_cast<W>(v.limb[0]) | static_cast<W>(v.limb[1]) << 64;
}

template <class W, class F>
CrtSmallOf<W, Format<F>::kMaxModuli> make_crt_small(const CrtOf<F>& c, ProductBound bound) {
  using U = typename Format<F>::U;
  constexpr int kSignedBits = static_cast<int>(8 * sizeof(W)) - 1;  // |C'| <= B < 2^kSignedBits
  CrtSmallOf<W, Format<F>::kMaxModuli> k;
  for (int l = 0; l < Format<F>::kMaxModuli; ++l) {
    k.fraction[l] = l < c.moduli ? to_double(c.weight[l]) / c.product_double : 0.0;
    k.weight_low[l] = low_bits<W>(c.weight[l]);
  }
  k.product_low = low_bits<W>(c.product);
  if (bound.bits() > kSignedBits) return k;
  const U b = bound.as<U>();
  k.applies = b <= (c.product >> 1) - (c.product >> kSmallMargin);
  return k;
}

// C' (two's complement in W) from its residues, when make_crt_small's `applies` holds.
template <int L, class W, int N>
ACCSUM_HD W crt_small(const int* r, const CrtSmallOf<W, N>& c) {
  double f = 0;
  W s = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int l = 0; l < L; ++l) {
    f = fma(static_cast<double>(r[l]), c.fraction[l], f);  // one rounding per step (the proof above)
    s += static_cast<W>(static_cast<uint32_t>(r[l])) * c.weight_low[l];
  }
#if defined(__CUDA_ARCH__)
  const W q = static_cast<W>(static_cast<uint64_t>(__double2ll_rn(f)));
#else
  const W q = static_cast<W>(static_cast<uint64_t>(std::llrint(f)));
#endif
  return s - q * c.product_low;
}

// The CRT weights as four 32-bit limbs (W_l < P < 2^102: limb 3 < 2^6) and 1/P rounded; and the
// 64-bit form for plans whose products stay small (crt_small).
struct CrtLimbs {
  uint32_t weight[kMaxModuli][4];
  u128 product = 0;
  double inv_product = 0;
  CrtSmallOf<uint64_t, kMaxModuli> small;
  CrtSmallOf<u128, kMaxModuli> small_wide;  // where the products pass 2^63 (plans near P_9/2 and above)
};

inline CrtLimbs make_crt_limbs(const Crt& c, ProductBound bound = {}) {
  CrtLimbs k;
  for (int l = 0; l < kMaxModuli; ++l)
    for (int q = 0; q < 4; ++q) k.weight[l][q] = static_cast<uint32_t>(c.weight[l] >> (32 * q));
  k.product = c.product;
  k.inv_product = 1.0 / c.product_double;
  k.small = make_crt_small<uint64_t>(c, bound);
  k.small_wide = make_crt_small<u128>(c, bound);
  return k;
}

// crt_symmetric(r, c) for L moduli (r_l in [0, p_l)), the same exact X by other arithmetic:
//  - s = sum_l r_l W_l by limbs: acc_q = sum_l r_l w_lq < 13 * 2^8 * 2^32 < 2^44 (32 x 32 -> 64
//    bit multiply-adds, no overflow), s = sum_q acc_q 2^(32 q) < 2^114 (as in (a)): exact.
//  - floor(s/P) estimated as to_double(s) * RN(1/to_double(P)): four roundings (s, P, the
//    reciprocal, the product), each of relative error <= 2^-52, so the relative error is < 2^-49;
//    s/P < 2^12, so the absolute error is < 2^-37 and the truncated estimate is floor(s/P) or one
//    off, as in (b) (no multiply by a double division: cheaper on a GPU);
//    x = s - qP is exact in [-P, 2P) and the same corrections bring it to the unique
//    representative in [-P/2, P/2), returned as sign and magnitude (crt_magnitude_limbs).
template <int L>
ACCSUM_HD u128 crt_magnitude_limbs(const int* r, const CrtLimbs& c, bool* negative) {
  uint64_t acc[4] = {0, 0, 0, 0};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int l = 0; l < L; ++l)
    for (int q = 0; q < 4; ++q) acc[q] += static_cast<uint64_t>(static_cast<uint32_t>(r[l])) * c.weight[l][q];
  const u128 s = static_cast<u128>(acc[0]) + (static_cast<u128>(acc[1]) << 32) + (static_cast<u128>(acc[2]) << 64) +
                 (static_cast<u128>(acc[3]) << 96);
  const uint64_t q = static_cast<uint64_t>(to_double(s) * c.inv_product);  // floor(s/P) +- 1
  return symmetric_magnitude(s, q, c.product, negative);
}
template <int L>
ACCSUM_HD i128 crt_symmetric_limbs(const int* r, const CrtLimbs& c) {
  bool negative = false;
  const u128 m = crt_magnitude_limbs<L>(r, c, &negative);
  return negative ? -static_cast<i128>(m) : static_cast<i128>(m);
}

}  // namespace accsum::ozaki
