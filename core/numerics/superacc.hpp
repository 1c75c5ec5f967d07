#pragma once
// Superaccumulator: an exact fixed-point accumulator for binary64 sums and dot products
// (Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel reduction
// on multi- and many-core architectures", Parallel Computing 49, 2015, Sec. 3.2-3.3, levels 2-5;
// after Kulisch's long accumulator, with a high-radix carry-save digit layout in the spirit of
// Neal's xsum "small superaccumulator", arXiv:1505.05571). The named constants and the integer
// numerics (cut, carry propagation, rounding) are defined once in core/numerics/numerics.h, shared with
// CUDA device code and the OpenCL C programs.
//
// Representation (read this before writing device code on top of it)
// -------------------------------------------------------------------
// BasicSuperacc<D, L> holds D signed 64-bit digits; digit i has weight 2^(32*i + L):
//
//     value = sum_{i=0}^{D-1} digit[i] * 2^(32*i + L)
//
// so w = 32 value bits per digit and 31 carry-save bits of headroom (M = 32 in the paper's
// words). A finite double x = m * 2^e (m < 2^53 an integer) is added exactly by cutting
// m << s into three 32-bit pieces (superacc_split): with pos = e - L the bit position of m's
// lowest bit, idx = pos / 32 and s = pos % 32,
//
//     |x| = d0 * 2^(32*idx + L) + d1 * 2^(32*(idx+1) + L) + d2 * 2^(32*(idx+2) + L),
//     0 <= d0, d1 < 2^32, 0 <= d2 < 2^21,
//
// and the three pieces are added (negated for x < 0) to digits idx, idx+1, idx+2. Every
// piece is < 2^32 in magnitude, so a digit absorbs 2^31 - 1 pieces before it can overflow
// int64: no carry propagation is needed for up to kSuperaccMaxPending additions (a device
// block can atomically add that many pieces into shared digits with no carry handling at all).
// normalize() propagates carries: afterwards digit[i] is in [0, 2^32) for i < D-1 and the top
// digit carries the sign (two's complement over the whole digit vector).
//
//   Superacc    = BasicSuperacc<68, -1074>: sums. Bits 2^-1074 (smallest subnormal) up to
//                 2^1102, i.e. DBL_MAX * 2^64: the exact sum of 2^64 doubles fits.
//   SuperaccDot = BasicSuperacc<134, -2148>: dot products. The exact product of two doubles
//                 lies in [2^-2148, 2^2048); bits up to 2^2140 leave room for 2^64 products.
//                 add_product(a, b) adds a*b exactly (a 53x53-bit integer product, no FMA).
//
// Special values are kept beside the digits as counters that merge by addition: NaN seen,
// +inf seen, -inf seen, a -0 term seen, a term other than -0 seen. round() gives what MPFR's
// mpfr_sum gives (IEEE 754 rules): NaN if any NaN or both infinities; +-inf if one infinity;
// otherwise the exact sum rounded to nearest, ties to even, +-inf when it rounds beyond
// DBL_MAX; an exact zero is -0 only when every term was -0 (no terms: +0).
//
// Everything here is ACCSUM_HD: no std::, no exceptions, no host-only calls in the numerics.
#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"
#include "core/numerics/ieee_special.h"
#include "core/numerics/numerics.h"

