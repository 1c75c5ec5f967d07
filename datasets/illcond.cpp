// GenSum / GenDot: ill-conditioned data with a target condition number c = S / |s|
// (S = sum |x_i| or sum |x_i y_i|, s the exact sum or dot; the oracle's ExactValue::cond).
//
// Ogita-Rump-Oishi (2005), Algorithm 6.1 (GenDot): the first half of the terms are random with
// exponents spread over log2(c) bits; each term of the second half is chosen so that the
// running dot product drops to a prescribed, decreasing magnitude, and the data are finally
// shuffled. ORO recompute the running dot with Dot2 at every step (O(n^2)), and Dot2's error
// (about n u^2 S) limits the achievable condition to about 1e30. Here the running value is
// kept EXACTLY in the superaccumulator (core/numerics/superacc.hpp; an add is O(1), a read of its
// leading digits one carry propagation over 70 digits), so the whole generator is O(n) and
// reaches 1e300. The last term is computed from
// the mass S accumulated so far, so S / |s| lands on c itself, not just on its order of
// magnitude. GenSum is the same construction with terms in place of products. Targets below
// 16 use a plain split of positive and negative mass instead (low_condition).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/numerics/superacc.hpp"
#include "datasets/elements.hpp"
#include "datasets/illcond.hpp"
#include "datasets/threads.hpp"

namespace accsum {
namespace {

// The running sum or dot, kept exactly in the superaccumulator of core/numerics/superacc.hpp, with
// digit 0 at 2^kLsb (2^-1074 is a multiple of it; 70 digits reach 2^1152, room for any sum of
// < 2^64 doubles). approx() reads the value with relative error below 2^-60: the leading three
// digits above the sign extension as a 128-bit integer, rounded once to double.
class RunningValue {
 public:
  RunningValue() { acc_.clear(); }
  void add(double a) { acc_.add(a); }

  double approx() {
    acc_.normalize();  // digits below the top in [0, 2^32), the top one signed
    const int64_t* d = acc_.digit;
    const bool negative = d[kDigits - 1] < 0;
    const int64_t fill = negative ? static_cast<int64_t>(kDigitMask) : 0;  // a digit of the sign extension
    int h = kDigits - 1;
    if (d[h] == (negative ? -1 : 0))
      for (--h; h >= 0 && d[h] == fill; --h) {
      }
    if (h < 0) return negative ? -gen::scale2(1.0, kLsb) : 0.0;
    // The sign extension above h weighs -2^(32(h+1)) when negative.
    __int128 v = negative ? -(static_cast<__int128>(1) << 96) : 0;
    v += static_cast<__int128>(d[h] & static_cast<int64_t>(kDigitMask)) << 64;
    if (h >= 1) v += static_cast<__int128>(d[h - 1]) << 32;
    if (h >= 2) v += d[h - 2];
    return gen::scale2(static_cast<double>(v), kSuperaccDigitBits * (h - 2) + kLsb);
  }

