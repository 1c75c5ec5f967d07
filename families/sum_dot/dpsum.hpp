#pragma once
// DPSumK and DPDotK: K-fold accurate sum and dot product as data-parallel reductions (Suzuki, "Parallel algorithms for
// accurate summation and dot product on the GPU", Suzuki, after Ogita-Rump-Oishi 2005 "ORO"), in two variants with one
// serial definition each.
//
//  tree  - the paper's algorithms. DPSum (Alg. 3.2): the pairwise tree a = k, b = k + 2^d,
//          d = 0, 1, ..., with (p_a, p_b) = TwoSum(p_a, p_b): the sum moves to p_a, the error
//          stays in p_b, the vector keeps its exact sum. DPSumK (Alg. 3.3): K-1 DPSum passes,
//          then DPRed (Alg. 3.1, the same tree with plain additions). DPDot (Alg. 3.4): t_2i = x_i,
//          t_2i+1 = y_i, TwoProduct at d = 0, TwoSum above. DPDotK (Alg. 3.5): DPDot, K-2 DPSum
//          passes over the 2n terms, DPRed. Any n: a pair whose b is past the end is skipped.
//  fused - ours: one pass over memory. The data are dealt to G "lanes" (element i to lane
//          (i / kFusedVec) mod G, each lane in increasing i). A lane keeps K levels a[0..K-1]:
//          a[0..K-2] are TwoSum accumulators, a[K-1] a plain one. Adding v at level l
//          (kf_add) does (a[l], v) = TwoSum(a[l], v), then the same at l+1 with the error, ...,
//          and a[K-1] += v at the bottom: the vertical (pipelined) form of SumK. Lanes are then
//          merged by the pairwise tree on the lane index (kf_merge: b[k] is added at level k,
//          k = 0..K-1), and the root is flushed (kf_finalize): a[k] is added at level k+1 for
//          k = 0..K-3, and the result is fl(a[K-1] + a[K-2]), the largest term added last as in
//          ORO's SumK. A dot adds TwoProduct's h at level 0 and its t at level 1 (as DotK).
//          G = fused_lanes(n) depends on n only, so every backend computes the same bits.
//
// Special values (the IEEE 754 rules in the README): every level-0 accumulator starts at -0 (the identity of
// round-to-nearest addition), so the level-0 root is the plain floating-point sum (or dot) of
// the data in this order. TwoSum breaks on infinities (inf - inf = NaN errors), so the result
// defers to that plain sum when it is not finite (NaN in -> NaN, +inf with -inf -> NaN, +inf ->
// +inf) or -0 (every term -0): ieee_result below. Finite data whose partial sums overflow are
// outside the domain (the bound is +inf there, as for SumK: families/sum_dot/sum_bounds.hpp).
//
// ---- The proven bound (our derivation; the form of ORO Prop. 4.10 / 5.11) ----
// u = 2^-53, alpha_D = (1+u)^D - 1 <= gamma_D = D u / (1 - D u). s = exact sum, S = sum |x_i|.
// Lemma 1. Let a set of leaves be summed by any binary tree of additions (TwoSum or plain), each
//   leaf passing through at most D additions. Then the rounding errors e of all its nodes satisfy
//   sum |e| <= alpha_D * sum |leaves|. Proof: a node adds computed children a, b: |e| <= u|a+b|
//   and |fl(a+b)| <= (1+u)(|a|+|b|), so by induction a node's |a|+|b| is at most
//   sum_{leaves i below it} (1+u)^(j_i - 1) |x_i|, j_i the node's height over leaf i; summing
//   over the nodes on each leaf's path gives u * sum_{j=1..D} (1+u)^(j-1) = alpha_D per leaf.
//   Underflow does not hurt: an addition that underflows is exact.
// Levels. Call the values entering TwoSum level k its leaves (level 1: the data; level k+1: the
//   errors of level k and, last, the root of level k). TwoSum is error-free, so every level's
//   leaves sum exactly to s. With M_k the mass (sum of |leaves|) and E_k the error mass of level
//   k: E_k <= alpha M_k (Lemma 1); the root of level k is s minus its errors, so
//   M_{k+1} <= |s| + 2 E_k, M_1 = S.
// Last level. fused: the plain level sums the errors of level K-1 (mass E_{K-1}) into tau, with
//   |tau - exact| <= alpha E_{K-1}, then res = fl(root_{K-1} + tau), and root + exact = s:
//   |res - s| <= u|s| + (1+u) alpha E_{K-1}.                              (F)
//   tree: DPRed adds the root at the bottom of its tree, so Lemma 1 is all we have:
//   |res - s| <= alpha M_K = alpha (|s| + 2 E_{K-1}).                        (T)
//   Unrolled, (F) is [u + O(alpha^2)] |s| + (1+u) 2^(K-2) alpha^K S and (T) is
//   [alpha + O(alpha^2)] |s| + 2^(K-1) alpha^K S: both relative errors ~ first + cond * alpha^K;
//   the tree's first-order term is gamma_{log2 n}, not u (measured: a few u at most).
// Depths D. tree: ceil(log2 n) for DPSum/DPRed over n terms (ceil(log2 2n) over 2n). fused: a lane
//   adds at most m values per level (m = its element count; 2m for dot levels >= 2, which take h's
//   error and t), each of the log2 G lane merges adds at most K values per level, the flush at
//   most K: D = m + K (log2 G + 1).
// Dot (ORO §5): x_i y_i = h_i + t_i + eta_i with |eta_i| <= 4 eta (eta = 2^-1074; FMA: eta/2,
//   Dekker: 7/2 eta, Boldo 2006) and zero without underflow; level 1 sums the h (mass
//   H <= (1+u)S + n eta/2), the t (mass T <= u S + 4.5 n eta) join level 2:
//   M_2 <= |s'| + 2T + 2E_1, with s' = sum(h + t), |s' - s| <= 4 n eta, S = sum |x_i y_i|.
// dp_bound evaluates exactly this recursion, each operation rounded up (families/sum_dot/sum_bounds.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/numerics/dpsum.h"
#include "core/numerics/eft.hpp"
#include "base/hd.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_bounds.hpp"