namespace accsum {

// The digit layout, named once (core/numerics/numerics.h derives each from a few named ones).
constexpr int kSuperaccDigitLog2 = ACCSUM_DIGIT_LOG2;
constexpr int kSuperaccDigitBits = ACCSUM_DIGIT_BITS;  // w: value bits per digit
constexpr uint64_t kDigitMask = ACCSUM_DIGIT_MASK;     // the low w bits
constexpr int kSuperaccHeadroomBits = ACCSUM_HEADROOM_BITS;
// Pieces a digit may absorb after a normalize() (or from zero) before it needs another one.
constexpr int64_t kSuperaccMaxPending = (int64_t(1) << kSuperaccHeadroomBits) - 1;
constexpr int kSumDigits = ACCSUM_SUM_DIGITS, kSumLsb = ACCSUM_SUM_LSB;
constexpr int kDotDigits = ACCSUM_DOT_DIGITS, kDotLsb = ACCSUM_DOT_LSB;
static_assert(kSuperaccDigitBits == 32 && kSumDigits == 68 && kDotDigits == 134,
              "the record layout is shared with MPI and the GPU backends");

// ---- bit access usable in host and device code ----
ACCSUM_HD uint64_t double_bits(double x) { return accsum_bits(x); }
ACCSUM_HD double bits_double(uint64_t u) { return accsum_double(u); }
ACCSUM_HD int count_leading_zeros64(uint64_t u) { return accsum_clz64(u); }  // u != 0
// a * b = hi * 2^64 + lo, exactly.
ACCSUM_HD void mul_64x64(uint64_t a, uint64_t b, uint64_t& hi, uint64_t& lo) {
  hi = accsum_mul_hi64(a, b);
  lo = a * b;
}

constexpr uint64_t kMantissaMask = ACCSUM_MANT_MASK;

// A finite double as |x| = m * 2^(pos0 - 1074) with m < 2^53: pos0 is the bit position of m's
// lowest bit counted from 2^-1074 (0 for subnormals, biased exponent - 1 for normals).
ACCSUM_HD void decompose(uint64_t bits, uint64_t& m, int& pos0) { accsum_decompose(bits, &m, &pos0); }

// Cuts m * 2^pos (m < 2^53, pos >= 0 in units of the digit-0 weight) into three digit pieces
// for digits idx, idx+1, idx+2 (unsigned here; the caller applies the sign).
ACCSUM_HD void split_mantissa(uint64_t m, int pos, int& idx, uint64_t& d0, uint64_t& d1, uint64_t& d2) {
  accsum_split_mantissa(m, pos, &idx, &d0, &d1, &d2);
}

// The three signed pieces of a finite x for a superaccumulator whose digit 0 has weight 2^L
// (L <= -1074): add d0, d1, d2 to digits idx, idx+1, idx+2. x == 0 gives three zeros. This is
// what device code atomically adds into shared-memory digits.
template <int L = kSumLsb>
ACCSUM_HD void superacc_split(double x, int& idx, int64_t& d0, int64_t& d1, int64_t& d2) {
  uint64_t bits = double_bits(x), m, u0, u1, u2;
  int pos0;
  decompose(bits, m, pos0);
  split_mantissa(m, pos0 + (kSumLsb - L), idx, u0, u1, u2);
  // Branch-free sign: (u ^ neg) - neg negates when neg is all ones.
  int64_t neg = -static_cast<int64_t>(bits >> 63);
  d0 = (static_cast<int64_t>(u0) ^ neg) - neg;
  d1 = (static_cast<int64_t>(u1) ^ neg) - neg;
  d2 = (static_cast<int64_t>(u2) ^ neg) - neg;
}

template <int D, int L>
struct BasicSuperacc {
  static constexpr int kDigits = D;
  static constexpr int kLsbExp = L;  // digit 0 has weight 2^L
  int64_t digit[D];
  int64_t pending;  // upper bound on |digit[i]| / 2^32; normalize before it passes the limit
  int64_t nan_count, pos_inf_count, neg_inf_count;
  int64_t neg_zero_count;      // terms that were -0
  int64_t not_neg_zero_count;  // terms that were anything else (finite)

  ACCSUM_HD void clear() {
    for (int i = 0; i < D; ++i) digit[i] = 0;
    pending = 0;
    nan_count = pos_inf_count = neg_inf_count = neg_zero_count = not_neg_zero_count = 0;
  }

  // Adds the pieces of one finite value (see superacc_split); keeps the carry-save bound.
  ACCSUM_HD void add_pieces(int idx, int64_t d0, int64_t d1, int64_t d2) {
    if (pending >= kSuperaccMaxPending) normalize();
    ++pending;
    digit[idx] += d0;
    digit[idx + 1] += d1;
    digit[idx + 2] += d2;
  }

  // Adds a finite value x * 2^scale exactly (requires the result's bits inside the range).
  ACCSUM_HD void add_finite_scaled(uint64_t bits, int scale) {
    uint64_t m, u0, u1, u2;
    int pos0, idx;
    decompose(bits, m, pos0);
    split_mantissa(m, pos0 + scale + (kSumLsb - L), idx, u0, u1, u2);
    int64_t neg = -static_cast<int64_t>(bits >> 63);
    add_pieces(idx, (static_cast<int64_t>(u0) ^ neg) - neg, (static_cast<int64_t>(u1) ^ neg) - neg,
               (static_cast<int64_t>(u2) ^ neg) - neg);
  }

  // Records a non-finite or zero term; returns true when x was one (nothing else to do).
  ACCSUM_HD bool note_special(uint64_t bits) {
    uint64_t mag = bits & ~(uint64_t(1) << 63);
    if (mag >= (uint64_t(0x7FF) << 52)) {
      if (mag > (uint64_t(0x7FF) << 52))
        ++nan_count;
      else if (bits >> 63)
        ++neg_inf_count;
      else
        ++pos_inf_count;
      return true;
    }
    if (bits == (uint64_t(1) << 63)) {
      ++neg_zero_count;
      return true;
    }
    ++not_neg_zero_count;
    return mag == 0;
  }

  // Exact accumulation of any double (NaN, +-inf, +-0 and subnormals included).
  ACCSUM_HD void add(double x) {
    uint64_t bits = double_bits(x);
    if (note_special(bits)) return;
    add_finite_scaled(bits, 0);
  }

