#pragma once
// sgemm-ozaki and dgemm-ozaki: C = alpha*A*B + beta*C in float (double), computed EXACTLY on int8
// matrix products and rounded once. The readable definition shared by the cpu backend (integer
// loops) and the host and device code of the cuda backend (cuBLAS int8 GEMMs); one template over
// the input format F (Format<float>, Format<double> below). Steps 1-5 and (a)-(c) are stated for
// float; the double form follows them with wider integers ("Doubles" below).
//
// The scheme is the Ozaki scheme II: Ozaki, Uchino, Imamura, "Ozaki Scheme II: A GEMM-oriented
// emulation of floating-point matrix multiplication using an integer modular technique" (2025),
// Sec. 3, with the row/column power-of-two scaling of Ozaki, Ogita, Oishi, Rump, "Error-free
// transformations of matrix multiplication by using fast routines of matrix multiplication and its
// applications" (Numer. Algorithms 59, 2012), Sec. 3, and the int8 tensor-core building block of
// Ootomo, Ozaki, Yokota, "DGEMM on integer matrix multiplication unit" (IJHPCA 2024).
//
//  1. Scale. Row i of A gets the power of two 2^(bits_a - top_i), where 2^top_i is the smallest
//     power of two above max_k |a_ik|; A'_ik = RN(a_ik 2^(bits_a - top_i)) is an integer with
//     |A'_ik| <= 2^bits_a. Columns of B likewise with bits_b. A'_ik is EXACT (no rounding) when the
//     row's entries have no set bit below 2^(top_i - bits_a), i.e. when the row's bit span
//     top_i - low_i (low_i: the exponent of the lowest set bit of any entry) is <= bits_a.
//     bits_a, bits_b <= kMaxSideBits = 62 (A', B' are int64), whatever the budget.
//  2. Residues. For each modulus p_l (L pairwise coprime moduli <= 256, modulus(l)) the symmetric
//     residues A'_ik mod p_l and B'_kj mod p_l fit int8 (odd p: [-(p-1)/2, (p-1)/2]; 256:
//     [-128, 127]). "Slices" are these L residue matrices: one int8 product per modulus, no
//     pairs to choose (scheme I's slice pairs (s, t) are replaced by L independent products).
//  3. Products. T_l = sum_k (A'_ik mod p_l)(B'_kj mod p_l) in int32 is exact while
//     K * 128^2 < 2^31: blocks of kBlockK = 2^16 inner indices (2^30), reduced mod p_l between
//     blocks. T_l = C'_ij mod p_l, C' = A'B' (exact integers).
//  4. Reconstruction (CRT). |C'_ij| <= B < P/2, P = p_1 ... p_L, with B the plan's product bound
//     (K 2^(bits_a + bits_b), or the Cauchy-Schwarz bound below; the plan makes B < P/2), hence
//     C'_ij is the unique representative of sum_l T_l W_l mod P in
//     [-P/2, P/2) (W_l: the CRT weights). P < 2^kMaxProductBits, so C' is an exact 128-bit integer
//     (see "Why 128 bits are enough" below).
//  5. One rounding. The exact entry is alpha C'_ij 2^(top_i + top_j - bits_a - bits_b) +
//     beta c_ij: alpha C' is an exact integer product (24 x 101 bits), beta c_ij is exact
//     (24 x 24 bits); their exact sum is rounded ONCE to float (round_sum). So whenever every row
//     of A and every column of B is covered (exact scaling), each entry is the correctly rounded
//     exact alpha*AB + beta*C. Rows or columns not covered lose the bits below 2^(top - bits) of
//     their entries (one rounding per input entry, as in the papers' normwise bound); the plan
//     counts them and the run reports the counts: never a silent loss.
//
// Choosing L: the budget of L moduli is the largest b with K 2^b < P/2; the default takes the
// fewest L in [2, kMaxModuli] whose budget covers need_a + need_b (the largest row and column bit
// spans; 24 + 24 for U[0,1]: L = 8 up to K = 2^14; 25 + 25 for U[-1,1]: L = 9 at K = 2^13),
// else kMaxModuli and reports what is not covered. An exact plan may then take fewer moduli where
// the lines' norms allow (families/gemm/ozaki_run.hpp, tighten_by_norms): |C'_ij| <= ||A'_i||_2
// ||B'_j||_2 (Cauchy-Schwarz), about K 2^(bits_a + bits_b) / 3 on uniform data, which takes U[-1,1]
// at K = 2^13 from 9 moduli to 8.
//
// Why 128 bits are enough (kMaxProductBits = 102: P_L < 2^102 for every L <= kMaxModuli = 13;
// the 13 moduli below are the most that fit, P_13 ~ 2^101.92):
//  (a) CRT sum: s = sum_l r_l W_l with r_l < 256, W_l < P, L <= 13: s < 13 * 2^8 * 2^102 < 2^114,
//      an unsigned 128-bit integer with no overflow.
//  (b) floor(s/P) correction: s and P are rounded to double (relative errors <= 2^-52 each, the
//      quotient's <= 2^-50 after the division), and s/P < 13 * 2^8 < 2^12, so the estimate q
//      of floor(s/P) is off by at most 1 (absolute error < 2^-38); x = s - qP then lies in
//      [-P, 2P), and one addition or subtraction of P, formed on unsigned magnitudes (qP < 2^115),
//      brings it to [0, P); X is x, or x - P (as its sign and magnitude P - x) when x >= P/2.
//  (c) alpha/beta step: |C'| <= P/2 < 2^101 and |alpha| = m 2^e with |m| < 2^24, so
//      |alpha C'| < 2^125 is exact in 128 bits; beta c < 2^48. round_sum adds the two exactly
//      when their leading bits are within one of each other (aligned widths <= 125 + 2 < 128
//      bits, summed as sign and magnitude) and otherwise cuts the smaller at >= 16 bits below the
//      result's last bit with a sticky bit (one rounding of the exact sum either way).
//
// IEEE specials: a row of A or column of B holding NaN or an infinity makes every entry it meets
// non-finite; those entries take the IEEE result of the exact computation (special_entry); the
// others are unaffected. alpha == 0: A and B are not read (BLAS); beta == 0: C is not read.
// A zero exact entry is +0 (the sign of an exact zero sum is not judged).
//
// Doubles (dgemm-ozaki; Uchino, Ozaki, Imamura, "High-Performance and Power-Efficient Emulation of
// Matrix Multiplication using INT8 Matrix Engines", SC'25, emulate DGEMM the same way). Lines of
// doubles span up to 53 bits when their entries share a binade and more otherwise, so a side may
// need more than 62 bits and P more than 2^128. The moduli continue the list above with primes
// (kMaxModuliDouble = 26: P_26 ~ 2^198.97 < 2^kMaxProductBitsDouble = 2^199); the integers above
// 64 bits are UWide<4> (256 bits, core/numerics/uwide.hpp). Why 256 bits are enough:
//  (1) Scaling: A'_ik = RN(a_ik 2^shift) with |A'| <= 2^bits_a < 2^199 is a double (no overflow);
//      when |A'| > 2^62 it is m 2^s with a 53-bit m and s > 9, and its residue is
//      (m mod p)(2^s mod p) mod p (scaled_residue): no integer wider than 64 bits is formed.
//  (2) CRT sum: s < 26 * 2^8 * 2^199 < 2^213. floor(s/P): to_double of a UWide keeps its top 64
//      bits (truncation, relative error < 2^-63) and rounds them once (2^-53): s, P within 2^-52,
//      the quotient within 2^-50 of s/P < 2^13: off by at most 1, as in (b).
//  (3) alpha/beta step: |C'| <= P/2 < 2^198 and |alpha| = m 2^e, |m| < 2^53: |alpha C'| < 2^251;
//      beta c < 2^106. round_sum's exact sum of two magnitudes aligned within one bit of each
//      other needs <= 251 + 2 bits, and the guard cut (kGuard = 16 bits below the result's last
//      bit, as for float) keeps the larger whole: every magnitude stays below 2^254 (sign apart).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"
#include "core/numerics/float_bits.hpp"
#include "core/numerics/uwide.hpp"

