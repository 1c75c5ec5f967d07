#pragma once
// fpe-sum / fpe-dot: the sum of n doubles (the dot product of two double vectors) accumulated in
// R-term floating-point expansions, R in {2, 4, 8, 16, 32}, with the safe data-parallel addition
// of Collange, Joldes, Muller, Popescu, "Parallel floating-point expansions for extended-precision
// GPU computations", ASAP 2016 (Algorithm 1, families/fpe/fpe_ops.hpp).
//
// Shape (a function of n only, so cpu, cpu-mt and CUDA compute the same bits): the lanes of
// DPSumK's fused form (families/sum_dot/dpsum.hpp: G = fused_lanes(n) lanes, element i to lane
// (i / kFusedVec) mod G, each lane in increasing i). A lane holds an R-term expansion a, from 0,
// and takes its elements P = fpe_acc_batch(R, dot) at a time, in order (the last batch may be
// shorter):
//   step(a, v):  a <- Renormalize(Algorithm1(a, v)),  v = (x_i, .., x_{i+P-1}, 0, .., 0) for a sum,
//                v = (h_i, t_i, .., h_{i+P-1}, t_{i+P-1}, 0, .., 0) with (h, t) = 2MultFMA(x, y)
//                for a dot,
// Renormalize being fpe::renormalize (VecSum + VecSumErrBranch, error-free for R terms in and
// out). The lanes are merged by the pairwise tree on the lane index with the same step (v = the
// other lane's expansion); the root's exact value is rounded once to nearest (a superaccumulator).
// Why batches: Algorithm 1 costs about as much for an R-term v as for a one-term v (its 3R - 2
// vector steps run whatever v holds), so a step per min(R, 8) terms does the work of one step per
// term at a fraction of the cost, and its error bound (below) needs no property of v. At R = 2
// a pair saves nothing (its 2Sum plus the two-term step cost what two one-term steps do), so a
// sum's step takes one element there.
//
// ---- The proven bound (our derivation) ----
// u = 2^-53, gamma_k = k u / (1 - k u). The bound after Prop. III.1 of the paper is relative to
// |x + y| but needs ulp-nonoverlapping inputs, which we do not prove for the accumulator after
// cancellation (nor have for a batch of raw elements). We bound Algorithm 1's error by the mass
// M = sum |x_i| + sum |y_i| of its inputs instead, following the same error pipeline, with no
// assumption on the inputs:
//   T = 3R - 2 vector steps (1 initial, 2(R-1) insertions, R-2 zero insertions, 1 plain); every
//   input term enters lane 0, and lane l+1 receives only errors of lane l. With In_l the sum of
//   |values entering lane l|, |s_l| <= (1+u)^T In_l after any step (|RN(a+b)| <= (1+u)(|a|+|b|)),
//   and each 2Sum error is <= u |its sum|, so In_{l+1} <= T u (1+u)^T In_l, In_0 = M.
//   Rounding errors leave only from lane R-1: its error at each of the T-1 EFT steps is shifted
//   out, and its final plain addition rounds. Lanes 0..R-2 add exact zeros in the last step
//   (after the R-2 zero insertions the errors of lanes 0..R-3 are 0). Hence
//     |Algorithm1(x, y) - (x + y)| <= T u (1+u)^T In_{R-1} <= (T u (1+u)^T)^R M <= gamma_T^R M.
//   Mass growth: the output mass is <= (1+u)^T M / (1 - T u (1+u)^T), and each 2Sum of the
//   renormalisation multiplies the mass by at most (1+u)^2, so a step multiplies it by at most
//   mu <= 1 / ((1 - (T + 4R) u)(1 - gamma_T)).
// Accumulation: each element passes through at most D = ceil(m / P) + L steps (m =
//   fused_lane_elems(n) elements in its lane, P at a time, L = ceil(log2 G) merges), so every
//   expansion's mass is at most F S_sub, F = mu^D <= 1 / ((1 - D (T+4R) u)(1 - D gamma_T))
//   (Bernoulli), S_sub the mass of the elements it holds. The steps of one lane, and the merges
//   of one tree level, have disjoint element sets, so the errors sum to
//     E <= gamma_T^R F D S.
// Rounding the root: |res - s^| <= u |s^| with s^ = s + (<= E): |res - s| <= u |s| + (1 + u) E.
// Dot: x_i y_i = h_i + t_i exactly unless the product underflows, then |x_i y_i - h_i - t_i| <=
//   4 eta per product (eta = 2^-1074; ORO 2005 §5 / families/sum_dot/dpsum.hpp); the mass is
//   sum |h_i| + |t_i| <= (1 + 2u) S + 6 n eta.
// Comparison: DPSumK K = 2 (families/sum_dot/dpsum.hpp) has u|s| + ~gamma_D^2 S; R = 2 here has u|s| +
// ~16 u^2 D S: both double-double accumulators, the expansion's second-order term linear in D.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "families/sum_dot/dpsum.hpp"
#include "core/numerics/eft.hpp"
#include "families/fpe/fpe_ops.hpp"
#include "base/hd.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_bounds.hpp"
#include "core/numerics/superacc.hpp"

