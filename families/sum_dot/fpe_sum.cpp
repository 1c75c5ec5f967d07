// fpe-sum / fpe-dot: serial definition, rounding, proven bound and registry entry (derivation in
// families/sum_dot/fpe_sum.hpp).
#include "families/sum_dot/fpe_sum.hpp"

#include <algorithm>
#include <cmath>

#include "families/fpe/family_fpe.hpp"

namespace accsum {

double fpe_acc_zero_sign(double r, const double* x, const double* y, int64_t n) {
  if (r != 0.0) return r;
  for (int64_t i = 0; i < n; ++i) {
    const double v = y ? x[i] * y[i] : x[i];
    if (!(v == 0.0 && std::signbit(v))) return 0.0;
  }
  return n > 0 ? -0.0 : 0.0;
}

double fpe_acc_finish(const double* root, int R, const double* x, const double* y, int64_t n) {
  return fpe_acc_zero_sign(fpe_acc_round(root, R), x, y, n);
}

void fpe_acc_lane(double* a, int R, const double* x, const double* y, int64_t n, int64_t G, int64_t j) {
  fpe_acc_lane_by(a, R, x, y, n, G, j,
                  [R](double* acc, const double* v, int k) { fpe_acc_add_terms<0>(acc, R, v, k); });
}

double fpe_acc_serial(const double* x, const double* y, int64_t n, int R) {
  if (n <= 0) return 0.0;
  const int64_t G = fused_lanes(n);
  std::vector<double> st(G * R, 0.0);
  for (int64_t g = 0; g < G; ++g) fpe_acc_lane(&st[g * R], R, x, y, n, G, g);
  fpe_acc_merge_lanes(st.data(), G, R);
  return fpe_acc_finish(st.data(), R, x, y, n);
}

namespace {

struct AccDepth {
  int64_t steps = 0;  // ceil(m / P) + L: steps on any element's path
  int T = 0;          // vector steps of Algorithm 1
};
AccDepth acc_depth(bool dot, int64_t n, int R) {
  const int64_t P = fpe_acc_batch(R, dot), steps = (fused_lane_elems(n) + P - 1) / P;
  return {steps + ceil_log2(fused_lanes(n)), 3 * R - 2};
}

// F = 1 / ((1 - D (T + 4R) u)(1 - D gamma_T)) rounded up; +inf when a factor is not positive.
double mass_factor(const AccDepth& d, int R) {
  using namespace bounds;
  const double D = static_cast<double>(d.steps);
  const double a = mul_up(D, mul_up(static_cast<double>(d.T + 4 * R), kU));
  const double b = mul_up(D, gamma_up(d.T));
  if (!(a < 1.0) || !(b < 1.0)) return kInf;
  return up(1.0 / down(down(1.0 - a) * down(1.0 - b)));
}

}  // namespace

double fpe_acc_bound(bool dot, int R, int64_t n, double abs_s, double S) {
  using namespace bounds;
  if (n <= 0) return 0.0;
  if (!in_domain(S)) return kInf;
  const AccDepth d = acc_depth(dot, n, R);
  const double F = mass_factor(d, R);
  if (F == kInf) return kInf;
  const double nn = static_cast<double>(n);
  double mass = S, prod = 0;
  if (dot) {
    mass = add_up(mul_up(1.0 + 0x1p-52, S), mul_up(nn, 6 * kEta));  // (1 + 2u) S + 6 n eta
    prod = mul_up(nn, 4 * kEta);
  }
  const double beta = pow_up(gamma_up(d.T), R);
  const double E = mul_up(mul_up(beta, F), mul_up(static_cast<double>(d.steps), mass));
  const double s_hat = add_up(add_up(abs_up(abs_s), prod), E);
  return add_up(add_up(mul_up(kU, s_hat), E), prod);
}

std::string fpe_acc_domain(bool dot, const Params& p, const ExactFacts& f) {
  std::string why = dot ? bounds::dot_domain(p, f) : bounds::sum_domain(p, f);
  if (!why.empty()) return why;
  const int R = fpe_acc_r(p);
  const double F = mass_factor(acc_depth(dot, f.n, R), R);
  if (f.n > 0 && (F == bounds::kInf || !bounds::in_domain(bounds::mul_up(F, f.sum_abs))))
    return "the expansions' mass F S may exceed 2^1021 (or the lane depth makes F infinite)";
  return "";
}

int fpe_acc_r(const Params& p) {
  auto it = p.find("terms");
  return it == p.end() ? 2 : std::atoi(it->second.c_str());
}

AlgoEntry fpe_acc_entry(bool dot, const std::string& backend, const std::string& summary) {
  return AlgoEntry(dot ? "dot" : "sum", dot ? "fpe-dot" : "fpe-sum", backend, summary)
      .promises(Guarantee::kfold)
      .with_params({ParamSpec{"terms",
                              "R, the terms of the accumulating expansion (--R is the fpe family's data option)",
                              false,
                              0,
                              0,
                              {"2", "4", "8", "16", "32"},
                              "2",
                              true}})
      .within_domain([dot](const Params& p, const ExactFacts& f) { return fpe_acc_domain(dot, p, f); })
      .bounded_by(
          [dot](const Params& p, const ExactFacts& f) {
            return fpe_acc_bound(dot, fpe_acc_r(p), f.n, f.abs_sum, f.sum_abs);
          },
          "u|s| + (1+u)E, E = gamma_T^R F D S', T = 3R-2, D = lane depth ceil(m/P) + log2 G (P elements a "
          "step), F the mass growth: Algorithm 1 "
          "of Collange, Joldes, Muller, Popescu, ASAP 2016, bounded by its input mass along its error pipeline "
          "(the argument of Prop. III.1), accumulated over D steps; derivation in families/sum_dot/fpe_sum.hpp");
}

}  // namespace accsum
