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
#include "core/numerics/numerics.h"
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

ACCSUM_HD int bit_length(u128 u) {
  const uint64_t hi = static_cast<uint64_t>(u >> 64), lo = static_cast<uint64_t>(u);
  if (hi) return 128 - accsum_clz64(hi);
  return lo ? 64 - accsum_clz64(lo) : 0;
}
template <int W>
ACCSUM_HD int bit_length(const UWide<W>& u) {
  for (int i = W - 1; i >= 0; --i)
    if (u.limb[i]) return 64 * i + 64 - accsum_clz64(u.limb[i]);
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

}  // namespace accsum::ozaki

// The rest of the scheme, in parts under 600 lines each.
#include "families/gemm/ozaki_round.hpp"
#include "families/gemm/ozaki_fast.hpp"
#include "families/gemm/ozaki_plan.hpp"
