#pragma once
// Part of families/gemm/ozaki.hpp, which includes it at its end: include that header, not this one.
// The Ozaki scheme's last steps (families/gemm/ozaki.hpp, read its comment first): exact wide values
// rounded once to float or double, and an entry finished with alpha, beta and C.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace accsum::ozaki {

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

}  // namespace accsum::ozaki