 private:
  static constexpr int kLsb = -1088, kDigits = 70;
  BasicSuperacc<kDigits, kLsb> acc_;
};

// floor(log2 v) for a positive normal double.
int exponent_of(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return static_cast<int>(bits >> 52 & 0x7ff) - 1023;
}
int round_to_int(double v) { return static_cast<int>(std::floor(v + 0.5)); }

// Below this target the cancellation construction would put most of the mass into its last
// term; a mass split between positive and negative terms is the natural data instead.
constexpr double kLowCond = 16;

// cond = (P + N) / (P - N) with P the positive and N the negative mass: positive terms in
// [1, 2) (dot: products of two), negative ones scaled so N = P (c - 1) / (c + 1).
void low_condition(const GenSpec& spec, double* x, double* y) {
  const rng::CounterRng rx(spec.seed, gen::kStreamX), ry(spec.seed, gen::kStreamY);
  const int64_t n = spec.n, n_neg = n / 2, n_pos = n - n_neg;
  double pos = 0, neg = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 1.0 + rx.uniform(i);
    double term = x[i];
    if (y) {
      y[i] = 1.0 + ry.uniform(i);
      term = x[i] * y[i];
    }
    (i < n_pos ? pos : neg) += term;
  }
  const double scale = neg > 0 ? pos * (spec.cond - 1) / (spec.cond + 1) / neg : 0;
  if (scale == 0) return;  // cond 1: every term positive
  for (int64_t i = n_pos; i < n; ++i) x[i] = -scale * x[i];
}

// The cancellation construction for c >= kLowCond (n >= 2).
void cancellation(const GenSpec& spec, double* x, double* y) {
  const bool dot = y != nullptr;
  const rng::CounterRng rx(spec.seed, gen::kStreamX), ry(spec.seed, gen::kStreamY), rt(spec.seed, gen::kStreamShape);
  const double c = spec.cond, b = std::log2(c);
  // ORO split the terms in halves. A term of the second half lowers the running value by at
  // most about 48 bits (kMaxDrop below), and going from 2^(b/2) to 2^(-b/2) takes about b + 40
  // bits, so small datasets give the second half the steps it needs.
  constexpr int kMaxDrop = 48;
  const int64_t n = spec.n;
  const int64_t steps_needed = static_cast<int64_t>(std::ceil((b + 40) / (kMaxDrop - 4))) + 1;
  const int64_t half = std::max<int64_t>(1, std::min<int64_t>(n / 2, n - steps_needed)), rest = n - half;
  RunningValue exact;  // the running sum / dot, exactly
  double mass = 0;     // S so far (rounded: relative error below n u)
  // Appends term x[i] (times y[i]) exactly; a product enters as its rounded value and its error
  // (TwoProductFMA, Ogita, Rump, Oishi 2005, Alg. 3.5).
  auto account = [&](int64_t i) {
    if (!dot) {
      exact.add(x[i]);
      mass += std::fabs(x[i]);
      return;
    }
    const double p = x[i] * y[i];
    exact.add(p);
    exact.add(std::fma(x[i], y[i], -p));  // the product's rounding error, exactly
    mass += std::fabs(p);
  };
  // A term (or product) moving the running value from s to t.
  auto steer = [&](int64_t i, double s, double t, double magnitude) {
    if (!dot) {
      x[i] = t - s;
    } else {
      // x = +-(1 + v) 2^(e/2) with 2^e <= magnitude; y carries the rest.
      const uint64_t bits = rx.u64(i, 2);
      x[i] = gen::scale2(gen::one_plus(bits), exponent_of(magnitude) / 2);
      if (bits & 1) x[i] = -x[i];
      y[i] = (t - s) / x[i];
    }
    account(i);
  };

  // First half: random terms with exponents uniform over [top - W, top], W = floor(log2 c),
  // centred on 2^0 so the magnitudes stay far from overflow and underflow for any c <= 1e300.
  const int span = static_cast<int>(std::floor(b));
  const int top = round_to_int(b / 2);
  for (int64_t i = 0; i < half; ++i) {
    // As in ORO's GenDot, the first term has the top exponent: S is then about 2^top whatever
    // the draws, so S / c stays far above the underflow threshold.
    int e = i == 0 ? top : top - static_cast<int>(rx.below(static_cast<uint64_t>(span) + 1, i, 1));
    if (!dot) {
      x[i] = gen::scale2(rx.uniform_sym(i), e);
    } else {
      int ex = e / 2;
      x[i] = gen::scale2(rx.uniform_sym(i), ex);
      y[i] = gen::scale2(ry.uniform_sym(i), e - ex);
    }
    account(i);
  }

  // Second half: targets t_j = r 2^E_j with E_j falling linearly from 40 bits below the
  // current value to log2(S / c), never above the first half's top. A step leaves a rounding
  // error of about 2^-53 of the current value, so no target is set more than kMaxDrop bits
  // below it: with too few terms for a huge c the result falls short of c instead of
  // collapsing to an exact zero.
  auto reachable = [&](double s) { return s != 0 ? exponent_of(std::fabs(s)) - kMaxDrop : -1100; };
  const double s0 = exact.approx();
  const double level0 = s0 != 0 ? std::log2(std::fabs(s0)) : top;
  const double level_end = std::log2(mass / c);
  const double level_start = std::max(level0 - 40, level_end);
  for (int64_t j = 1; j < rest; ++j) {
    const int64_t i = half + j - 1;
    const double s = exact.approx();
    const double planned = std::min<double>(level_start + (level_end - level_start) * j / rest, top);
    const int level = std::max(round_to_int(planned), reachable(s));
    steer(i, s, gen::scale2(rt.uniform_sym(i), level), gen::pow2(level));
  }
  // Last term: t of sign opposite to s, so |x_n y_n| = |t| + |s| and the final mass is
  // S' = S + |s| + |t|; |t| = S' / c gives |t| = (S + |s|) / (c - 1).
  const int64_t last = n - 1;
  const double s = exact.approx();
  const double t_abs = std::max((mass + std::fabs(s)) / (c - 1), gen::scale2(1.0, reachable(s)));
  const bool t_negative = s != 0 ? s > 0 : (rt.u64(last, 1) & 1);
  steer(last, s, t_negative ? -t_abs : t_abs, std::max(t_abs, std::fabs(s)));
}

// x[i] = sx[perm(i)] (and y) for a Feistel permutation: the final shuffle of GenDot, threaded.
void shuffle_into(const GenSpec& spec, const std::vector<double>& sx, const std::vector<double>& sy, double* x,
                  double* y) {
  const rng::FeistelPermutation perm(static_cast<uint64_t>(spec.n), spec.seed, gen::kStreamPerm);
  datasets_detail::parallel_chunks(spec.n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const uint64_t j = perm(static_cast<uint64_t>(i));
      x[i] = sx[j];
      if (y) y[i] = sy[j];
    }
  });
}

}  // namespace

void generate_illcond(const GenSpec& spec, double* x, double* y) {
  const bool dot = y != nullptr;
  if (spec.n == 1) {  // one term: S / |s| = 1 whatever the target
    const rng::CounterRng rx(spec.seed, gen::kStreamX), ry(spec.seed, gen::kStreamY);
    x[0] = 1.0 + rx.uniform(0);
    if (dot) y[0] = 1.0 + ry.uniform(0);
    return;
  }
  std::vector<double> sx(spec.n), sy(dot ? spec.n : 0);
  if (spec.cond < kLowCond)
    low_condition(spec, sx.data(), dot ? sy.data() : nullptr);
  else
    cancellation(spec, sx.data(), dot ? sy.data() : nullptr);
  shuffle_into(spec, sx, sy, x, y);
}

}  // namespace accsum