namespace accsum::ozaki {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
using U256 = UWide<4>;

// What the scheme needs of an input format: its bits, significand and exponent range, the width
// of its exact integers (U) and the moduli that width allows.
template <class F>
struct Format;
template <>
struct Format<float> {
  using Bits = uint32_t;
  using U = u128;
  static constexpr int kSignificand = 24;  // bits, the implicit one included
  static constexpr int kBias = 127;
  static constexpr int kLowest = -149;   // exponent of the smallest subnormal
  static constexpr int kOverflow = 128;  // 2^kOverflow is beyond the largest finite value
  static constexpr Bits kInf = 0x7f800000u;
  static constexpr int kMaxModuli = 13, kMaxProductBits = 102, kMaxSideBits = 62;
};
template <>
struct Format<double> {
  using Bits = uint64_t;
  using U = U256;
  static constexpr int kSignificand = 53;
  static constexpr int kBias = 1023;
  static constexpr int kLowest = -1074;
  static constexpr int kOverflow = 1024;
  static constexpr Bits kInf = 0x7ff0000000000000ull;
  // (1) of "Doubles": a side's integers are doubles below 2^199; the budget never exceeds P's bits.
  static constexpr int kMaxModuli = 26, kMaxProductBits = 199, kMaxSideBits = 199;
};
template <class B>
struct FloatOfBits {
  using type = float;
};
template <>
struct FloatOfBits<uint64_t> {
  using type = double;
};
template <class B>
using FormatOfBits = Format<typename FloatOfBits<B>::type>;

constexpr int kMinModuli = 2, kMaxModuli = Format<float>::kMaxModuli;
constexpr int kMaxProductBits = Format<float>::kMaxProductBits;  // P < 2^kMaxProductBits (the header comment: why)
constexpr int kMaxSideBits = Format<float>::kMaxSideBits;        // |A'|, |B'| <= 2^62 are int64 (and doubles)
constexpr int kMaxModuliDouble = Format<double>::kMaxModuli;
constexpr int kMaxProductBitsDouble = Format<double>::kMaxProductBits;
constexpr int64_t kBlockK = int64_t{1} << 16;       // kBlockK * 128^2 = 2^30 < 2^31: int32 exact
constexpr uint32_t kInfBits = Format<float>::kInf;  // |x| bits >= this: infinity or NaN
constexpr int kNoLow = 1 << 30;                     // the lowest-bit exponent of a line with no nonzero entry

// The moduli, pairwise coprime: 2^8, 3*5*17, 11*23, 251, 13*19, 241, 239, 233 (P_8 ~ 2^63.6),
// 229, 227, 223, 7*31 (P_12 ~ 2^94.8), 139 (P_13 ~ 2^101.9: the largest modulus coprime to the
// others that keeps P < 2^102), then for doubles the primes 211, 199, ..., 149 (P_26 ~ 2^198.97:
// the next prime, 137, would pass 2^199).
ACCSUM_HD constexpr int modulus(int l) {  // a switch: constants in registers on a GPU, no table in memory
  switch (l) {
    case 0:
      return 256;
    case 1:
      return 255;
    case 2:
      return 253;
    case 3:
      return 251;
    case 4:
      return 247;
    case 5:
      return 241;
    case 6:
      return 239;
    case 7:
      return 233;
    case 8:
      return 229;
    case 9:
      return 227;
    case 10:
      return 223;
    case 11:
      return 217;
    case 12:
      return 139;
    case 13:
      return 211;
    case 14:
      return 199;
    case 15:
      return 197;
    case 16:
      return 193;
    case 17:
      return 191;
    case 18:
      return 181;
    case 19:
      return 179;
    case 20:
      return 173;
    case 21:
      return 167;
    case 22:
      return 163;
    case 23:
      return 157;
    case 24:
      return 151;
    default:
      return 149;
  }
}

// P of the first L moduli.
template <class U>
ACCSUM_HD constexpr U moduli_product_of(int moduli) {
  U p = static_cast<U>(1);
  for (int l = 0; l < moduli; ++l) p = p * static_cast<uint64_t>(modulus(l));
  return p;
}
ACCSUM_HD constexpr u128 moduli_product(int moduli) { return moduli_product_of<u128>(moduli); }
static_assert(moduli_product(kMaxModuli) < (static_cast<u128>(1) << kMaxProductBits),
              "every P must stay below 2^kMaxProductBits (the header comment: why)");
static_assert(moduli_product(kMaxModuli) * 2 >= (static_cast<u128>(1) << kMaxProductBits),
              "kMaxModuli is the most that fit: any further modulus (>= 2) would reach 2^kMaxProductBits");
static_assert(moduli_product_of<U256>(kMaxModuliDouble) < (U256(1) << kMaxProductBitsDouble),
              "every double P must stay below 2^kMaxProductBitsDouble (the header comment: why)");
static_assert(moduli_product_of<U256>(kMaxModuliDouble) * U256(137) >= (U256(1) << kMaxProductBitsDouble),
              "the next prime would reach 2^kMaxProductBitsDouble");

ACCSUM_HD int clz64(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(v));
#else
  return __builtin_clzll(v);
#endif
}
ACCSUM_HD int bit_length(u128 u) {
  const uint64_t hi = static_cast<uint64_t>(u >> 64), lo = static_cast<uint64_t>(u);
  if (hi) return 128 - clz64(hi);
  return lo ? 64 - clz64(lo) : 0;
}
template <int W>
ACCSUM_HD int bit_length(const UWide<W>& u) {
  for (int i = W - 1; i >= 0; --i)
    if (u.limb[i]) return 64 * i + 64 - clz64(u.limb[i]);
  return 0;
}

