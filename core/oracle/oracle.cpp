// The exact oracle. Sums of doubles are accumulated exactly in MPFR: every double is a
// multiple of 2^-1074 below 2^1024, so a sum of n < 2^64 of them fits in 1074 + 1024 + 64 bits;
// an exact product of two doubles lies in [2^-2148, 2^2048), so a dot product fits in
// 2148 + 2048 + 64 bits. mpfr_sum (exact, correctly rounded) adds each chunk; chunks are merged
// with exact mpfr_add. Special values and the sign of zero follow IEEE 754 and are decided
// from flags, not from MPFR.
#include "core/oracle/oracle.hpp"

#include <stdexcept>

#include <mpfr.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace accsum {

double Result::scalar() const {
  if (values.size() != 1) throw std::logic_error("result has " + std::to_string(values.size()) + " values, not one");
  return values[0];
}
namespace {

constexpr mpfr_prec_t kSumPrec = 2240;  // > 1074 + 1024 + 64
constexpr mpfr_prec_t kDotPrec = 4352;  // > 2148 + 2048 + 64
constexpr int64_t kChunk = 2048;

struct Mpfr {
  mpfr_t v;
  explicit Mpfr(mpfr_prec_t p) {
    mpfr_init2(v, p);
    mpfr_set_zero(v, 1);
  }
  ~Mpfr() { mpfr_clear(v); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
};

// Exact running state of one slice of the data.
struct Partial {
  explicit Partial(mpfr_prec_t p) : sum(p), abs(p) {}
  Mpfr sum, abs;
  bool nan = false, pinf = false, ninf = false;
  bool all_neg_zero = true;  // every term seen is -0 (decides the sign of an exact zero)
  int64_t count = 0;
  double max_x = 0, max_y = 0;  // over finite elements
  double min_x = INFINITY;      // over finite nonzero x
  bool products_underflow = false;
};

void accumulate(Partial& acc, const double* x, const double* y, int64_t n, mpfr_prec_t prec) {
  const bool dot = y != nullptr;
  const mpfr_prec_t term_prec = dot ? 106 : 53;  // a product of two doubles is exact in 106 bits
  std::vector<Mpfr*> terms;
  std::vector<mpfr_ptr> ptrs, abs_ptrs;
  for (int64_t i = 0; i < std::min<int64_t>(n, kChunk); ++i) terms.push_back(new Mpfr(term_prec));
  std::vector<Mpfr*> abs_terms;
  for (int64_t i = 0; i < std::min<int64_t>(n, kChunk); ++i) abs_terms.push_back(new Mpfr(term_prec));
  Mpfr chunk_sum(prec), chunk_abs(prec);
  for (int64_t base = 0; base < n; base += kChunk) {
    int64_t len = std::min(kChunk, n - base);
    ptrs.clear();
    abs_ptrs.clear();
    for (int64_t i = 0; i < len; ++i) {
      double a = x[base + i];
      double t = a;
      if (std::isfinite(a)) acc.max_x = std::max(acc.max_x, std::fabs(a));
      if (std::isfinite(a) && a != 0) acc.min_x = std::min(acc.min_x, std::fabs(a));
      if (dot) {
        double b = y[base + i];
        if (std::isfinite(b)) acc.max_y = std::max(acc.max_y, std::fabs(b));
        if (std::isnan(a) || std::isnan(b) || (std::isinf(a) && b == 0) || (std::isinf(b) && a == 0)) {
          acc.nan = true;
          continue;
        }
        if (std::isinf(a) || std::isinf(b)) {
          (std::signbit(a) != std::signbit(b) ? acc.ninf : acc.pinf) = true;
          continue;
        }
        if (a == 0 || b == 0) {
          if (std::signbit(a) == std::signbit(b)) acc.all_neg_zero = false;
          continue;
        }
        acc.all_neg_zero = false;
        mpfr_set_d(terms[i]->v, a, MPFR_RNDN);
        mpfr_mul_d(terms[i]->v, terms[i]->v, b, MPFR_RNDN);  // exact at 106 bits
        if (mpfr_get_exp(terms[i]->v) <= std::ilogb(kExactProductMin)) acc.products_underflow = true;  // below 2^-969
      } else {
        if (std::isnan(t)) {
          acc.nan = true;
          continue;
        }
        if (std::isinf(t)) {
          (t < 0 ? acc.ninf : acc.pinf) = true;
          continue;
        }
        if (!(t == 0 && std::signbit(t))) acc.all_neg_zero = false;
        if (t == 0) continue;
        mpfr_set_d(terms[i]->v, t, MPFR_RNDN);
      }
      mpfr_abs(abs_terms[i]->v, terms[i]->v, MPFR_RNDN);
      ptrs.push_back(terms[i]->v);
      abs_ptrs.push_back(abs_terms[i]->v);
    }
    acc.count += len;
    if (ptrs.empty()) continue;
    mpfr_sum(chunk_sum.v, ptrs.data(), ptrs.size(), MPFR_RNDN);  // exact: prec suffices
    mpfr_sum(chunk_abs.v, abs_ptrs.data(), abs_ptrs.size(), MPFR_RNDN);
    mpfr_add(acc.sum.v, acc.sum.v, chunk_sum.v, MPFR_RNDN);
    mpfr_add(acc.abs.v, acc.abs.v, chunk_abs.v, MPFR_RNDN);
  }
  for (auto* t : terms) delete t;
  for (auto* t : abs_terms) delete t;
}

void merge(Partial& a, const Partial& b) {
  mpfr_add(a.sum.v, a.sum.v, b.sum.v, MPFR_RNDN);
  mpfr_add(a.abs.v, a.abs.v, b.abs.v, MPFR_RNDN);
  a.nan |= b.nan;
  a.pinf |= b.pinf;
  a.ninf |= b.ninf;
  a.all_neg_zero &= b.all_neg_zero;
  a.count += b.count;
  a.max_x = std::max(a.max_x, b.max_x);
  a.max_y = std::max(a.max_y, b.max_y);
  a.min_x = std::min(a.min_x, b.min_x);
  a.products_underflow |= b.products_underflow;
}

// RN to binary64 with gradual underflow and overflow, as IEEE 754 rounds an exact value.
double round_to_double(mpfr_srcptr v, mpfr_rnd_t rnd) {
  if (mpfr_zero_p(v)) return 0.0;
  // Round to 53 bits in the double's exponent range, then let subnormalize redo the rounding for
  // results below 2^-1022 (mpfr's documented recipe for emulating IEEE subnormals).
  // The 53-bit rounding happens in the default (wide) range; check_range then applies overflow
  // and underflow with the ternary value, so nothing is rounded twice.
  mpfr_t r;
  mpfr_init2(r, 53);
  int inex = mpfr_set(r, v, rnd);
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  inex = mpfr_check_range(r, inex, rnd);
  mpfr_subnormalize(r, inex, rnd);
  double d = mpfr_get_d(r, rnd);
  mpfr_clear(r);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return d;
}

std::string decimal_of(mpfr_srcptr v) {
  if (mpfr_zero_p(v)) return "0";
  mpfr_exp_t e;
  char* s = mpfr_get_str(nullptr, &e, 10, 40, v, MPFR_RNDN);
  std::string digits(s);
  mpfr_free_str(s);
  std::string sign;
  if (digits[0] == '-') {
    sign = "-";
    digits.erase(0, 1);
  }
  return sign + digits.substr(0, 1) + "." + digits.substr(1) + "e" + std::to_string(static_cast<long>(e) - 1);
}

struct ExactHolder {
  explicit ExactHolder(mpfr_prec_t p) { mpfr_init2(v, p); }
  ~ExactHolder() { mpfr_clear(v); }
  mpfr_t v;
};

// work(partial, begin, end) accumulates elements [begin, end) on up to 16 threads (one for
// small n); returns the merged state.
std::unique_ptr<Partial> reduce_threads(int64_t n, bool dot,
                                        const std::function<void(Partial&, int64_t, int64_t)>& work) {
  const mpfr_prec_t prec = dot ? kDotPrec : kSumPrec;
  int threads = 1;
  if (n >= (int64_t(1) << 16)) threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::unique_ptr<Partial>> parts;
  for (int t = 0; t < threads; ++t) parts.push_back(std::make_unique<Partial>(prec));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    int64_t b = n * t / threads, e = n * (t + 1) / threads;
    auto run = [&, t, b, e] { work(*parts[t], b, e); };
    if (t == threads - 1)
      run();
    else
      pool.emplace_back(run);
  }
  for (auto& th : pool) th.join();
  for (int t = 1; t < threads; ++t) merge(*parts[0], *parts[t]);
  return std::move(parts[0]);
}

ExactValue finish(const Partial& acc, bool dot, int64_t n);

ExactValue exact_reduce(const double* x, const double* y, int64_t n) {
  const mpfr_prec_t prec = y ? kDotPrec : kSumPrec;
  auto acc = reduce_threads(n, y != nullptr, [&](Partial& p, int64_t b, int64_t e) {
    accumulate(p, x + b, y ? y + b : nullptr, e - b, prec);
  });
  return finish(*acc, y != nullptr, n);
}

// Elements made slice by slice into per-thread buffers: exact with no array of n held.
ExactValue exact_reduce_generated(const FillFn& fill, int64_t n, bool dot) {
  constexpr int64_t kSlice = int64_t(1) << 16;
  const mpfr_prec_t prec = dot ? kDotPrec : kSumPrec;
  auto acc = reduce_threads(n, dot, [&](Partial& p, int64_t b, int64_t e) {
    std::vector<double> x(std::min(kSlice, e - b)), y(dot ? x.size() : 0);
    for (int64_t s = b; s < e; s += kSlice) {
      const int64_t len = std::min(kSlice, e - s);
      fill(s, s + len, x.data(), dot ? y.data() : nullptr);
      accumulate(p, x.data(), dot ? y.data() : nullptr, len, prec);
    }
  });
  return finish(*acc, dot, n);
}

ExactValue finish(const Partial& acc, bool dot, int64_t n) {
  const mpfr_prec_t prec = dot ? kDotPrec : kSumPrec;
  ExactValue r;
  auto holder = std::make_shared<ExactHolder>(prec);
  r.special = acc.nan || acc.pinf || acc.ninf;
  if (acc.nan || (acc.pinf && acc.ninf)) {
    mpfr_set_nan(holder->v);
    r.rounded = std::nan("");
  } else if (acc.pinf || acc.ninf) {
    mpfr_set_inf(holder->v, acc.pinf ? 1 : -1);
    r.rounded = acc.pinf ? INFINITY : -INFINITY;
  } else {
    mpfr_set(holder->v, acc.sum.v, MPFR_RNDN);
    if (mpfr_zero_p(acc.sum.v)) {
      bool neg = acc.count > 0 && acc.all_neg_zero;
      mpfr_set_zero(holder->v, neg ? -1 : 1);
      r.rounded = neg ? -0.0 : 0.0;
    } else {
      r.rounded = round_to_double(acc.sum.v, MPFR_RNDN);
    }
  }
  r.hex = hex_double(r.rounded);
  r.decimal = mpfr_nan_p(holder->v)   ? "nan"
              : mpfr_inf_p(holder->v) ? (mpfr_sgn(holder->v) > 0 ? "inf" : "-inf")
                                      : decimal_of(holder->v);
  if (r.special) {
    r.abs_sum = std::fabs(r.rounded);
    r.sum_abs = acc.nan ? std::nan("") : INFINITY;
    r.cond = std::nan("");
  } else {
    r.abs_sum = std::fabs(r.rounded);
    r.sum_abs = round_to_double(acc.abs.v, MPFR_RNDU);
    if (mpfr_zero_p(acc.abs.v)) {
      r.cond = 1.0;
    } else if (mpfr_zero_p(acc.sum.v)) {
      r.cond = INFINITY;
    } else {
      Mpfr q(53);  // one rounding: the quotient is rounded to 53 bits directly
      mpfr_div(q.v, acc.abs.v, acc.sum.v, MPFR_RNDN);
      mpfr_abs(q.v, q.v, MPFR_RNDN);
      r.cond = mpfr_get_d(q.v, MPFR_RNDN);  // exact (or +inf beyond the double range)
    }
  }
  r.cond_definition =
      dot ? "sum|x_i y_i| / |sum x_i y_i| (Ogita-Rump-Oishi's cond(x'y) is twice this)" : "sum|x_i| / |sum x_i|";
  r.method = dot ? "exact 106-bit products summed by MPFR mpfr_sum (4352 bits), rounded to nearest-even"
                 : "MPFR mpfr_sum, exact (2240-bit accumulator), rounded to nearest-even";
  r.facts.n = n;
  r.facts.abs_sum = r.abs_sum;
  r.facts.sum_abs = r.sum_abs;
  r.facts.max_abs_x = acc.max_x;
  r.facts.max_abs_y = acc.max_y;
  r.facts.min_abs_x = std::isfinite(acc.min_x) ? acc.min_x : 0.0;
  r.facts.products_underflow = acc.products_underflow;
  r.facts.partial_sums_may_overflow = !(r.sum_abs <= kOverflowSafeMass);
  r.exact = holder;
  return r;
}

mpfr_srcptr exact_of(const ExactValue& ref) { return static_cast<const ExactHolder*>(ref.exact.get())->v; }

}  // namespace

