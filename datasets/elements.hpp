#pragma once
// One element of each counter-based distribution, as a pure function of (seed, n, i): host
// threads, MPI ranks and CUDA threads all call these (ACCSUM_HD). generate_range() in
// datasets/generate.cpp is the host driver; datasets/dataset.hpp documents the distributions.
//
// Element-wise distributions (uniform, uniform-sym, loguniform, subnormal, specials) depend on
// (seed, i) only, so a shorter dataset is a prefix of a longer one. The structured ones
// (overflow-cancel, ties) build a base array whose layout depends on n (cancelling pairs,
// pieces of a tie) and shuffle it with a Feistel permutation: element i depends on (seed, n, i).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/hd.hpp"
#include "datasets/rng.hpp"

namespace accsum::gen {

// Stream numbers (rng::CounterRng): x and y are independent streams.
constexpr uint64_t kStreamX = 0, kStreamY = 1, kStreamPerm = 2, kStreamShape = 3;

ACCSUM_HD double from_bits(uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
#endif
}
// 2^e for a normal exponent (-1022 <= e <= 1023), built from its bits.
ACCSUM_HD double pow2(int e) { return from_bits(static_cast<uint64_t>(e + 1023) << 52); }
// ldexp(v, e), bit for bit: one multiply rounds v 2^e exactly once, as ldexp does; exponents
// outside the normal range (rare here) take the library call.
ACCSUM_HD double scale2(double v, int e) { return (e >= -1022 && e <= 1023) ? v * pow2(e) : ldexp(v, e); }
// The 52 mantissa bits of a draw as 1 + v, v uniform on [0, 1).
ACCSUM_HD double one_plus(uint64_t bits) { return 1.0 + static_cast<double>(bits >> 12) * 0x1p-52; }

// ---- uniform, uniform-sym ----
ACCSUM_HD double uniform01(const rng::CounterRng& r, uint64_t i) { return r.uniform(i); }
ACCSUM_HD double uniform_sym(const rng::CounterRng& r, uint64_t i) { return r.uniform_sym(i); }

// ---- loguniform: |x| = (1 + v) 2^e, v uniform on [0, 1) (52 bits), e uniform on the integer
// window [lo, lo + span], random sign. max|x| / min|x| is then about 2^(span + 1).
struct LogWindow {
  int lo = 0, span = 0;
};
// The window whose achieved range 2^(span + 1) is closest to `range` (ExBLAS's convention:
// range 1 means identical exponents), centred on 2^0 (the geometric middle of the magnitudes is
// 2^0 or 2^0.5). Exponents stay within [-512, 511].
inline LogWindow log_window(double range) {
  long e = std::lround(std::log2(range));
  int span = static_cast<int>(e < 1 ? 0 : (e - 1 > 1023 ? 1023 : e - 1));
  return LogWindow{-((span + 1) / 2), span};
}
ACCSUM_HD double loguniform(const rng::CounterRng& r, uint64_t i, LogWindow w) {
  uint64_t bits = r.u64(i, 0);
  int e = w.lo + static_cast<int>(r.below(static_cast<uint64_t>(w.span) + 1, i, 1));
  double v = scale2(one_plus(bits), e);
  return (bits & 1) ? -v : v;
}

// ---- subnormal: 3 in 4 elements subnormal (m * 2^-1074, m with a random number of leading
// zero bits so every subnormal binade occurs), 1 in 4 a tiny normal in [2^-1022, 2^-1000);
// random signs.
ACCSUM_HD double subnormal(const rng::CounterRng& r, uint64_t i) {
  uint64_t a = r.u64(i, 0), b = r.u64(i, 1);
  const uint64_t sign = a & (uint64_t(1) << 63);
  if ((a & 3) != 3) {
    // m 2^-1074 has the bit pattern m (zero exponent field): built from bits, it costs no
    // subnormal arithmetic (slow on x86).
    uint64_t m = (b >> 12) >> r.below(52, i, 2);  // 52 random bits, shifted right 0..51
    return from_bits(sign | (m == 0 ? 1 : m));
  }
  // Tiny normal: exponent field 1..22, i.e. [2^-1022, 2^-1000).
  return from_bits(sign | (r.below(22, i, 2) + 1) << 52 | (b >> 12));
}

// ---- specials: finite uniform-sym data with +-0 and the seed's special values mixed in.
// Which specials a seed mixes in cycles with seed % 6 so a sweep over seeds 0..5 sees every
// IEEE 754 case of the IEEE 754 rules in the README (a NaN, +inf alone, -inf alone, +inf with -inf = NaN):
//   seed%6 == 1: NaN, +inf, -inf   2: +inf   3: -inf   4: +inf and -inf   5: NaN   0: none
// +0 and -0 are in every variant. Each enabled kind occurs at a fixed seed-chosen index below
// 64 (so n >= 64 contains every one) and then with probability 1/32 per element.
enum SpecialKind : unsigned { kPosZero = 0, kNegZero = 1, kNaN = 2, kPosInf = 3, kNegInf = 4, kSpecialKinds = 5 };
ACCSUM_HD unsigned specials_mask(uint64_t seed) {
  const unsigned zeros = (1u << kPosZero) | (1u << kNegZero);
  switch (seed % 6) {
    case 1:
      return zeros | (1u << kNaN) | (1u << kPosInf) | (1u << kNegInf);
    case 2:
      return zeros | (1u << kPosInf);
    case 3:
      return zeros | (1u << kNegInf);
    case 4:
      return zeros | (1u << kPosInf) | (1u << kNegInf);
    case 5:
      return zeros | (1u << kNaN);
    default:
      return zeros;
  }
}
ACCSUM_HD double special_value(unsigned kind) {
  switch (kind) {
    case kPosZero:
      return 0.0;
    case kNegZero:
      return -0.0;
    case kNaN:
      return NAN;
    case kPosInf:
      return INFINITY;
    default:
      return -INFINITY;
  }
}
// The special kind of element i, or kSpecialKinds for a finite non-zero-by-design element.
ACCSUM_HD unsigned special_kind_at(uint64_t seed, const rng::CounterRng& r, uint64_t i) {
  const unsigned mask = specials_mask(seed);
  if (i < 64) {
    // Kind k is forced at index (base + 13 k) mod 64: five distinct indices.
    uint64_t base = rng::CounterRng(seed, kStreamShape).below(64, 0);
    for (unsigned k = 0; k < kSpecialKinds; ++k)
      if ((mask >> k & 1) && i == (base + 13 * k) % 64) return k;
  }
  uint64_t a = r.u64(i, 1);
  if ((a & 31) != 0) return kSpecialKinds;
  unsigned enabled[kSpecialKinds], count = 0;
  for (unsigned k = 0; k < kSpecialKinds; ++k)
    if (mask >> k & 1) enabled[count++] = k;
  return enabled[mul_hi64(a, count)];
}
ACCSUM_HD double specials_x(uint64_t seed, const rng::CounterRng& rx, uint64_t i) {
  unsigned k = special_kind_at(seed, rx, i);
  return k == kSpecialKinds ? rx.uniform_sym(i) : special_value(k);
}
// y of a dot: positive and finite where x is special (so x*y keeps x's class and sign: no
// inf*0), uniform-sym elsewhere.
ACCSUM_HD double specials_y(uint64_t seed, const rng::CounterRng& rx, const rng::CounterRng& ry, uint64_t i) {
  unsigned k = special_kind_at(seed, rx, i);
  return k == kSpecialKinds ? ry.uniform_sym(i) : 0.5 + ry.uniform(i);
}

// ---- overflow-cancel: base array of n/2 - n/16 cancelling pairs (a, -a) with |a| in
// [2^1023, DBL_MAX] (dot: products in [2^1022, 2^1023 * 2)), the rest small (|x| < 2^20),
// shuffled. The exact sum is the sum of the small terms; a left-to-right sum overflows as
// soon as two big terms of one sign meet.
ACCSUM_HD int64_t overflow_pairs(int64_t n) { return (n - n / 8) / 2; }
ACCSUM_HD void overflow_cancel(int64_t n, const rng::CounterRng& rx, const rng::CounterRng& ry,
                               const rng::FeistelPermutation& perm, uint64_t i, bool dot, double& x, double& y) {
  const uint64_t j = perm(i);
  const uint64_t pairs = static_cast<uint64_t>(overflow_pairs(n));
  y = 0;
  if (j < 2 * pairs) {
    const uint64_t q = j / 2, bits = rx.u64(q);
    const double sign = (bits & 1) ? -1.0 : 1.0;
    if (!dot) {
      x = sign * one_plus(bits) * 0x1p1023;  // (1 + v) 2^1023 <= DBL_MAX
    } else {
      // (1 + v)(1 + w) < 1.41421^2 < 2: products in [2^1022, 2^1023 * 2), never overflowing.
      x = sign * (1.0 + 0.41421 * (one_plus(bits) - 1.0)) * 0x1p511;
      y = (1.0 + 0.41421 * (one_plus(ry.u64(q)) - 1.0)) * 0x1p511;
    }
    if (j & 1) x = -x;  // the partner cancels exactly
  } else {
    x = scale2(rx.uniform_sym(j, 1), static_cast<int>(rx.below(21, j, 2)));
    if (dot) y = ry.uniform_sym(j, 1);
  }
}

// ---- ties: the exact sum (dot) T is exactly halfway between two adjacent doubles:
// T = s (2M + 1) 2^(E-1) with 2^52 <= M < 2^53 (normal variant) and ulp 2^E. Base array:
// M 2^E cut into k bit fields (each an exact double), the half-ulp 2^(E-1), then cancelling
// pairs (c, -c) of magnitudes around |T| 2^[-40, 40], a zero when one slot is left; shuffled.
// One seed in four (seed % 4 == 0) puts the tie at the bottom of the range: for a dot a true
// subnormal tie (T between two subnormals, ulp 2^-1074, half-ulp the product 2^-1074 * 0.5);
// for a sum, whose exact value is a multiple of 2^-1074, the lowest binade where ties exist
// ([2^-1021, 2^-1020), ulp 2^-1073) with subnormal pieces.
struct TieShape {
  uint64_t M = 0;  // significand of the lower neighbour (in units of 2^E)
  int E = 0;       // exponent of the ulp
  int fields = 1;  // pieces of M 2^E
  bool negative = false;
  bool subnormal = false;  // the dot's subnormal variant: T = (2M + 1) 2^-1075, M < 2^52
};
ACCSUM_HD bool ties_low_variant(uint64_t seed) { return seed % 4 == 0; }
ACCSUM_HD TieShape tie_shape(uint64_t seed, int64_t n, bool dot) {
  const rng::CounterRng r(seed, kStreamShape);
  TieShape t;
  t.negative = r.u64(1) & 1;
  int64_t f = (n - 1) / 4;
  t.fields = static_cast<int>(f < 1 ? 1 : (f > 26 ? 26 : f));
  if (ties_low_variant(seed) && dot) {
    t.subnormal = true;
    t.M = (r.u64(2) >> 12) | 1;  // 1 <= M < 2^52: T below 2^-1022
    t.E = -1074;
  } else {
    t.M = (uint64_t(1) << 52) | (r.u64(2) >> 12);
    t.E = ties_low_variant(seed) ? -1073 : -300 + static_cast<int>(r.below(601, 3));
  }
  return t;
}
// Piece j of the unshuffled base array as a product x * y (y = 1 for sums).
ACCSUM_HD void tie_base(const TieShape& t, int64_t n, const rng::CounterRng& rx, const rng::CounterRng& ry, uint64_t j,
                        bool dot, double& x, double& y) {
  const double s = t.negative ? -1.0 : 1.0;
  const uint64_t k = static_cast<uint64_t>(t.fields);
  y = 1.0;
  if (j < k) {
    int lo = static_cast<int>(53 * j / k), hi = static_cast<int>(53 * (j + 1) / k);
    uint64_t field = (t.M >> lo) & ((uint64_t(1) << (hi - lo)) - 1);
    x = s * scale2(static_cast<double>(field), t.E + lo);  // exact: < 2^53 units of 2^E
    if (dot && (ry.u64(j) & 1) && x != 0 && !t.subnormal) {
      x *= 2.0;  // x * 0.5 is the same piece: exact both ways in the normal range
      y = 0.5;
    }
  } else if (j == k) {
    if (t.subnormal) {
      x = s * 0x1p-1074;  // the product 2^-1074 * 0.5 = 2^-1075 is the half-ulp
      y = 0.5;
    } else {
      x = s * scale2(1.0, t.E - 1);
    }
  } else {
    const uint64_t q = (j - k - 1) / 2;
    const uint64_t pairs = static_cast<uint64_t>(n - static_cast<int64_t>(k) - 1) / 2;
    if (q >= pairs) {
      x = 0.0;  // the one slot left over
      return;
    }
    // |c y| around |T| 2^[-40, 40] (bits 1..11 of the draw pick the offset, bit 0 the sign);
    // whatever rounding happens, c and -c cancel exactly.
    const uint64_t bits = rx.u64(q);
    int e = t.E + 52 - 40 + static_cast<int>(((bits >> 1 & 2047) * 81) >> 11);
    if (e < -1074) e = -1074;
    const double mag = scale2(one_plus(bits), dot ? e / 2 : e);
    const double c = (bits & 1) ? -mag : mag;
    if (dot) y = scale2(one_plus(ry.u64(q)), e - e / 2);
    x = ((j - k - 1) & 1) ? -c : c;
  }
}

// Element i of a ties dataset (the base array through the permutation).
ACCSUM_HD void ties_element(const TieShape& t, int64_t n, const rng::CounterRng& rx, const rng::CounterRng& ry,
                            const rng::FeistelPermutation& perm, uint64_t i, bool dot, double& x, double& y) {
  tie_base(t, n, rx, ry, perm(i), dot, x, y);
}

// ---- one element of any counter-based distribution, from a recipe a host thread or a GPU
// thread holds by value: the host driver (generate_range) and the device generator both call
// element(), so data made on a GPU by global index are the host's bits.
enum class Dist : int { uniform, uniform_sym, loguniform, subnormal, huge, specials, overflow_cancel, ties };

}  // namespace accsum::gen