// x's bits and back: bits_of, of_bits (core/numerics/float_bits.hpp), Format<F>::Bits wide.
static_assert(std::is_same_v<FloatBitsOf<float>, Format<float>::Bits> &&
                  std::is_same_v<FloatBitsOf<double>, Format<double>::Bits>,
              "one bit width per format");

// |x|'s bits.
template <class F>
ACCSUM_HD typename Format<F>::Bits abs_bits(F x) {
  using Bits = typename Format<F>::Bits;
  return bits_of(x) & (~Bits{0} >> 1);
}

// For |x| given by its bits (finite, nonzero): the smallest e with |x| < 2^e.
template <class B>
ACCSUM_HD int top_exponent(B bits) {
  using T = FormatOfBits<B>;
  const int biased = static_cast<int>(bits >> (T::kSignificand - 1));
  if (biased == 0) return T::kLowest + bit_length(static_cast<u128>(bits));
  return biased - (T::kBias - 1);
}
// The exponent of the lowest set bit of |x| (finite, nonzero); kNoLow for zero.
template <class B>
ACCSUM_HD int low_exponent(B bits) {
  using T = FormatOfBits<B>;
  constexpr int kFrac = T::kSignificand - 1;
  if (bits == 0) return kNoLow;
  const int biased = static_cast<int>(bits >> kFrac);
  const uint64_t sig = biased == 0 ? bits : (bits & ((B{1} << kFrac) - 1)) | (B{1} << kFrac);
#if defined(__CUDA_ARCH__)
  const int tz = __ffsll(static_cast<long long>(sig)) - 1;
#else
  const int tz = __builtin_ctzll(sig);
#endif
  return (biased == 0 ? T::kLowest : biased - T::kBias - kFrac) + tz;
}

