#include "core/oracle/gemm_oracle.hpp"

#include "core/numerics/float_entry.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

namespace accsum {
namespace {

int oracle_threads() {
  if (const char* s = std::getenv("ACCSUM_THREADS")) {
    int t = std::atoi(s);
    if (t > 0) return t;
  }
  unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h);
}

// 1 ulp of F at x's binade (subnormal spacing below the smallest normal).
template <class F>
double ulp_of(double x) {
  constexpr int kDigits = std::numeric_limits<F>::digits, kMaxExp = std::numeric_limits<F>::max_exponent;
  constexpr double kMinNormal = std::numeric_limits<F>::min(), kSubnormal = std::numeric_limits<F>::denorm_min();
  double a = std::fabs(x);
  if (!(a >= kMinNormal)) return kSubnormal;
  int e;
  std::frexp(a, &e);  // a = f 2^e, f in [0.5, 1)
  if (e > kMaxExp) e = kMaxExp;
  return std::ldexp(1.0, e - kDigits);
}

// The float entry: float products are exact doubles (alpha*a too); returns RN_float(exact).
struct FloatEntry {
  float alpha, beta;
  float operator()(const float* ai, const float* bj, int64_t K, const float* c, Superacc& acc, double* hi, double* lo,
                   double* mass_out, double* gold_out) const {
    acc.clear();
    double mass = 0, gold = 0;
    if (alpha != 0.0f) {
      for (int64_t k = 0; k < K; ++k) {
        add_float_product(acc, ai[k], bj[k], alpha);
        gold += static_cast<double>(ai[k] * bj[k]);
        mass += std::fabs(static_cast<double>(alpha) * ai[k] * bj[k]);  // alpha = 1: exact
      }
      gold *= alpha;
    }
    if (beta != 0.0f) {
      const double bc = static_cast<double>(beta) * *c;  // exact
      acc.add(bc);
      mass += std::fabs(bc);
      gold += bc;
    }
    *mass_out = mass;
    *gold_out = gold;
    return superacc_to_float(acc, hi, lo);
  }
};

// |alpha a| at or above this keeps TwoProduct(alpha, a) exact (its error term is representable).
constexpr double kTwoProductFloor = 0x1p-969;
constexpr mpfr_prec_t kTermPrec = 160;  // alpha*a*b: 3 x 53 bits, exact

// The dgemm entry of finite data by MPFR (the header comment); hi = RN(exact), lo = RN(exact - hi).
void mpfr_entry(const double* ai, const double* bj, int64_t K, double alpha, double beta, double c, double* hi,
                double* lo) {
  std::vector<__mpfr_struct> terms(static_cast<size_t>(K + 1));
  std::vector<mpfr_ptr> ptr;
  mpfr_exp_t emin = 0, emax = 0;
  bool any = false;
  auto add = [&](double x, double y, double z) {
    mpfr_ptr t = &terms[ptr.size()];
    mpfr_init2(t, kTermPrec);
    mpfr_set_d(t, x, MPFR_RNDN);
    mpfr_mul_d(t, t, y, MPFR_RNDN);  // exact at kTermPrec
    mpfr_mul_d(t, t, z, MPFR_RNDN);
    ptr.push_back(t);
    if (!mpfr_zero_p(t)) {
      const mpfr_exp_t e = mpfr_get_exp(t);
      emin = any ? std::min(emin, e) : e;
      emax = any ? std::max(emax, e) : e;
      any = true;
    }
  };
  if (alpha != 0)
    for (int64_t k = 0; k < K; ++k) add(alpha, ai[k], bj[k]);
  if (beta != 0) add(beta, c, 1.0);
  // Every term is an integer multiple of 2^(emin - kTermPrec) below 2^emax: the sum's bits fit.
  const mpfr_prec_t prec = static_cast<mpfr_prec_t>(emax - emin) + kTermPrec + 66;
  mpfr_t sum, rest;
  mpfr_init2(sum, any ? prec : kTermPrec);
  mpfr_sum(sum, ptr.data(), static_cast<unsigned long>(ptr.size()), MPFR_RNDN);  // exact
  *hi = mpfr_get_d(sum, MPFR_RNDN);
  *lo = 0;
  if (std::isfinite(*hi)) {
    mpfr_init2(rest, mpfr_get_prec(sum) + 1100);
    mpfr_sub_d(rest, sum, *hi, MPFR_RNDN);  // exact
    *lo = mpfr_get_d(rest, MPFR_RNDN);
    mpfr_clear(rest);
  }
  mpfr_clear(sum);
  for (mpfr_ptr t : ptr) mpfr_clear(t);
}

// The double entry: returns RN_double(exact).
struct DoubleEntry {
  double alpha, beta;
  double operator()(const double* ai, const double* bj, int64_t K, const double* c, SuperaccDot& acc, double* hi,
                    double* lo, double* mass_out, double* gold_out) const {
    acc.clear();
    double mass = 0;
    bool inexact = false, special_input = false;  // a TwoProduct would not be exact; NaN or infinity given
    if (alpha != 0) {
      for (int64_t k = 0; k < K; ++k) {
        const double a = ai[k], b = bj[k];
        special_input |= !std::isfinite(a) || !std::isfinite(b);
        mass += std::fabs(alpha * a * b);
        if (!std::isfinite(b) && std::isfinite(a)) {  // IEEE: only the signs of alpha*a and b, or a zero, matter
          acc.add_product(a == 0 ? a : std::copysign(1.0, alpha) * std::copysign(1.0, a), b);
          continue;
        }
        if (alpha == 1 || !std::isfinite(a) || a == 0) {
          acc.add_product(alpha * a, b);  // exact, IEEE for NaN / infinities
          continue;
        }
        const double h = alpha * a, l = std::fma(alpha, a, -h);  // TwoProduct: alpha*a = h + l
        if (!std::isfinite(h) || std::fabs(h) < kTwoProductFloor) {
          inexact = true;
          continue;
        }
        acc.add_product(h, b);
        if (l != 0) acc.add_product(l, b);
      }
    }
    if (beta != 0) {
      special_input |= !std::isfinite(*c);
      acc.add_product(beta, *c);
      mass += std::fabs(beta * *c);
    }
    *mass_out = mass;
    *gold_out = 0;
    if (inexact && !special_input) {
      mpfr_entry(ai, bj, K, alpha, beta, *c, hi, lo);
      return *hi;
    }
    *hi = acc.round();
    *lo = 0;
    if (std::isfinite(*hi)) {
      SuperaccDot rest = acc;
      rest.add(-*hi);
      *lo = rest.round();
    }
    return *hi;
  }
};

template <class F>
struct EntryOf {
  using type = FloatEntry;
  using Acc = Superacc;
};
template <>
struct EntryOf<double> {
  using type = DoubleEntry;
  using Acc = SuperaccDot;
};

}  // namespace

