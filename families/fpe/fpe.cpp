// The fpe family: n independent additions or multiplications of pairs of R-term floating-point
// expansions (Collange, Joldes, Muller, Popescu, "Parallel floating-point expansions for
// extended-precision GPU computations", ASAP 2016, Sec. VI: the workload of its Tables I-IV),
// judged pair by pair against the exact MPFR sum or product.
//
// Layout: x and y hold n*R doubles, pair k being x[k*R .. k*R+R) and y[k*R .. k*R+R), most
// significant term first; Dataset::data["R"] = R. A result is n*R doubles in the same layout,
// with Result::what = "sum" or "product" (the same data serve both operations).
#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "core/frame/family.hpp"
#include "families/fpe/family_fpe.hpp"
#include "families/fpe/fpe_ops.hpp"
#include "datasets/dataset.hpp"
#include "datasets/rng.hpp"

namespace accsum {
namespace {

constexpr int64_t kAccuracyMaxPairs = int64_t(1) << 14;  // pairs per row of the accuracy table
constexpr int kSpeedReps = 5;                            // timed runs per cell of Tables I-IV

int r_option(const Params& o) {
  auto it = o.find("R");
  if (it == o.end()) return 4;
  char* end = nullptr;
  long v = std::strtol(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end || !fpe::valid_r(static_cast<int>(v)))
    throw UsageError("--R '" + it->second + "' must be one of 2, 4, 8, 16, 32");
  return static_cast<int>(v);
}

// x, y, the oracle's copy and a result: about 3.5 arrays of n*R doubles.
double fpe_bytes(int64_t n, int R) { return 3.5 * 8.0 * static_cast<double>(n) * R * 2; }

double mem_available() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024.0;
  return -1;
}

// One random ulp-nonoverlapping expansion of R terms (fpe_expansion's shape below).
struct Shape {
  int e0;       // exponent of the leading term
  int max_gap;  // extra binades between consecutive terms: 0..max_gap
  bool zeros;   // interleaved and trailing zeros
};

// Term i (i >= 1) sits below the previous nonzero term t: either exactly ulp(t) (the one-bit
// overlap that Def. II.2 allows, 1 time in 8) or a random 53-bit significand with exponent
// E(t) - 53 - gap, so |x_i| < ulp(t). Terms that would fall below 2^-1021 are left zero.
void make_expansion(const rng::CounterRng& g, uint64_t idx, int R, const Shape& s, double* out) {
  uint64_t base = idx * 64;
  int e = s.e0;
  double prev = 0;
  for (int i = 0; i < R; ++i) {
    const uint64_t k = base + static_cast<uint64_t>(i);
    const double sign = (g.u64(k, 1) & 1) ? -1.0 : 1.0;
    double v;
    if (i > 0 && g.below(8, k, 2) == 0) {
      v = std::ldexp(1.0, std::ilogb(prev) - 52);  // ulp(prev): one bit of overlap
    } else {
      if (i > 0) e = std::ilogb(prev) - 53 - static_cast<int>(g.below(static_cast<uint64_t>(s.max_gap) + 1, k, 3));
      const double m = static_cast<double>((g.u64(k, 4) >> 11) | (uint64_t(1) << 52));  // [2^52, 2^53)
      v = std::ldexp(m, e - 52);
    }
    if (std::ilogb(v) < -1021) v = 0;
    if (v == 0) {
      for (int j = i; j < R; ++j) out[j] = 0;
      return;
    }
    prev = v;
    out[i] = sign * v;
  }
  if (s.zeros) {
    // Interleaved zeros (1 term in 3 after the first), sometimes a zero tail or a zero expansion.
    for (int i = 1; i < R; ++i)
      if (g.below(3, base + i, 5) == 0) out[i] = 0;
    const uint64_t kind = g.below(8, base, 6);
    if (kind == 0) std::fill(out, out + R, 0.0);
    if (kind == 1) std::fill(out + 1 + g.below(static_cast<uint64_t>(R), base, 7) % R, out + R, 0.0);
    if (kind == 2) out[0] = 0;  // a leading zero: still an expansion (Def. II.1 ignores zeros)
  }
}

// Leading exponents for pairs of R-term expansions with gaps <= max_gap: every product x_i y_j
// with i + j <= R-1 stays above 2^-969 (2MultFMA exact) and x_0 y_0 below 2^1020.
void exponent_range(int R, int max_gap, int& lo, int& hi) {
  hi = 508;
  lo = static_cast<int>(std::ceil((-968.0 + (53.0 + max_gap) * (R - 1)) / 2.0)) + 1;
}

// Largest gap keeping exponent_range non-empty: (53 + gap)(R - 1) <= 1981.
int max_gap_of(const std::string& dist, int R) {
  const int fits = 1981 / (R - 1) - 53;
  return std::min(dist == "wide" ? 120 : 3, fits);
}

Dataset generate_fpe(const GenSpec& spec) {
  const std::vector<std::string>& dists = fpe_dist_names();
  if (std::find(dists.begin(), dists.end(), spec.dist) == dists.end())
    throw UsageError("unknown --dist '" + spec.dist +
                     "' for the fpe family (known: random, cancel, wide, zeros, specials)");
  for (auto& [k, v] : spec.options)
    if (k != "R") throw UsageError("the fpe family has no data option --" + k);
  const int R = r_option(spec.options);
  if (spec.n < 0) throw UsageError("--n must be >= 0");
  const double need = fpe_bytes(spec.n, R);
  const double avail = mem_available();
  if (need > 0x1p62 || (avail >= 0 && need > 0.9 * avail))
    throw UsageError(
        fmt::format("n = {} pairs of {}-term expansions need {:.3g} GB but only {:.3g} GB of memory is available",
                    spec.n, R, need * 1e-9, std::max(avail, 0.0) * 1e-9));
  Dataset d;
  d.family = "fpe";
  d.generator = spec.dist;
  d.seed = spec.seed;
  d.n = spec.n;
  d.id = next_dataset_id();
  d.data["R"] = std::to_string(R);
  d.x.resize(static_cast<size_t>(spec.n) * R);
  d.y.resize(static_cast<size_t>(spec.n) * R);
  const rng::CounterRng gx(spec.seed, 10), gy(spec.seed, 11), gp(spec.seed, 12);
  const int gap = max_gap_of(spec.dist, R);
  int lo, hi;
  exponent_range(R, gap, lo, hi);
  for (int64_t k = 0; k < spec.n; ++k) {
    const uint64_t u = static_cast<uint64_t>(k);
    double* x = &d.x[static_cast<size_t>(k) * R];
    double* y = &d.y[static_cast<size_t>(k) * R];
    Shape sx{lo + static_cast<int>(gp.below(static_cast<uint64_t>(hi - lo + 1), u, 0)), gap, spec.dist == "zeros"};
    Shape sy = sx;
    sy.e0 = lo + static_cast<int>(gp.below(static_cast<uint64_t>(hi - lo + 1), u, 1));
    if (spec.dist != "wide" && gp.below(2, u, 2) == 0)  // close magnitudes half of the time
      sy.e0 = std::clamp(sx.e0 + static_cast<int>(gp.below(5, u, 3)) - 2, lo, hi);
    make_expansion(gx, u, R, sx, x);
    make_expansion(gy, u, R, sy, y);
    if (spec.dist == "cancel") {
      // y = -x on its first m terms, then fresh terms below ulp(x_{m-1}): x + y cancels the
      // leading m terms exactly (m = R: y = -x except the last term, scaled by 1 - 2^-20).
      const int m = 1 + static_cast<int>(gp.below(static_cast<uint64_t>(R), u, 4));
      for (int i = 0; i < m; ++i) y[i] = -x[i];
      if (m == R) {
        y[R - 1] = -x[R - 1] * (1 - 0x1p-20);
      } else if (x[m - 1] == 0) {
        for (int i = m; i < R; ++i) y[i] = 0;  // x ends in zeros: so does y = -x
      } else {
        Shape st{std::ilogb(x[m - 1]) - 53 - static_cast<int>(gp.below(3, u, 5)), gap, false};
        double tail[fpe::kMaxR];
        make_expansion(gy, u + (uint64_t(1) << 40), R - m, st, tail);
        for (int i = m; i < R; ++i) y[i] = std::ilogb(tail[i - m]) >= -1021 ? tail[i - m] : 0.0;
      }
    }
    if (spec.dist == "specials") {
      // IEEE special values in the leading terms of one pair in four: +-inf, NaN, inf - inf.
      const double inf = std::numeric_limits<double>::infinity();
      switch (gp.below(8, u, 6)) {
        case 0:
          x[0] = inf;
          break;
        case 1:
          y[0] = -inf;
          break;
        case 2:
          x[0] = std::numeric_limits<double>::quiet_NaN();
          break;
        case 3:
          x[0] = inf, y[0] = -inf;
          break;
        default:
          break;
      }
    }
  }
  return d;
}

// ---- the oracle ----

struct FpeExact {
  int R = 0;
  int64_t n = 0;
  std::vector<double> x, y;
};

double ulp_of(double v) { return std::ldexp(1.0, std::max(std::ilogb(v), -1022) - 52); }

// Def. II.2 on the nonzero terms.
bool ulp_nonoverlapping(const double* v, int R) {
  double prev = 0;
  for (int i = 0; i < R; ++i) {
    if (v[i] == 0) continue;
    if (!std::isfinite(v[i])) return false;
    if (prev != 0 && std::fabs(v[i]) > ulp_of(prev)) return false;
    prev = v[i];
  }
  return true;
}

ExactValue oracle_fpe(const Dataset& d) {
  // A dataset made by hand with no pairs (e.g. verify's empty case) need not say its R.
  auto rit = d.data.find("R");
  if (rit == d.data.end() && d.n > 0) throw std::logic_error("an fpe dataset needs data R");
  const int R = rit == d.data.end() ? 2 : std::atoi(rit->second.c_str());
  auto ex = std::make_shared<FpeExact>();
  ex->R = R;
  ex->n = d.n;
  ex->x = d.x;
  ex->y = d.y;
  ExactValue v;
  v.facts.n = d.n;
  bool overflow = false, mul_underflow = false, decay = false, invalid = false;
  for (int64_t k = 0; k < d.n; ++k) {
    const double* x = &d.x[static_cast<size_t>(k) * R];
    const double* y = &d.y[static_cast<size_t>(k) * R];
    for (int i = 0; i < R; ++i) {
      if (!std::isfinite(x[i]) || !std::isfinite(y[i])) v.special = true;
      if (std::fabs(x[i]) >= 0x1p1020 || std::fabs(y[i]) >= 0x1p1020) overflow = true;
      // |u_i| <= 2^{-i(p-1)} |u_0|: the hypothesis of Prop. III.1 and IV.1-IV.2.
      for (const double* u : {x, y})
        if (std::fabs(u[i]) > std::ldexp(std::fabs(u[0]), -(kP - 1) * i)) decay = true;
      for (int j = 0; i + j <= R - 1; ++j)
        if (x[i] != 0 && y[j] != 0 && std::isfinite(x[i]) && std::isfinite(y[j]) &&
            std::ilogb(x[i]) + std::ilogb(y[j]) < -969)
          mul_underflow = true;
    }
    if (!std::isfinite(x[0]) || !std::isfinite(y[0]) ||
        (x[0] != 0 && y[0] != 0 && std::ilogb(x[0]) + std::ilogb(y[0]) >= 1018))
      overflow = true;
    if (!ulp_nonoverlapping(x, R) || !ulp_nonoverlapping(y, R)) invalid = true;
  }
  v.facts.family["R"] = R;
  v.facts.family["overflow"] = overflow;
  v.facts.family["mul_underflow"] = mul_underflow;
  v.facts.family["index_decay_violated"] = decay;
  v.facts.family["invalid_expansion"] = invalid;
  v.rounded = 0;
  v.hex = fmt::format("{} exact sums and products of {}-term expansions", d.n, R);
  v.decimal = v.hex;
  v.cond = 1;
  v.cond_definition = "1 (per-pair exact references; see the metrics' extra keys)";
  v.method =
      "per pair: mpfr_sum of the result's terms minus the 2R input terms (sum) or minus the R^2 exact "
      "products x_i*y_j (product, 106-bit MPFR), rounded away from zero to 64 bits";
  v.exact = ex;
  return v;
}

// Per-pair judgement: worst relative error, within the relative bound, etc.
struct PairStats {
  double max_rel = 0;               // |res - exact| / |exact|
  double max_rel_log2 = -INFINITY;  // its log2, computed in MPFR (below 2^-1074 too)
  double max_rel_scale = 0;         // |res - exact| / scale (scale = |exact| for sums, |x_0 y_0| for products)
  double max_over_bound = 0;        // (|res - exact| / scale) / bound
  int64_t over_bound = 0;
  int64_t nonoverlapping = 0;
  int64_t exact = 0;
  int64_t special = 0, special_bad = 0;
};

void judge_range(const FpeExact& e, const double* res, bool product, double bound, int64_t b, int64_t end,
                 PairStats& st) {
  const int R = e.R;
  const int nt = product ? R + R * R : 3 * R;
  std::vector<mpfr_t> t(static_cast<size_t>(nt));
  std::vector<mpfr_ptr> ptr(static_cast<size_t>(nt));
  for (int i = 0; i < nt; ++i) {
    mpfr_init2(t[i], 2 * kP);
    ptr[i] = t[i];
  }
  mpfr_t err, ex, scale, rhs;
  mpfr_inits2(64, err, ex, scale, rhs, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_prec(scale, 2 * kP);
  for (int64_t k = b; k < end; ++k) {
    const double* x = &e.x[static_cast<size_t>(k) * R];
    const double* y = &e.y[static_cast<size_t>(k) * R];
    const double* r = &res[static_cast<size_t>(k) * R];
    bool special = false;
    for (int i = 0; i < R; ++i) special |= !std::isfinite(x[i]) || !std::isfinite(y[i]);
    if (special) {
      // IEEE 754: a result built from an infinity or a NaN must not be finite.
      ++st.special;
      if (std::isfinite(r[0])) ++st.special_bad;
      continue;
    }
    if (ulp_nonoverlapping(r, R)) ++st.nonoverlapping;
    int m = 0;
    if (product) {
      for (int i = 0; i < R; ++i)
        for (int j = 0; j < R; ++j) {
          mpfr_set_d(t[m], x[i], MPFR_RNDN);
          mpfr_mul_d(t[m], t[m], y[j], MPFR_RNDN);  // exact: 106 bits
          ++m;
        }
      mpfr_set_d(scale, x[0], MPFR_RNDN);
      mpfr_mul_d(scale, scale, y[0], MPFR_RNDN);
    } else {
      for (int i = 0; i < R; ++i) {
        mpfr_set_d(t[m++], x[i], MPFR_RNDN);
        mpfr_set_d(t[m++], y[i], MPFR_RNDN);
      }
    }
    mpfr_sum(ex, ptr.data(), static_cast<unsigned long>(m), MPFR_RNDZ);  // |exact| rounded down
    mpfr_abs(ex, ex, MPFR_RNDN);
    if (!product) mpfr_set(scale, ex, MPFR_RNDZ);
    mpfr_abs(scale, scale, MPFR_RNDN);
    for (int i = 0; i < m; ++i) mpfr_neg(t[i], t[i], MPFR_RNDN);
    bool finite = true;
    for (int i = 0; i < R; ++i) {
      if (!std::isfinite(r[i])) finite = false;
      mpfr_set_d(t[m++], r[i], MPFR_RNDN);
    }
    double rel, rel_scale, over;
    if (!finite) {
      rel = rel_scale = over = INFINITY;
      st.max_rel_log2 = INFINITY;
    } else {
      mpfr_sum(err, ptr.data(), static_cast<unsigned long>(m), MPFR_RNDA);
      mpfr_abs(err, err, MPFR_RNDN);
      if (mpfr_zero_p(err)) ++st.exact;
      auto ratio = [&](mpfr_srcptr den) {
        if (mpfr_zero_p(err)) return 0.0;
        if (mpfr_zero_p(den)) return static_cast<double>(INFINITY);
        mpfr_div(rhs, err, den, MPFR_RNDU);
        return mpfr_get_d(rhs, MPFR_RNDU);
      };
      rel = ratio(ex);
      if (!mpfr_zero_p(err)) {
        double l2 = INFINITY;
        if (!mpfr_zero_p(ex)) {
          mpfr_div(rhs, err, ex, MPFR_RNDU);
          long e2 = 0;
          const double mant = mpfr_get_d_2exp(&e2, rhs, MPFR_RNDU);
          l2 = static_cast<double>(e2) + std::log2(mant);
        }
        st.max_rel_log2 = std::max(st.max_rel_log2, l2);
      }
      rel_scale = ratio(scale);
      over = 0;
      if (bound >= 0 && !mpfr_zero_p(err)) {
        mpfr_mul_d(rhs, scale, bound, MPFR_RNDZ);  // bound * u^R * scale rounded down
        mpfr_mul_2si(rhs, rhs, -kP * R, MPFR_RNDZ);
        bool ok = std::isinf(bound) || mpfr_cmp(err, rhs) <= 0;
        if (!ok) ++st.over_bound;
        if (!std::isinf(bound))
          over = mpfr_zero_p(rhs) ? INFINITY : (mpfr_div(rhs, err, rhs, MPFR_RNDU), mpfr_get_d(rhs, MPFR_RNDU));
      }
    }
    if (!finite && bound >= 0) ++st.over_bound;
    st.max_rel = std::max(st.max_rel, rel);
    st.max_rel_scale = std::max(st.max_rel_scale, rel_scale);
    st.max_over_bound = std::max(st.max_over_bound, over);
  }
  mpfr_clears(err, ex, scale, rhs, static_cast<mpfr_ptr>(nullptr));
  for (auto& v : t) mpfr_clear(v);
}

Metrics measure_fpe(const Result& r, const ExactValue& ref, double bound) {
  auto ex = std::static_pointer_cast<const FpeExact>(ref.exact);
  const size_t want = static_cast<size_t>(ex->n) * ex->R;
  if (r.values.size() != want)
    throw std::runtime_error(fmt::format("result has {} values, expected n*R = {}", r.values.size(), want));
  if (r.what != "sum" && r.what != "product")
    throw std::logic_error("an fpe result must say whether it is a sum or a product (Result::what)");
  const bool product = r.what == "product";
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<int64_t>(threads, std::max<int64_t>(1, ex->n / 256)));
  std::vector<PairStats> part(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      judge_range(*ex, r.values.data(), product, bound, ex->n * t / threads, ex->n * (t + 1) / threads, part[t]);
    });
  for (auto& th : pool) th.join();
  PairStats st;
  for (auto& p : part) {
    st.max_rel = std::max(st.max_rel, p.max_rel);
    st.max_rel_log2 = std::max(st.max_rel_log2, p.max_rel_log2);
    st.max_rel_scale = std::max(st.max_rel_scale, p.max_rel_scale);
    st.max_over_bound = std::max(st.max_over_bound, p.max_over_bound);
    st.over_bound += p.over_bound;
    st.nonoverlapping += p.nonoverlapping;
    st.exact += p.exact;
    st.special += p.special;
    st.special_bad += p.special_bad;
  }
  Metrics m;
  m.value = r.values.empty() ? 0.0 : r.values[0];
  m.hex = hex_double(m.value);
  m.abs_err = m.rel_err = st.max_rel;
  m.ulps = 0;
  const double cap = (53.0 * ex->R + 64) * std::log10(2.0);
  m.digits = std::isinf(st.max_rel_log2) && st.max_rel_log2 < 0
                 ? cap
                 : std::clamp(-st.max_rel_log2 * std::log10(2.0), 0.0, cap);
  const int64_t finite_pairs = ex->n - st.special;
  // With special values (ref.special) the harness asks for IEEE behaviour: every pair holding an
  // infinity or a NaN must give a non-finite leading term. Otherwise: every pair exact.
  m.correctly_rounded = ref.special ? st.special_bad == 0 : st.exact == finite_pairs;
  m.faithful = m.correctly_rounded;
  m.has_bound = bound >= 0;
  m.bound = bound;
  m.within_bound = st.over_bound == 0;
  m.extra = {{"pairs", static_cast<double>(ex->n)},
             {"R", static_cast<double>(ex->R)},
             {"max_rel_err", st.max_rel},
             {"max_rel_err_log2", st.max_rel_log2},
             {"max_err_over_scale", st.max_rel_scale},
             {"max_err_over_bound", st.max_over_bound},
             {"bound_rel_log2", bound >= 0 ? std::log2(bound) - kP * ex->R : NAN},
             {"pairs_over_bound", static_cast<double>(st.over_bound)},
             {"pairs_exact", static_cast<double>(st.exact)},
             {"nonoverlapping_share", finite_pairs > 0 ? static_cast<double>(st.nonoverlapping) / finite_pairs : 1.0},
             {"special_pairs_finite", static_cast<double>(st.special_bad)}};
  return m;
}