// A line (row of A, column of B) is summarized by the largest |entry| bits and the lowest
// set-bit exponent over its finite entries.
template <class B>
ACCSUM_HD bool special_line(B max_bits) {
  return max_bits >= FormatOfBits<B>::kInf;
}
template <class B>
ACCSUM_HD int line_top(B max_bits) {
  return max_bits == 0 || special_line(max_bits) ? 0 : top_exponent(max_bits);
}
// Bits the line needs for exact scaling (0 for zero or special lines).
template <class B>
ACCSUM_HD int line_span(B max_bits, int low) {
  return max_bits == 0 || special_line(max_bits) ? 0 : top_exponent(max_bits) - low;
}

// The scaled integer RN(x 2^shift) (exact in double: |result| <= 2^62).
template <class F>
ACCSUM_HD int64_t scaled_integer(F x, int shift) {
  const double v = ldexp(static_cast<double>(x), shift);
#if defined(__CUDA_ARCH__)
  return static_cast<int64_t>(rint(v));
#else
  return static_cast<int64_t>(std::rint(v));
#endif
}

// The residue of v modulo p in [0, p) (32-bit arithmetic when v fits: the common case, and
// several times cheaper on a GPU than a 64-bit remainder).
ACCSUM_HD int residue_positive(int64_t v, int p) {
  const int r = v == static_cast<int32_t>(v) ? static_cast<int32_t>(v) % p : static_cast<int>(v % p);
  return r < 0 ? r + p : r;
}
// The same for an int32 (an int8 product plane's entry): 32-bit arithmetic only.
ACCSUM_HD int residue_positive(int32_t v, int p) {
  const int r = v % p;
  return r < 0 ? r + p : r;
}
// The symmetric representative of a residue r in [0, p), an int8 (see the header comment).
ACCSUM_HD int to_symmetric(int r, int p) { return r > (p - 1) / 2 ? r - p : r; }
// The symmetric residue of v modulo p.
ACCSUM_HD int residue_symmetric(int64_t v, int p) { return to_symmetric(residue_positive(v, p), p); }

// 2^s mod p (s >= 0), by squaring.
ACCSUM_HD int pow2_mod(int s, int p) {
  int r = 1 % p, b = 2 % p;
  for (; s > 0; s >>= 1) {
    if (s & 1) r = r * b % p;
    b = b * b % p;
  }
  return r;
}

// The symmetric residue of the scaled integer RN(x 2^shift) modulo p, for |RN(x 2^shift)| <=
// 2^kMaxSideBits of the format: residue_symmetric(scaled_integer(x, shift), p) up to 2^62; above,
// the integer is m 2^s (53-bit m, s > 9) and its residue (m mod p)(2^s mod p) ((1) of "Doubles").
template <class F>
ACCSUM_HD int scaled_residue(F x, int shift, int p) {
  const double v = ldexp(static_cast<double>(x), shift);
  if (fabs(v) <= 0x1p62) return residue_symmetric(scaled_integer(x, shift), p);
  int e = 0;
  const double f = frexp(v, &e);
  const int64_t m = static_cast<int64_t>(ldexp(f, 53));
  return to_symmetric(residue_positive(m, p) * pow2_mod(e - 53, p) % p, p);
}

// Small divisions of the exact integers (host: the CRT weights).
inline u128 divide_small(u128 a, uint32_t d, uint32_t* rem) {
  *rem = static_cast<uint32_t>(a % d);
  return a / d;
}

// The Chinese remainder reconstruction for the first `moduli` moduli.
template <class F>
struct CrtOf {
  using U = typename Format<F>::U;
  int moduli = 0;
  U product = 0;                    // P < 2^kMaxProductBits
  double product_double = 0;        // P rounded
  U weight[Format<F>::kMaxModuli];  // W_l = (P/p_l) * ((P/p_l)^-1 mod p_l) mod P
};
using Crt = CrtOf<float>;

// Exact u128 -> double conversion up to one rounding per half (relative error <= 2^-52).
ACCSUM_HD double to_double(u128 v) {
  return static_cast<double>(static_cast<uint64_t>(v >> 64)) * 0x1p64 + static_cast<double>(static_cast<uint64_t>(v));
}
// A UWide's top 64 bits (truncated), rounded once: relative error < 2^-52 ((2) of "Doubles").
template <int W>
ACCSUM_HD double to_double(const UWide<W>& v) {
  const int n = bit_length(v);
  if (n <= 64) return static_cast<double>(v.limb[0]);
  return ldexp(static_cast<double>(static_cast<uint64_t>(v >> (n - 64))), n - 64);
}