namespace accsum {

// ---------------------------------------------------------------------------------------------
// Per-lane pieces of the fused variant (host and device), defined in core/numerics/dpsum.h (shared
// with OpenCL C); these are their C++ names. KC > 0 fixes K at compile time (the state then
// lives in registers); KC == 0 takes K at run time. Both do the same operations. Ordered picks
// two_sum_ordered for the TwoSums (same nonzero bits: ieee_result below decides the sign of zero).

ACCSUM_HD void two_sum_ordered(double a, double b, double& s, double& e) { accsum_two_sum_ordered(a, b, &s, &e); }

// Adds v at level `level` of a[0..K-1], passing each TwoSum error one level down.
template <int KC, bool Ordered = false>
ACCSUM_HD void kf_add(double* a, int K_rt, int level, double v) {
  accsum_kf_add(a, KC > 0 ? KC : K_rt, level, v, Ordered);
}

template <int KC>
ACCSUM_HD void kf_clear(double* a, int K_rt) {
  accsum_kf_clear(a, KC > 0 ? KC : K_rt);
}

// One element of a sum.
template <int KC, bool Ordered = false>
ACCSUM_HD void kf_sum_elem(double* a, int K, double x) {
  accsum_kf_sum_elem(a, KC > 0 ? KC : K, x, Ordered);
}

// One element of a dot: x*y = h + t exactly (no underflow); h joins level 0, t level 1 (DotK).
template <int KC, bool Dekker, bool Ordered = false>
ACCSUM_HD void kf_dot_elem(double* a, int K, double x, double y) {
  accsum_kf_dot_elem(a, KC > 0 ? KC : K, x, y, Dekker, Ordered);
}

// a <- a merged with b (b's level k joins a's level k). Symmetric: merge(a,b) == merge(b,a).
template <int KC, bool Ordered = false>
ACCSUM_HD void kf_merge(double* a, const double* b, int K_rt) {
  accsum_kf_merge(a, b, KC > 0 ? KC : K_rt, Ordered);
}

// The plain sum `plain` (the level-0 root) decides special values and the sign of a zero: an
// exact zero is +0 in round-to-nearest unless every term is -0 (the sign of a zero error term
// is not defined by the transforms, so the zero result is set here).
ACCSUM_HD double ieee_result(double kfold, double plain) {
  if (!(plain - plain == 0)) return plain;              // NaN or +-inf
  if (plain == 0 && std::signbit(plain)) return plain;  // every term was -0
  return kfold == 0 ? 0.0 : kfold;
}

// Flushes the root state (destroys it) and returns the K-fold result.
template <int KC>
ACCSUM_HD double kf_finalize(double* a, int K_rt) {
  const int K = KC > 0 ? KC : K_rt;
  const double plain = a[0];
  ACCSUM_UNROLL
  for (int k = 0; k + 2 < K; ++k) kf_add<KC>(a, K, k + 1, a[k]);
  return ieee_result(a[K - 1] + a[K - 2], plain);
}

// ---------------------------------------------------------------------------------------------
// The fused shape: a function of n only, so cpu, cpu-mt, CUDA and OpenCL agree bit for bit.
constexpr int kFusedVec = 2;                          // a lane takes 2 consecutive elements (16 bytes)
constexpr int64_t kFusedMaxLanes = int64_t(1) << 18;  // one wave of 256-thread blocks on an H100/H200
constexpr int64_t kFusedMinGroups = 8;                // below 2^18 lanes, each lane gets >= 8 groups

inline int64_t pow2_floor(int64_t v) {
  int64_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}
inline int ceil_log2(int64_t v) {
  int l = 0;
  while ((int64_t(1) << l) < v) ++l;
  return l;
}
inline int64_t fused_groups(int64_t n) { return (n + kFusedVec - 1) / kFusedVec; }
// Number of lanes G (a power of two) for n elements.
inline int64_t fused_lanes(int64_t n) {
  int64_t g = pow2_floor(std::max<int64_t>(1, fused_groups(n) / kFusedMinGroups));
  return std::min(g, kFusedMaxLanes);
}
// Most elements any lane takes.
inline int64_t fused_lane_elems(int64_t n) {
  int64_t G = fused_lanes(n);
  return kFusedVec * ((fused_groups(n) + G - 1) / G);
}

// ---------------------------------------------------------------------------------------------
// Serial definitions (the cpu backend; every parallel version is tested against these bits).

// Levels w = 2^d for w_lo <= w < w_hi of the pairwise tree over p[0..n): op(p[a], p[a + w]) for
// a = 0, 2w, 4w, ... while a + w < n.
template <class Op>
void dp_levels(double* p, int64_t n, int64_t w_lo, int64_t w_hi, Op op) {
  for (int64_t w = w_lo; w < w_hi && w < n; w *= 2)
    for (int64_t a = 0; a + w < n; a += 2 * w) op(p[a], p[a + w]);
}
struct TwoSumInPlace {
  void operator()(double& a, double& b) const { accsum_dp_node(&a, &b, 0); }
};
struct AddInPlace {
  void operator()(double& a, double& b) const { accsum_dp_node(&a, &b, 1); }
};

// DPSum (Alg. 3.2) and DPRed (Alg. 3.1) in place.
inline void dp_sum_pass(double* p, int64_t n) { dp_levels(p, n, 1, INT64_MAX, TwoSumInPlace{}); }
inline double dp_red(double* p, int64_t n) {
  if (n <= 0) return 0.0;
  dp_levels(p, n, 1, INT64_MAX, AddInPlace{});
  return p[0];
}
// Level d = 0 of DPDot (Alg. 3.4): t[2i], t[2i+1] = TwoProduct(x_i, y_i).
inline void dp_dot_products(const double* x, const double* y, int64_t n, bool dekker, double* t) {
  for (int64_t i = 0; i < n; ++i) {
    if (dekker)
      two_prod_dekker(x[i], y[i], t[2 * i], t[2 * i + 1]);
    else
      two_prod_fma(x[i], y[i], t[2 * i], t[2 * i + 1]);
  }
}

// DPSumK (Alg. 3.3), K >= 2. The empty sum is +0.
inline double dpsumk_tree(const double* x, int64_t n, int K) {
  if (n <= 0) return 0.0;
  std::vector<double> p(x, x + n);
  dp_sum_pass(p.data(), n);
  const double plain = p[0];
  for (int k = 2; k < K; ++k) dp_sum_pass(p.data(), n);
  return ieee_result(dp_red(p.data(), n), plain);
}

// DPDotK (Alg. 3.5), K >= 2.
inline double dpdotk_tree(const double* x, const double* y, int64_t n, int K, bool dekker) {
  if (n <= 0) return 0.0;
  std::vector<double> t(2 * n);
  dp_dot_products(x, y, n, dekker, t.data());
  dp_levels(t.data(), 2 * n, 2, INT64_MAX, TwoSumInPlace{});  // DPDot's levels d >= 1
  const double plain = t[0];
  for (int k = 2; k < K; ++k) dp_sum_pass(t.data(), 2 * n);  // K-2 passes
  return ieee_result(dp_red(t.data(), 2 * n), plain);
}

// Merges G lane states (st[g*K .. g*K+K)) by the pairwise tree on the lane index; root in lane 0.
inline void kf_merge_lanes(double* st, int64_t G, int K, int64_t w_lo = 1, int64_t w_hi = INT64_MAX) {
  for (int64_t w = w_lo; w < G && w < w_hi; w *= 2)
    for (int64_t g = 0; g + w < G; g += 2 * w) kf_merge<0>(st + g * K, st + (g + w) * K, K);
}

// The fused variant, serially: lanes, then their tree, then the flush. (Ordered = true gives the
// same result with two_sum_ordered for the lanes' TwoSums, as the GPU kernel does.)
template <bool Ordered = false>
double dpsumk_fused(const double* x, int64_t n, int K) {
  if (n <= 0) return 0.0;
  const int64_t G = fused_lanes(n);
  std::vector<double> st(G * K, -0.0);
  for (int64_t i = 0; i < n; ++i) kf_sum_elem<0, Ordered>(&st[((i / kFusedVec) % G) * K], K, x[i]);
  kf_merge_lanes(st.data(), G, K);
  return kf_finalize<0>(st.data(), K);
}
template <bool Ordered = false>
double dpdotk_fused(const double* x, const double* y, int64_t n, int K, bool dekker) {
  if (n <= 0) return 0.0;
  const int64_t G = fused_lanes(n);
  std::vector<double> st(G * K, -0.0);
  for (int64_t i = 0; i < n; ++i) {
    double* a = &st[((i / kFusedVec) % G) * K];
    if (dekker)
      kf_dot_elem<0, true, Ordered>(a, K, x[i], y[i]);
    else
      kf_dot_elem<0, false, Ordered>(a, K, x[i], y[i]);
  }
  kf_merge_lanes(st.data(), G, K);
  return kf_finalize<0>(st.data(), K);
}

// ---------------------------------------------------------------------------------------------
// The bound (derivation at the top of this file).
enum class DpVariant { tree, fused };

// Depths: level 1, levels 2..K (see "Depths D" above).
struct DpDepths {
  int64_t first = 0, rest = 0;
};
inline DpDepths dp_depths(bool dot, DpVariant v, int64_t n, int K) {
  if (n <= 1 && !dot) return {0, 0};  // one term: returned exactly
  if (v == DpVariant::tree) {
    if (!dot) return {ceil_log2(n), ceil_log2(n)};
    return {ceil_log2(n), ceil_log2(2 * n)};
  }
  const int64_t m = fused_lane_elems(n);
  const int64_t merges = int64_t(K) * (ceil_log2(fused_lanes(n)) + 1);
  return {m + merges, (dot ? 2 * m : m) + merges};
}

// Absolute error bound for |s| = abs_s (rounded to nearest) and S (rounded up); +inf outside
// the domain (S > 2^1021: a partial sum could overflow).
inline double dp_bound(bool dot, DpVariant v, int K, int64_t n, double abs_s, double S) {
  using namespace bounds;
  if (n <= 0) return 0.0;
  if (!in_domain(S)) return kInf;
  const DpDepths d = dp_depths(dot, v, n, K);
  const double a1 = gamma_up(d.first), a = gamma_up(d.rest);
  const double one_u = 1.0 + 0x1p-52;  // >= 1 + u
  const double nn = static_cast<double>(n);
  double prod = 0, H = S, T = 0;  // dot: per-product underflow, mass of h, mass of t
  if (dot) {
    prod = mul_up(nn, 4 * kEta);
    H = add_up(mul_up(one_u, S), mul_up(nn, kEta));   // n eta >= n eta / 2
    T = add_up(mul_up(kU, S), mul_up(nn, 5 * kEta));  // >= 4.5 n eta
  }
  const double s1 = add_up(abs_up(abs_s), prod);  // >= |s'|
  double E = mul_up(a1, H);                       // error mass of level 1
  double extra = T;                               // leaves of the next level besides errors/root
  for (int k = 2; k <= K - 1; ++k) {
    double M = add_up(s1, mul_up(2.0, add_up(extra, E)));
    E = mul_up(a, M);
    extra = 0;
  }
  double err;
  if (v == DpVariant::fused)
    err = add_up(mul_up(kU, s1), mul_up(one_u, mul_up(a, add_up(extra, E))));
  else
    err = mul_up(a, add_up(s1, mul_up(2.0, add_up(extra, E))));
  return add_up(err, prod);
}

inline const char* dp_bound_cite() {
  return "Guarantee: fused is K-fold with first-order term u|s|; tree's first-order term is "
         "gamma_{ceil(log2 n)}|s|, not u|s| (its final DPRed pass rounds at every tree level). "
         "K-fold bound in the form of Ogita-Rump-Oishi 2005 Prop. 4.10/5.11, derived for this summation "
         "order in families/sum_dot/dpsum.hpp: tree |res-s| <= a(|s|+2E), fused <= u|s|+(1+u)aE, E the level-(K-1) "
         "error "
         "mass (E_k <= a M_k, M_{k+1} <= |s|+2E_k), a = gamma_D, D = ceil(log2 n) (tree) or lane depth "
         "m+K(log2 G+1) (fused)";
}

// ---------------------------------------------------------------------------------------------
// What every backend registers: the parameters, their reading, the bound.
inline std::vector<ParamSpec> dp_params(bool dot) {
  std::vector<ParamSpec> ps = {
      ParamSpec{"K", "fold of working precision (K-1 error-free levels)", true, 2, 64, {}, "2"},
      ParamSpec{"variant",
                "tree: the paper's DPSum passes (K-1 of them, then DPRed); fused: one pass with cascaded "
                "per-lane accumulators",
                false,
                0,
                0,
                {"tree", "fused"},
                "fused",
                true}};
  if (dot)
    ps.push_back(ParamSpec{"twoprod",
                           "how TwoProduct is formed: fma (one FMA) or dekker (Veltkamp/Dekker Split)",
                           false,
                           0,
                           0,
                           {"fma", "dekker"},
                           "fma",
                           true});
  return ps;
}
inline int dp_K(const Params& p) { return static_cast<int>(param_int(p, "K")); }
inline DpVariant dp_variant(const Params& p) {
  return param_str(p, "variant") == "tree" ? DpVariant::tree : DpVariant::fused;
}
inline bool dp_dekker(const Params& p) { return param_str(p, "twoprod") == "dekker"; }
inline std::function<double(const Params&, const ExactFacts&)> dp_bound_fn(bool dot) {
  return [dot](const Params& p, const ExactFacts& f) {
    return dp_bound(dot, dp_variant(p), dp_K(p), f.n, f.abs_sum, f.sum_abs);
  };
}
// The dpsumk (dot = false) or dpdotk entry of a backend: what every backend shares (family,
// name, K-fold guarantee, parameters, domain and bound); the backend adds its kernel and any
// parameters of its own.
inline AlgoEntry dp_entry(bool dot, const std::string& backend, const std::string& summary) {
  return AlgoEntry(dot ? "dot" : "sum", dot ? "dpdotk" : "dpsumk", backend, summary)
      .promises(Guarantee::kfold)
      .with_params(dp_params(dot))
      .within_domain(dot ? bounds::dot_domain : bounds::sum_domain)
      .bounded_by(dp_bound_fn(dot), dp_bound_cite());
}

}  // namespace accsum