float superacc_to_float(const Superacc& acc, double* hi_out, double* lo_out) {
  return superacc_round_float(acc, hi_out, lo_out);
}

template <class F>
ExactValue exact_gemm(const Dataset& d) {
  auto ex = std::make_shared<GemmExactOf<F>>();
  const int64_t M = d.rows, N = d.cols, K = d.inner;
  ex->rows = M;
  ex->cols = N;
  ex->inner = K;
  const typename EntryOf<F>::type entry{data_scalar<F>(d.data, "alpha", F(1)), data_scalar<F>(d.data, "beta", F(0))};
  const std::vector<F>&a = d.*MatricesOf<F>::a, &b = d.*MatricesOf<F>::b, &c = d.*MatricesOf<F>::c;
  const double products = double(M) * double(N) * double(K);
  int64_t judged = N;
  if (products > kGemmOracleBudget)
    judged = std::max<int64_t>(1, static_cast<int64_t>(kGemmOracleBudget / (double(M) * K)));
  judged = std::min(judged, N);
  for (int64_t t = 0; t < judged; ++t) ex->columns.push_back(judged == N ? t : t * N / judged);
  const size_t entries = static_cast<size_t>(M * judged);
  ex->ref.resize(entries);
  ex->hi.resize(entries);
  ex->lo.resize(entries);
  ex->mass.resize(entries);
  ex->gold.resize(entries);
  ex->special.resize(entries);

  // A in row-major order, so that row i is contiguous.
  std::vector<F> at(static_cast<size_t>(M * K));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < M; ++i) at[i * K + k] = a[i + k * M];

  auto work = [&](int64_t t0, int64_t t1) {
    typename EntryOf<F>::Acc acc;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t j = ex->columns[t];
      const F* bj = b.data() + j * K;
      for (int64_t i = 0; i < M; ++i) {
        const size_t e = static_cast<size_t>(i + t * M);
        ex->ref[e] = entry(at.data() + i * K, bj, K, c.data() + i + j * M, acc, &ex->hi[e], &ex->lo[e], &ex->mass[e],
                           &ex->gold[e]);
        ex->special[e] = !std::isfinite(ex->hi[e]);
      }
    }
  };
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(oracle_threads(), judged)));
  std::vector<std::thread> pool;
  for (int th = 1; th < threads; ++th) pool.emplace_back(work, judged * th / threads, judged * (th + 1) / threads);
  work(0, judged / threads);
  for (auto& p : pool) p.join();

  ExactValue v;
  double sum_mass = 0, sum_abs = 0, max_abs = 0, max_mass = 0;
  for (size_t e = 0; e < entries; ++e) {
    if (ex->special[e]) {
      v.special = true;
      continue;
    }
    sum_mass += ex->mass[e];
    sum_abs += std::fabs(ex->hi[e]);
    max_abs = std::max(max_abs, std::fabs(ex->hi[e]));
    max_mass = std::max(max_mass, ex->mass[e]);
  }
  v.rounded = entries ? ex->ref[0] : 0.0;
  v.hex = entries ? fmt::format("{}x{}x{}, C[0,0] = {}", M, N, K, hex_double(ex->ref[0]))
                  : fmt::format("{}x{}x{}", M, N, K);
  v.decimal = entries ? fmt::format("{:.17g}", ex->hi[0] + ex->lo[0]) : "0";
  v.abs_sum = max_abs;
  v.sum_abs = max_mass;
  v.cond = sum_abs > 0 ? sum_mass / sum_abs : (sum_mass > 0 ? INFINITY : 1.0);
  v.cond_definition = "sum over judged entries of (sum_k |alpha a_ik b_kj| + |beta c_ij|) / sum of |exact c_ij|";
  const char* type = sizeof(F) == 4 ? "float" : "double";
  v.method = judged == N
                 ? fmt::format("exact superaccumulator (Collange et al. 2015) on every entry, rounded once to {}", type)
                 : fmt::format(
                       "exact superaccumulator on {} of {} columns (evenly spaced sample), rounded "
                       "once to {}",
                       judged, N, type);
  v.facts.n = K;
  v.facts.abs_sum = max_abs;
  v.facts.sum_abs = max_mass;
  v.exact = ex;
  return v;
}