// The representative of s in [-P/2, P/2) as sign and magnitude, given q = floor(s/P) +- 1: s - qP
// lies in [-P, 2P), so one addition or subtraction of P brings it to [0, P).
template <class U>
ACCSUM_HD U symmetric_magnitude(const U& s, uint64_t q, const U& P, bool* negative) {
  const U qp = P * q;
  U x = qp > s ? P - (qp - s) : s - qp;
  if (x >= P) x = x - P;
  *negative = x >= (P >> 1);  // P is even (256 is a modulus): P/2 exactly
  return *negative ? P - x : x;
}

// The integer X in [-P/2, P/2) with X = r_l (mod p_l) for every l (r_l in [0, p_l)), as its sign
// and magnitude (0 is not negative); exact by (a) and (b) of the header comment ((2) for doubles).
template <class F>
ACCSUM_HD typename Format<F>::U crt_magnitude(const int* r, const CrtOf<F>& c, bool* negative) {
  using U = typename Format<F>::U;
  U s = 0;
  for (int l = 0; l < c.moduli; ++l) s = s + c.weight[l] * static_cast<uint64_t>(static_cast<uint32_t>(r[l]));
  const uint64_t q = static_cast<uint64_t>(to_double(s) / c.product_double);  // floor(s/P) +- 1
  return symmetric_magnitude(s, q, c.product, negative);
}
ACCSUM_HD i128 crt_symmetric(const int* r, const Crt& c) {
  bool negative = false;
  const u128 m = crt_magnitude(r, c, &negative);
  return negative ? -static_cast<i128>(m) : static_cast<i128>(m);
}

// (-1)^neg * mag * 2^exp, exactly.
template <class U>
struct WideOf {
  bool neg = false;
  U mag = 0;
  int exp = 0;
};
using Wide = WideOf<u128>;

ACCSUM_HD float ldexp_of(float x, int e) { return ldexpf(x, e); }
ACCSUM_HD double ldexp_of(double x, int e) { return ldexp(x, e); }
ACCSUM_HD float frexp_of(float x, int* e) { return frexpf(x, e); }
ACCSUM_HD double frexp_of(double x, int* e) { return frexp(x, e); }

// RN_F(w), with overflow to infinity and gradual underflow.
template <class F, class U>
ACCSUM_HD F round_to(const WideOf<U>& w) {
  using T = Format<F>;
  if (w.mag == static_cast<U>(0)) return w.neg ? -F(0) : F(0);
  const int n = bit_length(w.mag);
  const int lead = w.exp + n - 1;
  if (lead >= T::kOverflow) return w.neg ? -F(INFINITY) : F(INFINITY);
  const int q = lead - (T::kSignificand - 1) < T::kLowest ? T::kLowest : lead - (T::kSignificand - 1);  // last bit
  U keep = 0;
  if (q <= w.exp) {
    keep = w.mag << (w.exp - q);
  } else {
    const int s = q - w.exp;
    if (s > n) {
      keep = 0;
    } else if (s == n) {
      keep = w.mag > (static_cast<U>(1) << (n - 1)) ? 1 : 0;
    } else {
      keep = w.mag >> s;
      const U rem = w.mag - (keep << s), half = static_cast<U>(1) << (s - 1);
      if (rem > half || (rem == half && (static_cast<uint64_t>(keep) & 1))) keep = keep + static_cast<U>(1);
    }
  }
  const F r = ldexp_of(static_cast<F>(static_cast<uint64_t>(keep)), q);  // keep <= 2^kSignificand: exact
  return w.neg ? -r : r;
}
ACCSUM_HD float round_to_float(const Wide& w) { return round_to<float>(w); }

// An unsigned 64-bit integer rounded to F (RN), on host and device.
template <class F>
ACCSUM_HD F u64_to_rn(uint64_t v) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(F) == 4)
    return __ull2float_rn(v);
  else
    return __ull2double_rn(v);
#else
  return static_cast<F>(v);  // the default rounding mode: to nearest, ties to even
#endif
}