namespace accsum {

// ---- one step (host and device; RC > 0: R at compile time) ----

// Terms a step takes at most, whatever R.
constexpr int kFpeBatchTerms = 8;

// P: the elements (a dot: products, two terms each) one step of a lane takes.
ACCSUM_HD constexpr int fpe_acc_batch(int R, bool dot) {
  return R == 2 ? 1 : (R < kFpeBatchTerms ? R : kFpeBatchTerms) / (dot ? 2 : 1);
}

// The readable definition: a <- Renormalize(Algorithm1(a, (v_0 .. v_{k-1}, 0, .., 0))), k <= R.
template <int RC>
ACCSUM_HD void fpe_acc_add_terms(double* a, int R_rt, const double* v, int k) {
  const int R = RC > 0 ? RC : R_rt;
  double y[fpe::kMaxR], s[fpe::kMaxR] = {};  // add_safe writes R terms of s; the rest stay unread
  for (int l = 0; l < R; ++l) y[l] = l < k ? v[l] : 0.0;
  fpe::add_safe(a, y, s, R);
  fpe::renormalize(s, R, a, R);
}

// a <- Renormalize(Algorithm1(a, b)): the lane merge, b's R terms as the step's v.
template <int RC>
ACCSUM_HD void fpe_acc_merge(double* a, const double* b, int R_rt) {
  fpe_acc_add_terms<RC>(a, R_rt, b, RC > 0 ? RC : R_rt);
}

// R = 2, the same values with the operations on known zeros left out. Algorithm 1 on
// (a0, a1) + (v0, v1): (t, e) = 2Sum(a0, v0); (s0, f) = 2Sum(t, a1), lane 1 takes e exactly;
// inserting v1: (s0, g) = 2Sum(s0, v1), lane 1: e + f (its error leaves); last step: lane 1
// adds g. Renormalize of two terms is one 2Sum (its VecSumErrBranch returns that pair). Sum
// (v1 = 0, the 2Sum with v1 and the addition of g = 0 are exact): three 2Sums and one addition.
// TS: the 2Sum used (two_sum or two_sum_ordered: the same values on finite data).
struct TwoSumPlain {
  ACCSUM_HD void operator()(double a, double b, double& s, double& e) const { two_sum(a, b, s, e); }
};
struct TwoSumOrdered {
  ACCSUM_HD void operator()(double a, double b, double& s, double& e) const { two_sum_ordered(a, b, s, e); }
};
template <class TS = TwoSumPlain>
ACCSUM_HD void fpe_acc_add2_sum(double* a, double v0) {
  TS ts;
  double t, e, s0, f;
  ts(a[0], v0, t, e);
  ts(t, a[1], s0, f);
  ts(s0, e + f, a[0], a[1]);
}
template <class TS = TwoSumPlain>
ACCSUM_HD void fpe_acc_add2_dot(double* a, double h, double tl) {
  TS ts;
  double t, e, s0, f, g;
  ts(a[0], h, t, e);
  ts(t, a[1], s0, f);
  ts(s0, tl, s0, g);
  ts(s0, (e + f) + g, a[0], a[1]);
}

// The exact product as two doubles (x y = h + t without underflow).
ACCSUM_HD void fpe_acc_product(double x, double y, double& h, double& t) { two_prod_fma(x, y, h, t); }

// ---- the end of the computation (host) ----

// The root expansion's exact value, rounded to nearest once.
inline double fpe_acc_round(const double* a, int R) {
  Superacc acc;
  acc.clear();
  for (int l = 0; l < R; ++l)
    if (a[l] != 0.0) acc.add(a[l]);
  return acc.round();
}

// An exact zero is -0 only when every term is -0 (every floating-point product, for a dot), as
// the plain sum from -0 would give; the expansion does not keep the sign of zeros.
double fpe_acc_zero_sign(double r, const double* x, const double* y, int64_t n);

// ---- serial definitions (the cpu backend; every other backend is tested against these bits) ----

// Pairwise tree on the lane index over st[g*R ..], levels w_lo <= w < w_hi; root in lane 0.
inline void fpe_acc_merge_lanes(double* st, int64_t G, int R, int64_t w_lo = 1, int64_t w_hi = INT64_MAX) {
  for (int64_t w = w_lo; w < G && w < w_hi; w *= 2)
    for (int64_t g = 0; g + w < G; g += 2 * w) fpe_acc_merge<0>(st + g * R, st + (g + w) * R, R);
}

// Lane g's elements from its group j on (j = g, or any group where a batch starts), P at a time, into
// a: step(a, v, k) adds a batch of k terms, v zero past k up to kFpeBatchTerms. y == nullptr: a sum.
template <class Step>
void fpe_acc_lane_by(double* a, int R, const double* x, const double* y, int64_t n, int64_t G, int64_t j, Step&& step) {
  const int per_elem = y ? 2 : 1, batch = fpe_acc_batch(R, y != nullptr) * per_elem;  // terms per step
  double v[kFpeBatchTerms] = {};
  int k = 0;
  for (; kFusedVec * j < n; j += G)
    for (int64_t i = kFusedVec * j; i < std::min(kFusedVec * (j + 1), n); ++i) {
      if (y)
        fpe_acc_product(x[i], y[i], v[k], v[k + 1]);
      else
        v[k] = x[i];
      k += per_elem;
      if (k == batch) step(a, v, k), k = 0;
    }
  if (k > 0) {
    for (int l = k; l < kFpeBatchTerms; ++l) v[l] = 0.0;
    step(a, v, k);
  }
}
// The same with the readable step.
void fpe_acc_lane(double* a, int R, const double* x, const double* y, int64_t n, int64_t G, int64_t j);
// y == nullptr: the sum of x; else the dot product x.y.
double fpe_acc_serial(const double* x, const double* y, int64_t n, int R);
// The root after the lanes and their tree: what every backend rounds (fpe_acc_finish).
double fpe_acc_finish(const double* root, int R, const double* x, const double* y, int64_t n);

// ---- the bound and the registry entry ----
double fpe_acc_bound(bool dot, int R, int64_t n, double abs_s, double S);
std::string fpe_acc_domain(bool dot, const Params& p, const ExactFacts& f);
int fpe_acc_r(const Params& p);
AlgoEntry fpe_acc_entry(bool dot, const std::string& backend, const std::string& summary);

}  // namespace accsum