namespace accsum {
struct ElementRecipe {
  gen::Dist dist = gen::Dist::uniform;
  bool dot = false;
  uint64_t seed = 0;
  int64_t n = 0;
  gen::LogWindow x_window, y_window;  // loguniform, subnormal (y), huge
  rng::CounterRng rx{0, gen::kStreamX}, ry{0, gen::kStreamY};
  rng::FeistelPermutation perm{1, 0, gen::kStreamPerm};  // overflow-cancel, ties
  gen::TieShape tie;
};
}  // namespace accsum

namespace accsum::gen {

ACCSUM_HD void element(const ElementRecipe& r, uint64_t i, double& x, double& y) {
  y = 0;
  switch (r.dist) {
    case Dist::uniform:
      x = uniform01(r.rx, i);
      if (r.dot) y = uniform01(r.ry, i);
      return;
    case Dist::uniform_sym:
      x = uniform_sym(r.rx, i);
      if (r.dot) y = uniform_sym(r.ry, i);
      return;
    case Dist::loguniform:
    case Dist::huge:
      x = loguniform(r.rx, i, r.x_window);
      if (r.dot) y = loguniform(r.ry, i, r.y_window);
      return;
    case Dist::subnormal:
      x = subnormal(r.rx, i);
      if (r.dot) y = loguniform(r.ry, i, r.y_window);
      return;
    case Dist::specials:
      x = specials_x(r.seed, r.rx, i);
      if (r.dot) y = specials_y(r.seed, r.rx, r.ry, i);
      return;
    case Dist::overflow_cancel:
      overflow_cancel(r.n, r.rx, r.ry, r.perm, i, r.dot, x, y);
      return;
    case Dist::ties:
      ties_element(r.tie, r.n, r.rx, r.ry, r.perm, i, r.dot, x, y);
      if (!r.dot) y = 0;
      return;
  }
}

}  // namespace accsum::gen