// round_to<F>(w) through the hardware's conversion wherever the result is a normal F: the
// magnitude's top 64 bits, with every bit below them OR-ed into the last (a sticky bit 40 (float) or
// 11 (double) places below F's rounding bit, so it only breaks ties, as the bits it stands for
// would), are rounded by one conversion, and 2^(lead - 63) is added to the exponent field (exact; a
// rounding up in the largest binade lands on infinity's bits, as RN overflows). Subnormal and
// overflowing results take round_to. The same bits as round_to for every input (tests/families/test_ozaki.cpp);
// the cuda combine uses it, where round_to's variable-width shifts and ldexp cost hundreds of instructions.
template <class F, class U>
ACCSUM_HD F round_to_fast(const WideOf<U>& w) {
  using T = Format<F>;
  using Bits = typename T::Bits;
  constexpr int kTop = 64, kWidth = static_cast<int>(8 * sizeof(U)), kField = T::kSignificand - 1;
  constexpr int kMinNormalLead = 1 - T::kBias;
  if (w.mag == static_cast<U>(0)) return w.neg ? -F(0) : F(0);
  const int n = bit_length(w.mag);
  const int lead = w.exp + n - 1;
  if (lead < kMinNormalLead || lead >= T::kOverflow) return round_to<F>(w);
  uint64_t top;
  if (n <= kTop) {
    top = static_cast<uint64_t>(w.mag) << (kTop - n);
  } else {
    const int s = n - kTop;  // 1 .. kWidth - 64
    top = static_cast<uint64_t>(w.mag >> s) | ((w.mag << (kWidth - s)) != static_cast<U>(0) ? 1u : 0u);
  }
  using SignedBits = typename std::make_signed<Bits>::type;
  const SignedBits field = static_cast<SignedBits>(bits_of(u64_to_rn<F>(top))) +
                           static_cast<SignedBits>(lead - (kTop - 1)) * (SignedBits{1} << kField);
  const Bits sign = w.neg ? Bits{1} << (8 * sizeof(Bits) - 1) : Bits{0};
  return of_bits<F>(static_cast<Bits>(field) | sign);
}

// RN_F(x + y) for magnitudes within the widths of (c) (float) or (3) (double): one rounding of
// the exact sum. Leading bits within kNear = 1 of each other (the only case where the sum can
// cancel below the larger's leading bit minus one): the exact sum at the lower exponent. Farther
// apart: |x + y| > 2^(lead - 1), so the result's last bit is >= lead - kSignificand; the smaller is
// cut at G <= lead - kGuard (16 bits below the result's last bit) and what is cut becomes a sticky
// half unit at G - 1, which rounds exactly as the cut part would (no midpoint of F lies strictly
// inside a unit); the larger is not cut. Sums are formed as sign and magnitude.
template <class F, class U>
ACCSUM_HD F round_sum_to(WideOf<U> x, WideOf<U> y) {
  constexpr int kNear = 1, kGuard = Format<F>::kSignificand + 16;
  if (y.mag == static_cast<U>(0)) return round_to<F>(x);
  if (x.mag == static_cast<U>(0)) return round_to<F>(y);
  int lx = x.exp + bit_length(x.mag) - 1, ly = y.exp + bit_length(y.mag) - 1;
  if (lx < ly) {
    const WideOf<U> t = x;
    x = y;
    y = t;
    const int tl = lx;
    lx = ly;
    ly = tl;
  }
  const int g = lx - ly <= kNear ? (x.exp < y.exp ? x.exp : y.exp) : (x.exp < lx - kGuard ? x.exp : lx - kGuard);
  const U xm = x.mag << (x.exp - g);
  U ym = 0;
  bool sticky = false;
  constexpr int kWidth = static_cast<int>(8 * sizeof(U));
  if (y.exp >= g) {
    ym = y.mag << (y.exp - g);
  } else {
    const int sh = g - y.exp;
    ym = sh >= kWidth ? static_cast<U>(0) : y.mag >> sh;
    sticky = sh >= kWidth || (ym << sh) != y.mag;
  }
  WideOf<U> r;
  if (x.neg == y.neg) {
    r.neg = x.neg;
    r.mag = xm + ym;
  } else {
    r.neg = xm >= ym ? x.neg : y.neg;
    r.mag = xm >= ym ? xm - ym : ym - xm;
  }
  if (r.mag == static_cast<U>(0)) r.neg = false;
  r.exp = g;
  if (sticky) {  // 2 (x + cut y) + (sign of y): the sticky half unit at G - 1
    r.mag = r.mag << 1;
    if (r.mag == static_cast<U>(0)) {
      r.neg = y.neg;
      r.mag = 1;
    } else {
      r.mag = r.neg == y.neg ? r.mag + static_cast<U>(1) : r.mag - static_cast<U>(1);
    }
    r.exp = g - 1;
  }
  return round_to<F>(r);
}
ACCSUM_HD float round_sum(Wide x, Wide y) { return round_sum_to<float>(x, y); }

// v = m 2^e exactly, |m| < 2^kSignificand (v finite).
template <class F>
ACCSUM_HD void split_scalar(F v, int64_t* m, int* e) {
  int ex = 0;
  const F f = frexp_of(v, &ex);
  *m = static_cast<int64_t>(ldexp_of(f, Format<F>::kSignificand));
  *e = ex - Format<F>::kSignificand;
}

template <class F>
ACCSUM_HD bool finite_scalar(F x) {
  return abs_bits(x) < Format<F>::kInf;
}
ACCSUM_HD bool finite_float(float x) { return finite_scalar(x); }

