#pragma once
// Level 2 of seed 004 (§3.2) as the CUDA kernel keeps it: one private superaccumulator per
// thread ("lane"), in shared memory, in a more compact digit layout than core/superacc.hpp.
//
// Why a second layout: core/superacc.hpp has w = 32 value bits per int64 digit (68 digits for
// a sum, 544 bytes). A private copy per thread at that size would leave room for too few threads
// per SM to keep HBM busy. Here w = 52 (41 digits, 328 bytes): a double's 53-bit significand
// still lands in two adjacent digits (53 + 51 <= 2 * 52), with 11 carry-save bits of headroom
// (the paper's w = 56, M = 8 trades headroom for one digit less). A private accumulator needs no
// atomics, so no carry can be lost to contention, whatever the data.
//
// Digit i has weight 2^(52 i - 1074) (the same origin as core's Superacc). After
// lane_normalize() digits 0..39 are in [0, 2^52) and digit 40 holds the sign. Each lane_split()
// piece is in (-2^52, 2^52], so a normalized digit absorbs kLaneMaxPending pieces before it
// could overflow: (kLaneMaxPending + 1) * 2^52 < 2^63.
//
// Level 3-5 use core's representation: lane digits are re-cut into core's 32-bit digits
// (add_int64_at) for the block record, the device-level merge and the final rounding.
// Everything here is ACCSUM_HD and compiles as host C++ too, so tests check it without a GPU.
#include <cstdint>

#include "core/hd.hpp"
#include "core/superacc.hpp"

namespace accsum::cuda {

constexpr int kLaneDigitBits = 52;
constexpr int kLaneDigits = 41;  // bit positions 0 .. 2131 above 2^-1074: every double, + 2^34 terms
constexpr int64_t kLaneDigitMask = (int64_t(1) << kLaneDigitBits) - 1;
constexpr int kLaneMaxPending = 2046;

// Cuts a finite double x into two signed pieces: x = lo * 2^(52 k - 1074) + hi * 2^(52 (k+1) - 1074)
// with 0 <= lo < 2^52 and |hi| <= 2^52 (Fig. 4 of seed 004, on integers). x = +-0 gives zeros.
ACCSUM_HD void lane_split(double x, int& k, int64_t& lo, int64_t& hi) {
  uint64_t bits = double_bits(x), m;
  int pos;
  decompose(bits, m, pos);  // |x| = m * 2^(pos - 1074), pos in [0, 2045]
  int64_t neg = -static_cast<int64_t>(bits >> 63);
  int64_t sm = (static_cast<int64_t>(m) ^ neg) - neg;  // signed significand, |sm| < 2^53
  k = static_cast<int>(static_cast<unsigned>(pos) / 52u);
  int s = pos - 52 * k;  // 0..51
  // Two's complement: the low 52 bits of sm * 2^s are the low 52 bits of (sm << s) mod 2^64,
  // and the rest is floor(sm * 2^s / 2^52) = sm >> (52 - s), an arithmetic shift by 1..52.
  lo = static_cast<int64_t>((static_cast<uint64_t>(sm) << s) & static_cast<uint64_t>(kLaneDigitMask));
  hi = sm >> (52 - s);
}

// Carry propagation over one lane's digits; `stride` is the distance between digits (the lanes
// of a warp interleave their digits in shared memory).
ACCSUM_HD void lane_normalize(int64_t* digit, int stride) {
  int64_t carry = 0;
  for (int i = 0; i < kLaneDigits - 1; ++i) {
    int64_t d = digit[i * stride] + carry;
    carry = d >> kLaneDigitBits;  // arithmetic: floor(d / 2^52)
    digit[i * stride] = d & kLaneDigitMask;
  }
  digit[(kLaneDigits - 1) * stride] += carry;
}

// Splits v * 2^(32 idx + s) (0 <= s < 32, any int64 v) into three pieces of core's 32-bit
// digits: v = vlo + vhi * 2^32 with vlo in [0, 2^32) and vhi = v >> 32 in [-2^31, 2^31).
ACCSUM_HD void int64_pieces(int64_t v, int s, int64_t& p0, int64_t& p1, int64_t& p2) {
  uint64_t a = (static_cast<uint64_t>(v) & kDigitMask) << s;  // < 2^63
  int64_t b = (v >> 32) * (int64_t(1) << s);                   // |b| <= 2^62
  p0 = static_cast<int64_t>(a & kDigitMask);
  p1 = static_cast<int64_t>(a >> 32) + (b & static_cast<int64_t>(kDigitMask));
  p2 = b >> 32;
}

// Adds v * 2^(pos + L) to a core accumulator (pos in units of its digit-0 weight 2^L).
// Every piece is below 2^33 in magnitude; the caller keeps count for normalization.
template <int D, int L>
ACCSUM_HD void add_int64_at(BasicSuperacc<D, L>& acc, int64_t v, int pos) {
  int64_t p0, p1, p2;
  int64_pieces(v, pos & 31, p0, p1, p2);
  int idx = pos >> 5;
  acc.digit[idx] += p0;
  acc.digit[idx + 1] += p1;
  acc.digit[idx + 2] += p2;
}

// Bit position of lane digit i in a core accumulator whose digit 0 has weight 2^L.
template <int L>
ACCSUM_HD int lane_digit_pos(int i) {
  return kLaneDigitBits * i + (-1074 - L);
}

// Hi word of |x| at or above which a sum term bypasses the expansion: 2^970 (core/fpe.hpp's
// kFpeMaxInput), infinities and NaN included. One integer compare on the high word.
constexpr uint32_t kSumSlowHi = 0x7C900000u;  // high word of 2^970
static_assert(kSumSlowHi == ((1023u + 970u) << 20), "2^970");
// A product p = fl(a*b) takes the fast path when 2^-968 <= |p| < 2^970: then p cannot have
// overflowed and the TwoProductFMA error e = fma(a, b, -p) is exact (the exact product's lowest
// bit is at least 2^-1073, see superacc_cuda.cu), and both fit the expansion's precondition.
constexpr uint32_t kDotFastLoHi = (1023u - 968u) << 20;  // high word of 2^-968
constexpr uint32_t kDotFastHiHi = kSumSlowHi;

// True when |p| (high word hp with the sign cleared) is in [2^-968, 2^970).
ACCSUM_HD bool dot_fast_range(uint32_t hp_abs) { return hp_abs - kDotFastLoHi < kDotFastHiHi - kDotFastLoHi; }

}  // namespace accsum::cuda