std::vector<VerifyCase> verify_cases(bool full) {
  std::vector<VerifyCase> c;
  for (int R : {2, 4, 8, 16, 32})
    for (const char* d : {"random", "cancel", "wide", "zeros", "specials"})
      c.push_back({d, {{"R", std::to_string(R)}}, full ? 3 : 1});
  return c;
}

// accuracy: worst relative error (log2) of every fpe algorithm of the backend, per R and generator.
TableSuite accuracy_suite() {
  TableSuite t;
  t.name = "fpe";
  t.summary = "worst relative error (log2) of every expansion algorithm per R = 2..32 and generator";
  t.intro = fmt::format(
      "Expansion addition and multiplication (Collange, Joldes, Muller, Popescu, ASAP 2016) against the sequential "
      "and QD baselines. First the worst relative error over all pairs (at most {} per row), as log2 (|result - "
      "exact| / |exact|, exact by MPFR); `!` marks a proven bound broken (never expected), `error` an algorithm "
      "that does not take this R. Cancellation rows show why the fast addition promises nothing. Then the paper's "
      "Tables I-IV: million operations per second (median of {} timed runs; on a GPU the kernel time) on random "
      "pairs, n pairs for R <= 4 and n*4/R above, registers only (best case) and, where the backend has it, with "
      "256 B of shared memory held per expansion term (memory-constrained); `*`: precision not supported.",
      kAccuracyMaxPairs, kSpeedReps);
  t.row_head = {"R", "data"};
  // The paper's algorithms, the sequential baselines and QD (its 4 leading terms for R >= 8),
  // where the backend has them.
  t.columns = [](const std::string&, const std::vector<const AlgoEntry*>&) {
    return std::vector<TableColumn>{{"fpe-add-safe", {}, "add-safe", ""},
                                    {"fpe-add-fast", {}, "add-fast", ""},
                                    {"fpe-seq-add", {}, "seq-add", ""},
                                    {"fpe-qd-add", {}, "QD add", ""},
                                    {"fpe-mul", {{"renormalize", "0"}}, "mul", ""},
                                    {"fpe-mul", {{"renormalize", "1"}}, "mul renorm", ""},
                                    {"fpe-seq-mul", {}, "seq-mul", ""},
                                    {"fpe-qd-mul", {}, "QD mul", ""}};
  };
  t.rows = [](int64_t n, uint64_t seed) {
    std::vector<GenSpec> rows;
    for (int R : {2, 4, 8, 16, 32})
      for (const char* d : {"random", "cancel", "wide"}) {
        GenSpec s;
        s.dist = d;
        s.family = "fpe";
        s.n = std::min(n, kAccuracyMaxPairs);
        s.seed = seed;
        s.options = {{"R", std::to_string(R)}};
        rows.push_back(s);
      }
    return rows;
  };
  t.row_cells = [](const GenSpec& s, const ExactValue&) { return std::vector<std::string>{s.options.at("R"), s.dist}; };
  t.cell = [](const Metrics& m) {
    for (auto& [k, v] : m.extra)
      if (k == "max_rel_err_log2") return std::isinf(v) ? std::string("exact") : fmt::format("{:.1f}", v);
    return std::string("?");
  };
  return t;
}