// alpha C' 2^scale exactly, alpha = ma 2^ea (split_scalar), C' as sign and magnitude.
template <class U>
ACCSUM_HD WideOf<U> alpha_times(bool cneg, const U& cmag, int scale, int64_t ma, int ea) {
  WideOf<U> x;
  x.neg = cneg != (ma < 0);
  x.mag = cmag * static_cast<uint64_t>(ma < 0 ? -ma : ma);  // exact: (c), (3)
  x.exp = scale + ea;
  return x;
}

// alpha_times when alpha = +-2^k (split_scalar's m is +-2^(kSignificand - 1)): the same value with C''s
// magnitude untouched and the power in the exponent, so a magnitude of C''s own width (64 bits from
// crt_small for floats, 128 for doubles) is rounded directly instead of widened first.
template <class F>
ACCSUM_HD bool power_of_two_scalar(int64_t m) {
  return (m < 0 ? -m : m) == int64_t{1} << (Format<F>::kSignificand - 1);
}
template <class F, class U>
ACCSUM_HD WideOf<U> power_of_two_times(bool cneg, const U& cmag, int scale, int64_t ma, int ea) {
  WideOf<U> x;
  x.neg = cneg != (ma < 0);
  x.mag = cmag;
  x.exp = scale + ea + Format<F>::kSignificand - 1;
  return x;
}

// One entry: alpha * C' 2^scale + beta * c, rounded once (C' exact, as sign and magnitude; see
// the header comment).
template <class F>
ACCSUM_HD F finish_entry_of(bool cneg, const typename Format<F>::U& cmag, int scale, F alpha, F beta, const F* c_in) {
  using U = typename Format<F>::U;
  if (alpha == F(0)) return beta == F(0) ? F(0) : beta * *c_in;
  int64_t ma;
  int ea;
  split_scalar(alpha, &ma, &ea);
  const WideOf<U> x = alpha_times(cneg, cmag, scale, ma, ea);
  if (beta == F(0)) return round_to<F>(x);
  const F c = *c_in;
  if (!finite_scalar(c)) return round_to<F>(x) + beta * c;  // IEEE: the infinity or NaN of beta*c
  int64_t mb, mc;
  int eb, ec;
  split_scalar(beta, &mb, &eb);
  split_scalar(c, &mc, &ec);
  WideOf<U> y;
  y.neg = (mb < 0) != (mc < 0);
  y.mag = static_cast<U>(static_cast<uint64_t>(mb < 0 ? -mb : mb)) * static_cast<uint64_t>(mc < 0 ? -mc : mc);
  y.exp = eb + ec;
  return round_sum_to<F>(x, y);
}
ACCSUM_HD float finish_entry(i128 cprime, int scale, float alpha, float beta, const float* c_in) {
  return finish_entry_of<float>(cprime < 0, static_cast<u128>(cprime < 0 ? -cprime : cprime), scale, alpha, beta, c_in);
}

// The IEEE result of alpha * sum_k a_k b_k + beta * c for an entry whose row or column holds NaN
// or an infinity (alpha != 0): NaN when a factor is NaN, inf * 0 occurs or infinities of both
// signs meet; else the infinity; then plus beta * c.
template <class F>
ACCSUM_HD F special_entry(const F* a_row, int64_t lda, const F* b_col, int64_t K, F alpha, F beta, const F* c_in) {
  bool nan = false, pos = false, neg = false;
  for (int64_t k = 0; k < K; ++k) {
    const F a = a_row[k * lda], b = b_col[k];
    if (a != a || b != b) {
      nan = true;
    } else if (!finite_scalar(a) || !finite_scalar(b)) {
      if (a == F(0) || b == F(0))
        nan = true;
      else if (((a < 0) != (b < 0)) != (alpha < 0))
        neg = true;
      else
        pos = true;
    }
  }
  F r = nan || (pos && neg) ? F(NAN) : pos ? F(INFINITY) : -F(INFINITY);
  if (beta != F(0)) r = r + beta * *c_in;
  return r;
}

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

// ---- the plan (host) ----

struct Plan {
  int moduli = 0;              // L: int8 products per block of kBlockK inner indices
  int bits_a = 0, bits_b = 0;  // |A'| <= 2^bits_a, |B'| <= 2^bits_b
  int need_a = 0, need_b = 0;  // the largest row / column bit span (exact scaling needs bits >= need)
  int64_t rows_uncovered = 0, cols_uncovered = 0;  // lines whose span exceeds the bits given
  ProductBound bound;                              // every |C'_ij| <= bound < P/2
  bool exact() const { return rows_uncovered == 0 && cols_uncovered == 0; }
};

// The largest b with K 2^b < P/2 (-1 when none).
template <class F = float>
int bit_budget(int moduli, int64_t K) {
  using U = typename Format<F>::U;
  const U half = moduli_product_of<U>(moduli) >> 1;
  constexpr int kWidth = static_cast<int>(8 * sizeof(U));
  int b = -1;
  while (b < kWidth - 2 && (static_cast<U>(static_cast<uint64_t>(K)) << (b + 1)) < half) ++b;
  return b;
}

