#pragma once
// The serial sums: the readable definitions that every faster version (cpu-mt, CUDA, OpenCL) is
// tested against. One core, one pass in index order, no reordering.
//
// Special values (the IEEE 754 rules in the README). Plain recursive summation gets IEEE 754 right by itself: a NaN in
// gives NaN, +inf with -inf gives NaN, only +inf gives +inf, and the sum is -0 exactly when every
// term is -0 (x + y is -0 in round-to-nearest only for -0 + -0). The compensated algorithms do
// not: the error term of TwoSum(inf, x) is inf - inf = NaN, and TwoSum(-0, -0) has error +0, so
// they defer to the plain sum whenever it is not finite or is -0 (ieee_fixup below).
//
// Domain. Finite data whose partial sums overflow although the exact sum does not (e.g. DBL_MAX,
// DBL_MAX, -DBL_MAX) is outside the domain of every algorithm here: the plain sum is then +-inf or
// NaN and is returned as is. Underflow is harmless: a sum that lands in the subnormal range is
// exact, so TwoSum stays error-free and the bounds of families/sum_dot/sum_bounds.hpp hold with underflow.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "core/numerics/eft.hpp"
#include "base/hd.hpp"

namespace accsum {

// The result of a compensated algorithm, corrected by the plain recursive sum (or dot) of the
// same data for special values and the sign of zero (see above).
ACCSUM_HD double ieee_fixup(double compensated, double plain) {
  if (!std::isfinite(plain)) return plain;
  if (plain == 0 && std::signbit(plain)) return plain;  // every term was -0
  return compensated;
}

// Recursive summation, left to right. The empty sum is +0 (as mpfr_sum).
inline double sum_naive(const double* x, int64_t n) {
  if (n <= 0) return 0.0;
  double s = x[0];
  for (int64_t i = 1; i < n; ++i) s += x[i];
  return s;
}

// Compensated algorithms whose running value is not the plain sum call this at the end: only a
// non-finite or zero result can need the plain sum (a NaN/inf input makes the result NaN; all -0
// terms make it +-0), so the plain sum is formed lazily, in a second pass, only then.
inline double fixup_with_plain_sum(double compensated, const double* x, int64_t n) {
  if (std::isfinite(compensated) && compensated != 0) return compensated;
  return ieee_fixup(compensated, sum_naive(x, n));
}

// ---- pairwise (cascade) summation: split in halves, recursively; short runs summed in order ----
constexpr int64_t kPairwiseBase = 8;

inline double sum_pairwise(const double* x, int64_t n) {
  if (n <= kPairwiseBase) return sum_naive(x, n);
  int64_t half = n / 2;
  return sum_pairwise(x, half) + sum_pairwise(x + half, n - half);
}

// The most additions any one term passes through in sum_pairwise(n): n - 1 in a base run, one
// more per level above it. Its bound is gamma_{depth} * sum|x_i| (each term is multiplied by at
// most `depth` factors 1 + delta). Not monotone in n (17 = 8 + 9 is deeper through its base run
// of 8 than through 9 = 4 + 5), so both halves are followed; sizes on one level differ by at most
// one, so the memo stays O(log n).
inline int64_t pairwise_depth(int64_t n, std::map<int64_t, int64_t>& memo) {
  if (n <= kPairwiseBase) return n > 0 ? n - 1 : 0;
  auto it = memo.find(n);
  if (it != memo.end()) return it->second;
  int64_t d = 1 + std::max(pairwise_depth(n / 2, memo), pairwise_depth(n - n / 2, memo));
  memo[n] = d;
  return d;
}
inline int64_t pairwise_depth(int64_t n) {
  std::map<int64_t, int64_t> memo;
  return pairwise_depth(n, memo);
}

// ---- Kahan's compensated summation (Kahan 1965; Higham 2002 Alg. 4.2) ----
// c holds the negated low part that the last addition lost; it is subtracted from the next term.
inline double sum_kahan(const double* x, int64_t n) {
  if (n <= 0) return 0.0;
  double s = x[0], c = 0.0;
  for (int64_t i = 1; i < n; ++i) {
    double y = x[i] - c;
    double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return fixup_with_plain_sum(s, x, n);
}

// ---- Neumaier's improved Kahan-Babuska summation (Neumaier 1974) ----
// FastTwoSum with the larger operand first gives the exact error of every addition; the errors
// are summed apart and added once at the end. This is exactly Ogita-Rump-Oishi's Sum2 (ORO 2005
// Alg. 4.4: TwoSum finds the same exact errors without the branch), so it has Sum2's bound.
// s is the plain recursive sum itself.
inline double sum_neumaier(const double* x, int64_t n) {
  if (n <= 0) return 0.0;
  double s = x[0], c = 0.0;
  for (int64_t i = 1; i < n; ++i) {
    double t = s + x[i];
    if (std::fabs(s) >= std::fabs(x[i]))
      c += (s - t) + x[i];
    else
      c += (x[i] - t) + s;
    s = t;
  }
  return ieee_fixup(s + c, s);
}

// ---- Priest's doubly compensated summation, exactly as in Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for
// matrix multiplications on GPUs", Fig. 1 ---- Priest proves 2u|s| for terms sorted by decreasing magnitude; like the
// paper we do not sort, so no bound is claimed.
inline double sum_dcs(const double* x, int64_t n) {
  if (n <= 0) return 0.0;
  double s = x[0], c = 0.0;  // s_1 = x_1, c_1 = 0
  for (int64_t k = 1; k < n; ++k) {
    double y = c + x[k];        // y_k = c_{k-1} + x_k
    double u = x[k] - (y - c);  // u_k = x_k - (y_k - c_{k-1})
    double t = y + s;           // t_k = y_k + s_{k-1}
    double v = y - (t - s);     // v_k = y_k - (t_k - s_{k-1})
    double z = u + v;           // z_k = u_k + v_k
    s = t + z;                  // s_k = t_k + z_k
    c = z - (s - t);            // c_k = z_k - (s_k - t_k)
  }
  return fixup_with_plain_sum(s, x, n);
}

// ---- SumK (Ogita, Rump, Oishi 2005, Alg. 4.8; Suzuki, "Parallel algorithms for accurate summation and dot product on
// the GPU") ---- K-1 passes of VecSum (ORO Alg. 4.3) over the vector: for i = 2..n, (p_i, p_{i-1}) = TwoSum(p_i,
// p_{i-1}); each pass keeps the exact sum and moves it into p_n, leaving the rounding errors behind. Then the plain sum
// p_1 + ... + p_n. The result is as accurate as if computed in K-fold working precision and rounded (ORO Prop. 4.10).
//
// sum_k_passes is the algorithm on a vector it may overwrite; `passes` may be 0 (DotK calls
// SumK(r, K-1) with K = 2). Returns the raw result; callers apply ieee_fixup.
inline double sum_k_passes(std::vector<double>& p, int passes) {
  const int64_t n = static_cast<int64_t>(p.size());
  if (n == 0) return 0.0;
  for (int k = 0; k < passes; ++k)
    for (int64_t i = 1; i < n; ++i) two_sum(p[i], p[i - 1], p[i], p[i - 1]);
  return sum_naive(p.data(), n);
}

// The readable definition: ORO's SumK on a copy of the input, K >= 2.
inline double sum_k_reference(const double* x, int64_t n, int K) {
  if (n <= 0) return 0.0;
  std::vector<double> p(x, x + n);
  const double plain = sum_naive(x, n);  // what VecSum's first pass leaves in p_n
  return ieee_fixup(sum_k_passes(p, K - 1), plain);
}

// SumK without the copy, bitwise identical to sum_k_passes. Pass k consumes p_i only after pass
// k-1 has finished with it, which happens one step later in the same sweep; so the passes run as
// a pipeline over a single read of the input, each TwoSum getting exactly the operands (same
// values, same order) that it gets in the vector form. Pass k's stream is the errors it leaves
// behind, in index order, then its final running sum (its p_n); the last stream is summed plainly.
// Usable in device code: fixed storage, no allocation; 0 <= passes <= kMaxPasses.
struct SumKStream {
  static constexpr int kMaxPasses = 64;
  int passes = 0;
  bool started[kMaxPasses] = {};
  double running[kMaxPasses] = {};  // pass k's p_{i-1}: the sum of its stream so far
  bool total_started = false;
  double total = 0.0;
  double plain = 0.0;  // pass 0's final running sum = the plain recursive sum (when passes >= 1)

  ACCSUM_HD explicit SumKStream(int passes_) : passes(passes_) {}

  // Feeds value as the next element of pass k's input stream.
  ACCSUM_HD void add_at(int k, double v) {
    for (; k < passes; ++k) {
      if (!started[k]) {  // p_1 of this pass: nothing to add it to yet
        running[k] = v;
        started[k] = true;
        return;
      }
      double s, e;
      two_sum(v, running[k], s, e);  // (p_i, p_{i-1}) = TwoSum(p_i, p_{i-1})
      running[k] = s;
      v = e;  // this pass's final p_{i-1} goes on to the next pass
    }
    if (total_started) {
      total += v;
    } else {
      total = v;
      total_started = true;
    }
  }
  ACCSUM_HD void add(double v) { add_at(0, v); }

  // Flushes each pass's p_n, in pass order, into the next pass; returns the raw SumK result.
  ACCSUM_HD double finish() {
    if (passes > 0 && started[0]) plain = running[0];
    for (int k = 0; k < passes; ++k)
      if (started[k]) add_at(k + 1, running[k]);
    return total_started ? total : 0.0;
  }
};

// SumK as the cpu backend runs it: one streaming read, K >= 2.
inline double sum_k(const double* x, int64_t n, int K) {
  if (K < 2 || K - 1 > SumKStream::kMaxPasses) throw std::invalid_argument("sum_k: K out of [2, 65]");
  if (n <= 0) return 0.0;
  SumKStream st(K - 1);
  for (int64_t i = 0; i < n; ++i) st.add(x[i]);
  double r = st.finish();
  return ieee_fixup(r, st.plain);
}

}  // namespace accsum