bool has_param(const std::string& algo, const std::string& backend, const std::string& name) {
  const AlgoEntry* e = registry().find(algo, backend);
  if (!e) return false;
  for (auto& p : e->params)
    if (p.name == name) return true;
  return false;
}

// Pairs per row of the timed tables: n up to R = 4, then the same number of terms (n*4) for
// every R, so that the long expansions' rows stay as quick to check as the short ones'.
int64_t speed_pairs(int64_t n, int R) { return std::max<int64_t>(1, n * 4 / std::max(R, 4)); }

// Tables I-IV of Collange et al. (Sec. VI): Mop/s of additions (Tables I, II) or multiplications
// (III, IV) against R; memory: the kernels hold 256 B of shared memory per term (param shared=1,
// on the backends that have it), the tables skipped elsewhere.
TableSuite speed_suite(bool product, bool memory) {
  TableSuite t;
  t.name = "fpe";
  t.summary = accuracy_suite().summary;
  t.title = fmt::format("Table {}, {} in Mop/s, {}", product ? (memory ? "IV" : "III") : (memory ? "II" : "I"),
                        product ? "multiplication" : "addition",
                        memory ? "memory-constrained (256 B of shared memory per term)" : "best case (registers only)");
  t.row_head = {"R", "pairs"};
  t.columns = [product, memory](const std::string& backend, const std::vector<const AlgoEntry*>&) {
    // Two statements, not one conditional expression of two lists: GCC 12 then sees no string of the
    // branch not taken destroyed (-Wmaybe-uninitialized).
    std::vector<TableColumn> all;
    if (product)
      all = {{"fpe-mul", {{"renormalize", "0"}}, "Algorithm 2", ""},
             {"fpe-seq-mul", {}, "Sequential", ""},
             {"fpe-qd-mul", {}, "QD", ""}};
    else
      all = {{"fpe-add-safe", {}, "Safe (Alg. 1)", ""},
             {"fpe-add-fast", {}, "Fast", ""},
             {"fpe-seq-add", {}, "Sequential", ""},
             {"fpe-qd-add", {}, "QD", ""}};
    std::vector<TableColumn> cols;
    for (auto& c : all) {
      if (memory && !has_param(c.algo, backend, "shared")) continue;
      if (has_param(c.algo, backend, "shared")) c.params["shared"] = memory ? "1" : "0";
      cols.push_back(c);
    }
    return cols;
  };
  t.rows = [](int64_t n, uint64_t seed) {
    std::vector<GenSpec> rows;
    for (int R : {2, 4, 8, 16, 32}) {
      GenSpec s;
      s.dist = "random";
      s.family = "fpe";
      s.n = speed_pairs(n, R);
      s.seed = seed;
      s.options = {{"R", std::to_string(R)}};
      rows.push_back(s);
    }
    return rows;
  };
  t.row_cells = [](const GenSpec& s, const ExactValue&) {
    return std::vector<std::string>{s.options.at("R"), std::to_string(s.n)};
  };
  // QD has double-double and quad-double only ("precision not supported" in the paper).
  t.applies = [](const TableColumn& c, const GenSpec& s) {
    return c.algo.rfind("fpe-qd-", 0) != 0 || std::atoi(s.options.at("R").c_str()) <= 4;
  };
  t.reps = kSpeedReps;
  t.timed_cell = [](const Metrics&, const CellTime& c) { return fmt::format("{:.4g}", c.units_per_s * 1e-6); };
  return t;
}