template <class F>
Metrics measure_gemm(const Result& r, const ExactValue& ref) {
  auto ex = std::static_pointer_cast<const GemmExactOf<F>>(ref.exact);
  if (!ex) throw std::logic_error("gemm metrics need the gemm oracle");
  const int64_t M = ex->rows;
  // A result may carry an error bound per row after its entries (sgemm-ozaki: Result::what
  // "entries+row_bounds"): every judged entry must lie within its row's bound plus half an ulp of
  // itself (families/gemm/ozaki_bound.hpp).
  const bool row_bounds = r.what == "entries+row_bounds";
  const size_t entries = static_cast<size_t>(M * ex->cols);
  if (r.values.size() != entries + (row_bounds ? static_cast<size_t>(M) : 0))
    throw std::logic_error(fmt::format("gemm result has {} values, expected {}", r.values.size(), M * ex->cols));
  double bound_max = 0, err_over_bound = 0, bound_over_gamma_mass = 0;
  int64_t bound_violations = 0;
  const double ku = static_cast<double>(ex->inner) * std::ldexp(1.0, -std::numeric_limits<F>::digits),
               gamma_k = ku < 1 ? ku / (1 - ku) : INFINITY;
  const auto float_ulp = ulp_of<F>;
  Metrics m;
  m.value = r.values.empty() ? 0.0 : r.values[0];
  m.hex = hex_double(m.value);
  double sum_err = 0, err_min = 0, err_max = 0, max_mass = 0, gold_sum = 0, gold_min = 0, gold_max = 0;
  double gold_self = 0;
  int64_t finite = 0, cr = 0, faithful = 0;
  bool specials_ok = true, all_cr = true, all_faithful = true;
  m.digits = 16;
  for (size_t t = 0; t < ex->columns.size(); ++t) {
    const int64_t j = ex->columns[t];
    for (int64_t i = 0; i < M; ++i) {
      const size_t e = static_cast<size_t>(i + t * M);
      const double v = r.values[static_cast<size_t>(i + j * M)];
      const double want = ex->ref[e];
      if (ex->special[e]) {
        if (!((std::isnan(v) && std::isnan(want)) || v == want)) specials_ok = false;
        continue;
      }
      ++finite;
      const double hi = ex->hi[e], lo = ex->lo[e];
      const double err = std::isfinite(v) ? (v - hi) - lo : (v > 0 ? INFINITY : std::isnan(v) ? NAN : -INFINITY);
      const double aerr = std::isnan(err) ? INFINITY : std::fabs(err);
      sum_err += aerr;
      err_min = std::min(err_min, std::isnan(err) ? -INFINITY : err);
      err_max = std::max(err_max, std::isnan(err) ? INFINITY : err);
      m.abs_err = std::max(m.abs_err, aerr);
      m.ulps = std::max(m.ulps, aerr / float_ulp(want));
      const double rel = hi != 0 ? aerr / std::fabs(hi) : (aerr == 0 ? 0 : INFINITY);
      m.rel_err = std::max(m.rel_err, rel);
      m.digits = std::min(m.digits, rel == 0 ? 16.0 : std::clamp(-std::log10(rel), 0.0, 16.0));
      max_mass = std::max(max_mass, ex->mass[e]);
      if (row_bounds && std::isfinite(v)) {
        const double bound = r.values[entries + static_cast<size_t>(i)] + 0.5 * float_ulp(v);
        bound_max = std::max(bound_max, r.values[entries + static_cast<size_t>(i)]);
        err_over_bound = std::max(err_over_bound, bound > 0 ? aerr / bound : (aerr > 0 ? INFINITY : 0.0));
        bound_violations += aerr > bound * (1 + 0x1p-40);  // slack: the rounding of err itself
        if (ex->mass[e] > 0) bound_over_gamma_mass = std::max(bound_over_gamma_mass, bound / (gamma_k * ex->mass[e]));
      }
      const bool is_cr = v == want;
      // Faithful: v is one of the two floats bracketing the exact value.
      const double side = hi != want ? hi - want : lo;
      const F fw = static_cast<F>(want);
      const bool is_f = is_cr || (side > 0 && v == static_cast<double>(std::nextafter(fw, F(INFINITY)))) ||
                        (side < 0 && v == static_cast<double>(std::nextafter(fw, -F(INFINITY))));
      cr += is_cr;
      faithful += is_f;
      all_cr &= is_cr;
      all_faithful &= is_f;
      const double gerr = v - ex->gold[e];
      gold_sum += std::fabs(gerr);
      gold_min = std::min(gold_min, gerr);
      gold_max = std::max(gold_max, gerr);
      gold_self = std::max(gold_self, std::fabs((ex->gold[e] - hi) - lo));
    }
  }
  // On data with NaN or infinities the judged property is IEEE propagation: each entry whose
  // exact result is NaN / an infinity must be NaN / that infinity (finite entries are measured).
  m.correctly_rounded = ref.special ? specials_ok : all_cr;
  m.faithful = ref.special ? specials_ok : all_faithful;
  const double nf = finite > 0 ? static_cast<double>(finite) : 1.0;
  m.extra = {{"avg_abs_err", sum_err / nf},
             {"err_min", err_min},
             {"err_max", err_max},
             {"normwise_rel_err", max_mass > 0 ? m.abs_err / max_mass : (m.abs_err > 0 ? INFINITY : 0.0)},
             {"share_correctly_rounded", cr / nf},
             {"share_faithful", faithful / nf}};
  if (sizeof(F) == 4)  // the paper's gold standard is defined for float products
    m.extra.insert(m.extra.end(), {{"gold_avg_abs_err", gold_sum / nf},
                                   {"gold_err_min", gold_min},
                                   {"gold_err_max", gold_max},
                                   {"gold_max_abs_err_vs_exact", gold_self}});
  m.extra.push_back({"judged_entries", static_cast<double>(finite)});
  if (row_bounds)
    m.extra.insert(m.extra.end(), {{"row_bound_max", bound_max},
                                   {"err_over_bound_max", err_over_bound},
                                   {"bound_violations", static_cast<double>(bound_violations)},
                                   {"bound_over_gamma_k_mass_max", bound_over_gamma_mass}});
  return m;
}

template ExactValue exact_gemm<float>(const Dataset&);
template ExactValue exact_gemm<double>(const Dataset&);
template Metrics measure_gemm<float>(const Result&, const ExactValue&);
template Metrics measure_gemm<double>(const Result&, const ExactValue&);

}  // namespace accsum
