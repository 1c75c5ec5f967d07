#pragma once
// Proven absolute error bounds of the serial sum and dot algorithms, in terms of the exact facts
// of the data: n, |s| (s the exact sum or dot) and S = sum|x_i| (or sum|x_i y_i|). Every bound is
// evaluated with upward-safe arithmetic: each operation's round-to-nearest result is pushed one
// ulp up (a lower bound one ulp down), so the double returned is >= the real-number bound.
// +inf means "no bound": the theorem's precondition on n fails, or S is so large that a partial
// sum could overflow. Each algorithm also states its domain (sum_domain, dot_domain below) from
// the exact facts of the data, so a report says why no bound is claimed.
//
// u = 2^-53, gamma_k = k u / (1 - k u) for k u < 1 (Higham 2002, Lemma 3.1).
//
// Provenance (ORO = Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput.
// 26(6):1955-1988, 2005; eps there is u here):
//   Prop. 4.5  (Sum2, Alg. 4.4):  n u < 1, also with underflow:
//              |res - s| <= eps|s| + gamma_{n-1}^2 S                                  -> sum2
//   Prop. 4.10 (SumK, Alg. 4.8):  4 n u <= 1, also with underflow:
//              |res - s| <= (eps + 3 gamma_{n-1}^2)|s| + gamma_{2n-2}^K S              -> sum_k
//   Prop. 5.11 (DotK, Alg. 5.10): 8 n u <= 1, no underflow:
//              |res - x.y| <= (eps + 2 gamma_{4n-2}^2)|x.y| + gamma_{4n-2}^K |x|.|y|   -> dot_k (K >= 3)
// The constants below are these, term for term. Derived here, with the derivation beside them:
// dot_k for K = 2 (Prop. 5.11 is stated for K >= 3, and DotK with K = 2 sums its terms in another
// order than ORO's Dot2) and the underflow terms of the dot bounds.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"