  // Exact accumulation of the product a*b (dot products; only in a range covering
  // [2^-2148, 2^2048), i.e. SuperaccDot): the 53x53-bit integer product, no rounding.
  ACCSUM_HD void add_product(double a, double b) {
    uint64_t ba = double_bits(a), bb = double_bits(b);
    const int cls = accsum_product_class(ba, bb);  // IEEE products (core/numerics/ieee_special.h)
    if (cls != ACCSUM_PRODUCT_FINITE) {
      add_special_product(cls);
      return;
    }
    ++not_neg_zero_count;
    uint64_t ma, mb;
    int pa, pb;
    decompose(ba, ma, pa);
    decompose(bb, mb, pb);
    uint64_t sign = (ba ^ bb) & (uint64_t(1) << 63);
    // |a*b| = ma*mb * 2^(pa + pb - 2148): a product of at most 106 bits, cut into two
    // 53-bit halves that are placed like two doubles' mantissas.
    uint64_t hi, lo, p_lo, p_hi;
    mul_64x64(ma, mb, hi, lo);
    accsum_product_halves(hi, lo, &p_lo, &p_hi);
    int pos = pa + pb + (kDotLsb - L);
    int64_t neg = sign ? -1 : 0;
    int idx;
    uint64_t u0, u1, u2;
    split_mantissa(p_lo, pos, idx, u0, u1, u2);
    add_pieces(idx, (static_cast<int64_t>(u0) ^ neg) - neg, (static_cast<int64_t>(u1) ^ neg) - neg,
               (static_cast<int64_t>(u2) ^ neg) - neg);
    split_mantissa(p_hi, pos + 53, idx, u0, u1, u2);
    add_pieces(idx, (static_cast<int64_t>(u0) ^ neg) - neg, (static_cast<int64_t>(u1) ^ neg) - neg,
               (static_cast<int64_t>(u2) ^ neg) - neg);
  }

  // Records a product that is NaN, infinite or zero (its accsum_product_class).
  ACCSUM_HD void add_special_product(int cls) {
    if (cls == ACCSUM_PRODUCT_NAN)
      ++nan_count;
    else if (cls == ACCSUM_PRODUCT_POS_INF)
      ++pos_inf_count;
    else if (cls == ACCSUM_PRODUCT_NEG_INF)
      ++neg_inf_count;
    else if (cls == ACCSUM_PRODUCT_NEG_ZERO)
      ++neg_zero_count;
    else
      ++not_neg_zero_count;
  }

  // Carry propagation: digit[i] in [0, 2^32) for i < D-1; the top digit keeps the sign.
  ACCSUM_HD void normalize() {
    accsum_normalize(digit, D);
    pending = 1;
  }

  // Adds another accumulator (levels 3-5 of Collange et al. 2015: the reduction of superaccumulators).
  ACCSUM_HD void merge(const BasicSuperacc& o) {
    if (pending + o.pending > kSuperaccMaxPending) {
      normalize();
      if (pending + o.pending > kSuperaccMaxPending) {  // o itself is nearly full
        BasicSuperacc t = o;
        t.normalize();
        merge(t);
        return;
      }
    }
    for (int i = 0; i < D; ++i) digit[i] += o.digit[i];
    pending += o.pending;
    nan_count += o.nan_count;
    pos_inf_count += o.pos_inf_count;
    neg_inf_count += o.neg_inf_count;
    neg_zero_count += o.neg_zero_count;
    not_neg_zero_count += o.not_neg_zero_count;
  }

  // The exact value rounded to nearest, ties to even (Collange et al. 2015, Sec. 3.3; the integer
  // rounding is accsum_round_magnitude in core/numerics/numerics.h). Does not change *this.
  ACCSUM_HD double round() const {
    const uint64_t special = accsum_special_result_bits(nan_count != 0, pos_inf_count != 0, neg_inf_count != 0);
    if (special) return bits_double(special);
    BasicSuperacc a = *this;
    a.normalize();
    bool negative = a.digit[D - 1] < 0;
    if (negative) {
      for (int i = 0; i < D; ++i) a.digit[i] = -a.digit[i];
      a.normalize();
    }
    int k = D - 1;
    while (k >= 0 && a.digit[k] == 0) --k;
    if (k < 0) return bits_double(accsum_zero_result_bits(neg_zero_count != 0, not_neg_zero_count != 0));
    const uint64_t bits = accsum_round_magnitude(a.digit, k, L);
    return bits_double(bits | (negative ? uint64_t(1) << 63 : 0));
  }
};

using Superacc = BasicSuperacc<kSumDigits, kSumLsb>;
using SuperaccDot = BasicSuperacc<kDotDigits, kDotLsb>;
// The accumulator of a sum (DOT false) or of a dot product's exact products (DOT true).
template <bool DOT>
using SuperaccOf = std::conditional_t<DOT, SuperaccDot, Superacc>;

}  // namespace accsum