std::string hex_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

ExactValue exact_sum(const double* x, int64_t n) { return exact_reduce(x, nullptr, n); }
ExactValue exact_dot(const double* x, const double* y, int64_t n) { return exact_reduce(x, y, n); }
ExactValue exact_sum_generated(const FillFn& fill, int64_t n) { return exact_reduce_generated(fill, n, false); }
ExactValue exact_dot_generated(const FillFn& fill, int64_t n) { return exact_reduce_generated(fill, n, true); }

Metrics measure(double computed, const ExactValue& ref, double bound) {
  Metrics m;
  m.value = computed;
  m.hex = hex_double(computed);
  m.has_bound = bound >= 0;
  m.bound = m.has_bound ? bound : 0;
  const bool same_bits = (std::isnan(computed) && std::isnan(ref.rounded)) ||
                         (computed == ref.rounded && std::signbit(computed) == std::signbit(ref.rounded));
  m.correctly_rounded = same_bits;
  mpfr_srcptr exact = ref.exact ? exact_of(ref) : nullptr;
  const bool exact_finite = exact && mpfr_number_p(exact);
  if (!exact_finite || !std::isfinite(computed)) {
    // NaN / infinities: right or infinitely wrong.
    bool equal = same_bits || (std::isnan(computed) && std::isnan(ref.rounded));
    m.faithful = equal;
    m.abs_err = m.rel_err = m.ulps = equal && !exact_finite ? 0.0 : INFINITY;
    if (std::isnan(computed) != std::isnan(ref.rounded) || (!exact_finite && !equal))
      m.abs_err = m.rel_err = m.ulps = INFINITY;
    m.digits = equal ? 16.0 : 0.0;
    m.within_bound = m.has_bound && m.abs_err <= bound;
    return m;
  }
  Mpfr diff(kDotPrec + 64);
  mpfr_sub_d(diff.v, exact, computed, MPFR_RNDN);  // exact: precision covers both
  mpfr_abs(diff.v, diff.v, MPFR_RNDN);
  m.abs_err = mpfr_get_d(diff.v, MPFR_RNDU);
  m.within_bound = m.has_bound && mpfr_cmp_d(diff.v, bound) <= 0;
  if (mpfr_zero_p(exact)) {
    m.rel_err = mpfr_zero_p(diff.v) ? 0.0 : INFINITY;
  } else {
    Mpfr q(64);
    mpfr_div(q.v, diff.v, exact, MPFR_RNDN);
    mpfr_abs(q.v, q.v, MPFR_RNDN);
    m.rel_err = mpfr_get_d(q.v, MPFR_RNDN);
  }
  // The ulp of RN(exact). When the exact value is finite but rounds to +-inf (it reaches
  // DBL_MAX + ulp(DBL_MAX)/2), the ulp is that of DBL_MAX, 2^971: a finite result is then a
  // finite number of ulps off, never 0 ulps.
  double rn = std::isinf(ref.rounded) ? std::copysign(DBL_MAX, ref.rounded) : ref.rounded;
  double ulp = std::max(0x1p-1074, rn == 0 ? 0x1p-1074 : std::ldexp(1.0, std::ilogb(rn) - 52));
  {
    Mpfr q(64);
    mpfr_div_d(q.v, diff.v, ulp, MPFR_RNDN);
    m.ulps = mpfr_get_d(q.v, MPFR_RNDN);
  }
  m.digits = m.rel_err == 0 ? 16.0 : std::clamp(-std::log10(m.rel_err), 0.0, 16.0) + 0.0;  // no -0
  double down = round_to_double(exact, MPFR_RNDD), up = round_to_double(exact, MPFR_RNDU);
  m.faithful = computed == down || computed == up;
  return m;
}

}  // namespace accsum
