#pragma once
// Level 2 of Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel
// reduction on multi- and many-core architectures" (Parallel Computing 2015, Sec. 3.2) as the CUDA
// kernel keeps it: one private superaccumulator per thread ("lane"), in shared memory. The lane
// numerics (50-bit digits, the FP64 and the integer cut, carry propagation, the re-cut into core's
// 32-bit digits) are defined once in core/numerics/superacc_lanes.h, shared with the OpenCL
// kernels; here they get C++ names and references, beside the pieces only the CUDA kernel uses
// (flags, the dot slow path, carry-free digit sums, the warp's carry prefix, the rounding window).
// Everything here is ACCSUM_HD and compiles as host C++ too, so tests check it without a GPU.
#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "core/numerics/superacc.hpp"
#include "core/numerics/superacc_lanes.h"

namespace accsum::cuda {

constexpr int kLaneDigitBits = ACCSUM_LANE_DIGIT_BITS;
constexpr int kLaneDigits = ACCSUM_LANE_DIGITS;  // bit positions 0 .. 2149 above 2^-1074
constexpr int64_t kLaneDigitMask = ACCSUM_LANE_DIGIT_MASK;
constexpr int kLaneMaxPending = ACCSUM_LANE_MAX_PENDING;
constexpr uint32_t kLaneFastMinBiased = ACCSUM_LANE_FAST_MIN_BIASED;
static_assert(kLaneDigits == 43 && kLaneMaxPending == 2046 && ACCSUM_LANE_DIV_MAGIC == 85899346u,
              "the lane layout of the shared-memory areas and the record merge");
static_assert(ACCSUM_LANE_RADIX == double(int64_t(1) << kLaneDigitBits), "2^w");

ACCSUM_HD uint32_t div50(uint32_t p) { return accsum_lane_div(p); }
ACCSUM_HD void lane_split_fast(double x, int& k, int64_t& lo, int64_t& hi) { accsum_lane_split_fast(x, &k, &lo, &hi); }
ACCSUM_HD void lane_split_exact(double x, int& k, int64_t& p0, int64_t& p1, int64_t& p2) {
  accsum_lane_split_exact(x, &k, &p0, &p1, &p2);
}
ACCSUM_HD bool lane_fast_ok(double x) { return accsum_lane_fast_ok(x) != 0; }
ACCSUM_HD void lane_normalize(int64_t* digit, int stride) { accsum_lane_normalize(digit, stride); }
ACCSUM_HD void int64_pieces(int64_t v, int s, int64_t& p0, int64_t& p1, int64_t& p2) {
  accsum_int64_pieces(v, s, &p0, &p1, &p2);
}

// Adds v * 2^(pos + L) to a core accumulator (pos in units of its digit-0 weight 2^L).
// Every piece is below 2^33 in magnitude; the caller keeps count for normalization.
template <int D, int L>
ACCSUM_HD void add_int64_at(BasicSuperacc<D, L>& acc, int64_t v, int pos) {
  int64_t p0, p1, p2;
  int64_pieces(v, pos & (kSuperaccDigitBits - 1), p0, p1, p2);
  int idx = pos >> kSuperaccDigitLog2;
  acc.digit[idx] += p0;
  acc.digit[idx + 1] += p1;
  acc.digit[idx + 2] += p2;
}

// Bit position of lane digit i in a core accumulator whose digit 0 has weight 2^L.
template <int L>
ACCSUM_HD int lane_digit_pos(int i) {
  return accsum_lane_digit_pos(i, L);
}

// High words of |x| (core/numerics/superacc_lanes.h): at or above kSumSlowHi (2^970) a sum term
// bypasses the expansion; a product takes the fast path when 2^-968 <= |p| < 2^970.
constexpr uint32_t kSumSlowHi = ACCSUM_SUM_SLOW_HI;
constexpr uint32_t kDotFastLoHi = ACCSUM_DOT_FAST_LO_HI;
constexpr uint32_t kDotFastHiHi = kSumSlowHi;
static_assert(kSumSlowHi == 0x7C900000u, "high word of 2^970");

// True when |p| (high word hp with the sign cleared) is in [2^-968, 2^970).
ACCSUM_HD bool dot_fast_range(uint32_t hp_abs) { return hp_abs - kDotFastLoHi < kDotFastHiHi - kDotFastLoHi; }

// ---- special values and the sign of zero, as flags that merge by OR ----
constexpr unsigned kFlagNan = 1, kFlagPosInf = 2, kFlagNegInf = 4;
constexpr unsigned kFlagNotNegZero = 8;  // a term other than -0 was seen

// Flags of a sum term that is not finite (call only when the exponent field is all ones).
ACCSUM_HD unsigned sum_special_flags(double x) {
  uint64_t bits = double_bits(x);
  unsigned f = kFlagNotNegZero;
  if ((bits & kMantissaMask) != 0) return f | kFlagNan;
  return f | ((bits >> 63) ? kFlagNegInf : kFlagPosInf);
}

// Exact slow path of a dot term a*b (core's add_product, as pieces): special values and zero
// products only set flags; otherwise the 106-bit integer product ma*mb * 2^(pa + pb - 2148) is
// cut into two 53-bit halves placed like two doubles' significands, and each signed 32-bit
// piece goes to add_piece(digit index, value) of a SuperaccDot-shaped accumulator.
template <class AddPiece>
ACCSUM_HD unsigned dot_slow_terms(double a, double b, AddPiece&& add_piece) {
  uint64_t ba = double_bits(a), bb = double_bits(b), ma, mb;
  switch (accsum_product_class(ba, bb)) {  // IEEE products (core/numerics/ieee_special.h)
    case ACCSUM_PRODUCT_NAN:
      return kFlagNotNegZero | kFlagNan;
    case ACCSUM_PRODUCT_POS_INF:
      return kFlagNotNegZero | kFlagPosInf;
    case ACCSUM_PRODUCT_NEG_INF:
      return kFlagNotNegZero | kFlagNegInf;
    case ACCSUM_PRODUCT_NEG_ZERO:
      return 0u;
    case ACCSUM_PRODUCT_POS_ZERO:
      return kFlagNotNegZero;
    default:
      break;
  }
  int pa, pb;
  bool negative = ((ba ^ bb) >> 63) != 0;
  decompose(ba, ma, pa);
  decompose(bb, mb, pb);
  uint64_t hi, lo, halves[2];
  mul_64x64(ma, mb, hi, lo);
  accsum_product_halves(hi, lo, &halves[0], &halves[1]);
  const int64_t neg = negative ? -1 : 0;
  for (int h = 0; h < 2; ++h) {
    int idx;
    uint64_t u0, u1, u2;
    split_mantissa(halves[h], pa + pb + 53 * h, idx, u0, u1, u2);  // SuperaccDot: L = kDotLsb
    add_piece(idx, (static_cast<int64_t>(u0) ^ neg) - neg);
    add_piece(idx + 1, (static_cast<int64_t>(u1) ^ neg) - neg);
    add_piece(idx + 2, (static_cast<int64_t>(u2) ^ neg) - neg);
  }
  return kFlagNotNegZero;
}

// ---- summing digits without carries (levels 3 and 4) ----
// Digits that may be any int64 (a lane's digits with pending pieces, block records) are summed
// as their low W bits and their high part (v >> W, below 2^(63 - W) in magnitude): sums of up to
// min(2^(63 - W), 2^W) values cannot overflow. Digit d of the total is then low[d] + high[d-1];
// the top digit, which holds the sign, also keeps high[D-1] * 2^W. No carry is propagated: that
// is done once, at the very end (level 5).
template <int W>
struct SplitSum {  // aggregate (no initializers) so that it may live in __shared__; use SplitSum{}
  int64_t low, high;
  ACCSUM_HD void add(int64_t v) {
    low += v & ((int64_t(1) << W) - 1);
    high += v >> W;
  }
};
// Records (core's w = 32): 2^31 records of any int64 digits cannot overflow the sums.
using DigitSum = SplitSum<kSuperaccDigitBits>;
template <int D, int W = kSuperaccDigitBits>
ACCSUM_HD int64_t merged_digit(int d, const SplitSum<W>& here, const SplitSum<W>* below) {
  int64_t v = here.low + (d > 0 ? below->high : 0);
  if (d == D - 1) v += here.high * (int64_t(1) << W);
  return v;
}
// Lane digits (w = 50) summed over the 32 lanes of a warp: low sums < 2^55, high parts < 2^18 in
// magnitude (a lane digit with at most kLaneMaxPending pending pieces is below 2^63), so a warp's
// digits and their sum over the 16 warps of a block stay below 2^60. The top lane digit holds
// floor(lane value / 2^2100), |.| <= 2^32 for 2^34 terms, so its high part times 2^50 fits.
using LaneSum = SplitSum<kLaneDigitBits>;
// The same LaneSum from the sum of the whole digits modulo 2^64 and the sum of their high parts
// (cheaper per digit): the low sum is total - high * 2^50, exact because it lies in [0, 2^63).
ACCSUM_HD LaneSum lane_sum_from_total(uint64_t total, int64_t high) {
  return LaneSum{static_cast<int64_t>(total - (static_cast<uint64_t>(high) << kLaneDigitBits)), high};
}

// ---- level 5: carry propagation as a parallel prefix (one warp) ----
// Two passes of "digit & (2^32 - 1), plus the carry (digit >> 32) of the digit below" leave every
// digit but the top in [-1, 2^32] and every carry in {-1, 0, 1} (|digit| < 2^63 before). The
// carry out of digit d is then floor((v_d + c) / 2^32), a function of the carry c into it with
// values in {-1, 0, 1}; such functions compose, so the carries of all digits are a prefix
// "sum" (Ladner, Fischer, "Parallel prefix computation", JACM 1980, as in carry-lookahead
// adders). A function is kept as three 2-bit fields, field c+1 = f(c) + 1.
constexpr unsigned kCarryIdentity = 0u | (1u << 2) | (2u << 4);
// The carry function of a digit v in [-1, 2^32].
ACCSUM_HD unsigned carry_fn(int64_t v) {
  unsigned f = 0;
  for (int c = -1; c <= 1; ++c) f |= static_cast<unsigned>(((v + c) >> kSuperaccDigitBits) + 1) << (2 * (c + 1));
  return f;
}
ACCSUM_HD int carry_apply(unsigned f, int c) { return static_cast<int>((f >> (2 * (c + 1))) & 3u) - 1; }
// g after f: c -> g(f(c)).
ACCSUM_HD unsigned carry_compose(unsigned g, unsigned f) {
  unsigned h = 0;
  for (int i = 0; i < 3; ++i) h |= ((g >> (2 * ((f >> (2 * i)) & 3u))) & 3u) << (2 * i);
  return h;
}

// -V for a normalized V < 0 (digits 0 .. D-2 in [0, 2^32), the top digit negative) in one pass,
// digit d of the D, with j the lowest non-zero digit of V: 0 below j, 2^32 - v_j at j, 2^32 - 1 - v_d
// between j and the top, -v_top - 1 at the top (-v_top when j is the top). The normalized form is
// unique, so these are the digits a second normalization of the negated digits leaves.
ACCSUM_HD int64_t negated_normalized_digit(int64_t v, int d, int j, int D) {
  constexpr int64_t kBase = int64_t(1) << kSuperaccDigitBits;
  if (d < j || d >= D) return 0;
  if (d == D - 1) return j == D - 1 ? -v : -v - 1;
  return d == j ? kBase - v : kBase - 1 - v;
}

// The block merge's digit sums as 32-bit counters (native shared-memory atomics; sm_90's 64-bit
// shared-memory atomic add is a compare-and-swap loop): a piece p, |p| < 2^33, is kept as its low 16
// bits (unsigned) and p >> 16 (signed, |.| < 2^17). kMaxHalvesPieces of them per digit sum to below
// 2^32 and 2^31 in magnitude: exact, and the digit is high * 2^16 + low.
// A core digit receives at most 3 pieces per warp in the block merge; a block has at most
// kMaxBlockWarps warps (1024 threads).
constexpr int kHalvesShift = 16;
constexpr int kMaxHalvesPieces = 1 << (31 - 17);
constexpr int kMaxBlockWarps = 1024 / 32;
static_assert(3 * kMaxBlockWarps <= kMaxHalvesPieces, "the digit halves' counters could overflow");
ACCSUM_HD uint32_t piece_low_half(int64_t p) { return static_cast<uint32_t>(p & ((int64_t(1) << kHalvesShift) - 1)); }
ACCSUM_HD int32_t piece_high_half(int64_t p) { return static_cast<int32_t>(p >> kHalvesShift); }
ACCSUM_HD int64_t halves_value(uint32_t low, int32_t high) {
  return static_cast<int64_t>(high) * (int64_t(1) << kHalvesShift) + static_cast<int64_t>(low);
}

// core's BasicSuperacc<D, L>::round() from its flags (set_flags' meaning, n terms) and the
// normalized magnitude: the sign, the top non-zero digit k (-1: zero), digits k, k-1, k-2 (0
// below digit 0) and whether any digit below k-2 is non-zero. accsum_round_magnitude reads only
// these: the window {sticky, d[k-2], d[k-1], d[k]} with digit 0 of weight 2^(L + 32 (k - 3))
// rounds to the same bits (the bits kept and the round bit lie in the top three digits).
template <int L>
ACCSUM_HD double round_window(unsigned flags, int64_t n, bool negative, int k, int64_t dk, int64_t dk1, int64_t dk2,
                              bool sticky) {
  const uint64_t special =
      accsum_special_result_bits((flags & kFlagNan) != 0, (flags & kFlagPosInf) != 0, (flags & kFlagNegInf) != 0);
  if (special) return bits_double(special);
  if (k < 0) return bits_double(accsum_zero_result_bits(n > 0, (flags & kFlagNotNegZero) != 0));
  uint64_t bits;
  if (k < 3) {
    int64_t d[3] = {k == 2 ? dk2 : k == 1 ? dk1 : dk, k == 2 ? dk1 : dk, dk};
    bits = accsum_round_magnitude(d, k, L);  // no digit below k-2
  } else {
    int64_t w[4] = {sticky ? 1 : 0, dk2, dk1, dk};
    bits = accsum_round_magnitude(w, 3, L + kSuperaccDigitBits * (k - 3));
  }
  return bits_double(bits | (negative ? uint64_t(1) << 63 : 0));
}

// Sets core's special-value and zero-sign counters from merged flags (n terms in all).
template <int D, int L>
ACCSUM_HD void set_flags(BasicSuperacc<D, L>& acc, unsigned flags, int64_t n) {
  acc.pending = 1;
  acc.nan_count = (flags & kFlagNan) != 0;
  acc.pos_inf_count = (flags & kFlagPosInf) != 0;
  acc.neg_inf_count = (flags & kFlagNegInf) != 0;
  acc.not_neg_zero_count = (flags & kFlagNotNegZero) != 0;
  acc.neg_zero_count = (n > 0 && !(flags & kFlagNotNegZero)) ? 1 : 0;
}
// The flags a block record carries (set_flags with n = 0 writes them).
template <int D, int L>
ACCSUM_HD unsigned record_flags(const BasicSuperacc<D, L>& r) {
  return (r.nan_count ? kFlagNan : 0u) | (r.pos_inf_count ? kFlagPosInf : 0u) | (r.neg_inf_count ? kFlagNegInf : 0u) |
         (r.not_neg_zero_count ? kFlagNotNegZero : 0u);
}

}  // namespace accsum::cuda