FamilyDescriptor fpe_family() {
  FamilyDescriptor f;
  f.name = "fpe";
  f.listing_rank = 4;
  f.summary = "n additions or multiplications of pairs of R-term floating-point expansions (R = 2..32)";
  f.inputs = "x, y: n expansions of R f64 terms each (n*R doubles, pair-major)";
  f.result = "n expansions of R terms (n*R doubles); each pair judged against its exact sum or product";
  f.unit = "operations";
  f.default_n = "2^16";
  f.units = [](const Dataset& d) { return static_cast<double>(d.n); };
  f.bytes = [](const Dataset& d) { return 3.0 * static_cast<double>(d.x.size()) * 8.0; };
  f.dists = fpe_dist_names();
  f.options = {{"R", "terms per expansion: 2, 4, 8, 16 or 32 (a list sweeps)", {}, ""}};
  f.file_formats = "none (generated data only)";
  f.input_bytes = [](const GenSpec& s) { return fpe_bytes(s.n, r_option(s.options)); };
  f.generate = generate_fpe;
  f.read = [](const std::string&) -> Dataset {
    throw UsageError("the fpe family reads no files: generate with --dist and --R");
  };
  f.encode = [](const std::string&, Dataset&, const std::string&, const std::function<void(const void*, size_t)>&) {
    throw UsageError("the fpe family writes no files");
  };
  f.oracle = oracle_fpe;
  f.measure = measure_fpe;
  f.verify_cases = verify_cases;
  f.verify_sizes = [](bool full) {
    return full ? std::vector<int64_t>{0, 1, 2, 7, 100, 1000, 20000} : std::vector<int64_t>{0, 1, 7, 300};
  };
  f.tables = {accuracy_suite(), speed_suite(false, false), speed_suite(false, true), speed_suite(true, false),
              speed_suite(true, true)};
  return f;
}

FamilyRegistrar reg_fpe(fpe_family());

}  // namespace

}  // namespace accsum