inline int modular_inverse(int a, int p) {
  int t = 0, nt = 1, r = p, nr = a % p;
  while (nr) {
    const int q = r / nr, tt = t - q * nt, tr = r - q * nr;
    t = nt;
    nt = tt;
    r = nr;
    nr = tr;
  }
  return t < 0 ? t + p : t;
}

template <class F = float>
CrtOf<F> make_crt(int moduli) {
  using U = typename Format<F>::U;
  CrtOf<F> c;
  c.moduli = moduli;
  c.product = moduli_product_of<U>(moduli);
  c.product_double = to_double(c.product);
  for (int l = 0; l < moduli; ++l) {
    const int p = modulus(l);
    uint32_t m_mod_p = 0, unused = 0;
    const U m = divide_small(c.product, static_cast<uint32_t>(p), &unused);
    divide_small(m, static_cast<uint32_t>(p), &m_mod_p);
    const int inv = modular_inverse(static_cast<int>(m_mod_p), p);
    c.weight[l] = m * static_cast<uint64_t>(inv);  // inv < p: m * inv < P, already reduced
  }
  for (int l = moduli; l < Format<F>::kMaxModuli; ++l) c.weight[l] = 0;
  return c;
}

// p.moduli = moduli and the split of its bit budget into bits_a + bits_b, given p.need_a, p.need_b:
// both sides exact when the budget holds them, else the side that fits in half keeps its need.
template <class F = float>
void split_bits(Plan& p, int moduli, int64_t K) {
  p.moduli = moduli;
  const int b = std::max(0, bit_budget<F>(moduli, std::max<int64_t>(K, 1)));
  if (p.need_a + p.need_b <= b) {
    p.bits_a = p.need_a;
    p.bits_b = b - p.need_a;
  } else if (p.need_a <= b / 2) {
    p.bits_a = p.need_a;
    p.bits_b = b - p.bits_a;
  } else if (p.need_b <= b / 2) {
    p.bits_b = p.need_b;
    p.bits_a = b - p.bits_b;
  } else {
    p.bits_a = b / 2;
    p.bits_b = b - p.bits_a;
  }
  p.bits_a = std::min(p.bits_a, Format<F>::kMaxSideBits);  // float: the scaled integers stay int64 (scaled_integer)
  p.bits_b = std::min(p.bits_b, Format<F>::kMaxSideBits);
  p.bound = ProductBound{static_cast<uint64_t>(std::max<int64_t>(K, 1)), p.bits_a + p.bits_b};
}

// Whether a bound stays below P/2 for L moduli (the CRT's condition, step 4).
template <class F = float>
bool below_half_product(const ProductBound& b, int moduli) {
  using U = typename Format<F>::U;
  return b.bits() < static_cast<int>(8 * sizeof(U)) && b.as<U>() < (moduli_product_of<U>(moduli) >> 1);
}

// The lines whose span exceeds a plan's bits (p.rows_uncovered, p.cols_uncovered), counted anew.
template <class F = float>
void count_uncovered(Plan& p, const typename Format<F>::Bits* row_max, const int* row_low, int64_t M,
                     const typename Format<F>::Bits* col_max, const int* col_low, int64_t N) {
  p.rows_uncovered = p.cols_uncovered = 0;
  for (int64_t i = 0; i < M; ++i) p.rows_uncovered += line_span(row_max[i], row_low[i]) > p.bits_a;
  for (int64_t j = 0; j < N; ++j) p.cols_uncovered += line_span(col_max[j], col_low[j]) > p.bits_b;
}

// The plan for inner dimension K and the line summaries of A's rows and B's columns; moduli = 0
// chooses L (see the header comment), else L = moduli.
template <class F = float>
Plan make_plan(int64_t K, const typename Format<F>::Bits* row_max, const int* row_low, int64_t M,
               const typename Format<F>::Bits* col_max, const int* col_low, int64_t N, int moduli) {
  Plan p;
  for (int64_t i = 0; i < M; ++i) p.need_a = std::max(p.need_a, line_span(row_max[i], row_low[i]));
  for (int64_t j = 0; j < N; ++j) p.need_b = std::max(p.need_b, line_span(col_max[j], col_low[j]));
  if (moduli == 0) {
    moduli = Format<F>::kMaxModuli;
    for (int L = kMinModuli; L <= Format<F>::kMaxModuli; ++L)
      if (bit_budget<F>(L, std::max<int64_t>(K, 1)) >= p.need_a + p.need_b) {
        moduli = L;
        break;
      }
  }
  split_bits<F>(p, moduli, K);
  count_uncovered<F>(p, row_max, row_low, M, col_max, col_low, N);
  return p;
}

// The int8 products a plan computes for inner dimension K.
inline int64_t int8_products(const Plan& p, int64_t K) {
  return p.moduli * std::max<int64_t>(1, (K + kBlockK - 1) / kBlockK);
}

}  // namespace accsum::ozaki