namespace accsum::bounds {

constexpr double kU = 0x1p-53;      // unit roundoff of binary64
constexpr double kEta = 0x1p-1074;  // smallest positive subnormal
constexpr double kInf = std::numeric_limits<double>::infinity();

inline double up(double v) { return std::nextafter(v, kInf); }
inline double down(double v) { return std::nextafter(v, -kInf); }
// For non-negative operands that are upper bounds: an upper bound of the exact sum / product.
inline double add_up(double a, double b) { return up(a + b); }
inline double mul_up(double a, double b) { return up(a * b); }

// gamma_k rounded up; +inf when k u >= 1. k u and 1 - k u are exact for k < 2^53.
inline double gamma_up(int64_t k) {
  if (k <= 0) return 0.0;
  double ku = static_cast<double>(k) * kU;
  if (ku >= 1.0) return kInf;
  return up(ku / down(1.0 - ku));
}

inline double pow_up(double g, int k) {
  double r = 1.0;
  for (int i = 0; i < k; ++i) r = mul_up(r, g);
  return r;
}

// S beyond 2^1021 lets a partial sum (or a TwoSum intermediate, at most about 2 S) come near
// the overflow threshold: no bound is claimed there.
inline bool in_domain(double S) { return S <= kOverflowSafeMass; }

// Dekker's Split multiplies by 2^27 + 1: it stays finite for |a| <= 2^996, since
// 2^996 (2^27 + 1) < 2^1024 (Dekker 1971; Boldo 2006 on the Veltkamp/Dekker algorithms).
constexpr double kSplitSafeMax = 0x1p996;

// Domains, stated from the data's exact facts: "" where the bounds below hold, else the reason.
inline std::string sum_domain(const Params&, const ExactFacts& f) {
  return f.partial_sums_may_overflow ? "S > 2^1021: a partial sum or an error-free transform can overflow" : "";
}
// A dot product: as for sums, and, when TwoProduct is Dekker's (parameter twoprod=dekker),
// every |x_i| and |y_i| within Split's range.
inline std::string dot_domain(const Params& p, const ExactFacts& f) {
  if (f.partial_sums_may_overflow) return "S = sum|x_i y_i| > 2^1021: a partial sum or a TwoProduct can overflow";
  auto it = p.find("twoprod");
  if (it != p.end() && it->second == "dekker" && (f.max_abs_x > kSplitSafeMax || f.max_abs_y > kSplitSafeMax))
    return "max |x_i|, |y_i| > 2^996: Dekker's Split overflows (it multiplies by 2^27 + 1)";
  return "";
}

// |s| is given rounded to nearest; one ulp up makes it an upper bound.
inline double abs_up(double abs_s) { return up(abs_s); }

// ---- sums ----

// Recursive summation: |res - s| <= gamma_{n-1} S (Higham 2002, eq. 4.4). Holds with underflow
// (additions that underflow are exact).
inline double naive_sum(int64_t n, double S) {
  if (!in_domain(S)) return kInf;
  return mul_up(gamma_up(n - 1), S);
}

// Any summation in which each term takes part in at most h additions: |res - s| <= gamma_h S
// (each term is multiplied by at most h factors 1 + delta, |delta| <= u; Higham 2002 §4.2,
// eq. 4.6 for the complete binary tree, h = ceil(log2 n)). Pass h = pairwise_depth(n).
inline double tree_sum(int64_t h, double S) {
  if (!in_domain(S)) return kInf;
  return mul_up(gamma_up(h), S);
}

// Sum2 = Neumaier: |res - s| <= u|s| + gamma_{n-1}^2 S, for n u < 1, also in the presence of
// underflow (Ogita, Rump, Oishi 2005, Prop. 4.5).
inline double sum2(int64_t n, double abs_s, double S) {
  if (!in_domain(S) || static_cast<double>(n) * kU >= 1.0) return kInf;
  double g = gamma_up(n - 1);
  return add_up(mul_up(kU, abs_up(abs_s)), mul_up(mul_up(g, g), S));
}

// SumK, K >= 2: |res - s| <= (u + 3 gamma_{n-1}^2)|s| + gamma_{2n-2}^K S, for 4 n u <= 1, also in
// the presence of underflow (Ogita, Rump, Oishi 2005, Prop. 4.10).
inline double sum_k(int64_t n, int K, double abs_s, double S) {
  if (!in_domain(S) || 4.0 * static_cast<double>(n) * kU > 1.0) return kInf;
  double g1 = gamma_up(n - 1);
  double lead = add_up(kU, mul_up(3.0, mul_up(g1, g1)));
  return add_up(mul_up(lead, abs_up(abs_s)), mul_up(pow_up(gamma_up(2 * n - 2), K), S));
}

// ---- dots (S = sum |x_i y_i|) ----

// Per product, the most a TwoProduct (or a plain product) that underflows can be off, in
// smallest subnormals: FMA's error term is one rounding in the subnormal range (1/2); Dekker's
// is at most 7/2 (Boldo 2006, "Pitfalls of a full floating-point proof: the Veltkamp/Dekker
// algorithms"; our tests observe at most about 1.6). Doubled for the amplification (1 + O(u)) of
// this perturbation through the rest of the algorithm.
constexpr double kUnderflowPerProduct = 8.0 * kEta;

inline double underflow_term(int64_t n) { return mul_up(static_cast<double>(n), kUnderflowPerProduct); }

// Recursive dot product: |res - x.y| <= gamma_n S (Higham 2002, eq. 3.5) for products that do
// not underflow; a product in the subnormal range adds at most eta/2 (Higham 2002, eq. 2.8).
inline double naive_dot(int64_t n, double S) {
  if (!in_domain(S)) return kInf;
  return add_up(mul_up(gamma_up(n), S), underflow_term(n));
}

// DotK, K >= 2: |res - x.y| <= (u + 2 gamma_{4n-2}^2)|x.y| + gamma_{4n-2}^K S, for 8 n u <= 1,
// plus underflow_term(n). For K >= 3 this is Ogita, Rump, Oishi 2005, Prop. 5.11 (no underflow).
// For K = 2 (Prop. 5.11 does not cover it) our derivation in the same form: the TwoProduct and
// TwoSum cascade turns x.y exactly into r + sum t_i (2n - 1 terms t_i) with sum|t_i| <= gamma_n S
// (ORO Lemma 2.3 and Prop. 5.1's argument); SumK with K - 1 = 1 is the recursive sum of the t_i
// with r added last, so |res - x.y| <= u|x.y| + (1 + u) gamma_{2n-2} sum|t_i| + O(u^2)|x.y|
// <= (u + 2 gamma_{4n-2}^2)|x.y| + gamma_{4n-2}^2 S, since gamma_{2n-2} gamma_n <= gamma_{4n-2}^2.
// Underflow: the TwoProducts then give terms whose exact sum is off from x.y by at most
// underflow_term(n); the rest of DotK (TwoSums and additions) is unaffected by underflow (ORO's
// remark after Prop. 4.10). The tests check this bound on every generator, underflow included.
inline double dot_k(int64_t n, int K, double abs_s, double S) {
  if (!in_domain(S) || 8.0 * static_cast<double>(n) * kU > 1.0) return kInf;
  double g = gamma_up(4 * n - 2);
  double lead = add_up(kU, mul_up(2.0, mul_up(g, g)));
  double b = add_up(mul_up(lead, abs_up(abs_s)), mul_up(pow_up(g, K), S));
  return add_up(b, underflow_term(n));
}

}  // namespace accsum::bounds
