#pragma once
// sgemm-ozaki's and dgemm-ozaki's accuracy targets (--accuracy): the error bound of a plan that does
// not cover every line, and the fewest moduli whose bound meets a target. Shared by the cpu and cuda backends (the
// host computes it from line summaries both backends produce with the same integers, so the plan
// and the reported bounds are the same bits on both).
//
// Error of the scaling (families/gemm/ozaki.hpp, step 1). Row i of A is rounded to the integer grid
// 2^(top_i - bits_a): |a~_ik - a_ik| <= da_i = 2^(top_i - bits_a - 1), and 0 when the row is covered
// (bit span <= bits_a); columns of B likewise (db_j). Everything after the scaling is exact, so
// the exact value alpha A~B~ + beta C that is rounded once differs from alpha AB + beta C by
// |alpha| E_ij, with (the triangle inequality on sum_k a~ b~ - a b)
//     E_ij <= da_i ||b_j||_1 + db_j ||a_i||_1 + K da_i db_j.                                    (1)
// The result r_ij = RN(that value) is then within |alpha| E_ij + ulp(r_ij)/2 of the exact entry.
// The run reports, per row, bound_i = |alpha| max_j (1) (upper bounds of the norms below); the
// oracle checks |r_ij - exact_ij| <= bound_i + ulp(r_ij)/2 for every judged entry.
//
// Targets:
//   cr     E = 0: every line covered (the plan's default rule; correctly rounded entries).
//   faithful  cr's plan, and every entry whose rounding its bound cannot prove faithful
//          (faithful_within, core/numerics/float_entry.hpp) summed exactly instead: correctly
//          rounded. No plan with fewer moduli proves more: a bound proving RN(v) faithful must be
//          below half the gap around the entry (2^-25 of it at worst), and (1) relative to an
//          entry of U[0,1) data is about 2^(1 - bits), so it proves nothing below 26 bits a side,
//          where covering U[0,1)'s lines takes 24, even where nothing cancels.
//   sgemm  E_ij <= gamma_K ||a_i||_2 ||b_j||_2 for every (i, j), gamma_K = K u / (1 - K u),
//          u = 2^-24. gamma_K |a_i|^T |b_j| is the classical bound of a float dot product summed
//          recursively (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Lemma
//          3.4 and (3.13)), what cuBLAS SGEMM guarantees; ||a_i||_2 ||b_j||_2 >= |a_i|^T |b_j| is
//          its Cauchy-Schwarz form. Then |r_ij - exact| <= gamma_(K+1) (|alpha| ||a_i||_2 ||b_j||_2 +
//          |beta c_ij|): at most the normwise form of SGEMM's bound on the data (not its
//          componentwise form, which needs |A||B|, a product of its own; the oracle reports how
//          the two compare: bound_over_sgemm_bound).
//   dgemm  the same for doubles with u = 2^-53: DGEMM's bound in its normwise form.
// The check of (1) against the target for all (i, j) divides by ||a_i||_2 ||b_j||_2 and bounds
// each of the three terms by (max over rows) x (max over columns): sufficient, O(M + N) per
// candidate number of moduli.
//
// Norms exactly, in any order: with F = kNormFracBits, S1 = sum_k ceil(|x_k| 2^(F - top)) and
// S2 = sum_k floor(x_k^2 2^(F - 2 top)) are integers (each term <= 2^F: |x| < 2^top; the scalings are
// exact in double), so ||x||_1 <= S1 2^(top - F) and ||x||_2^2 >= S2 2^(2 top - F) whatever the order
// of the additions (the cuda backend adds them with atomics). Non-finite entries are left out
// (their lines are IEEE-special and not scaled). Doubles: y = |x| 2^-top in [0, 1) is exact (or a
// smaller subnormal, the bound stays valid), y^2 is rounded, and its floor is taken after a factor
// (1 - 2^-50) below it, so each term stays a lower bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "families/gemm/ozaki.hpp"

namespace accsum::ozaki {

enum class Accuracy { cr, faithful, sgemm, dgemm };

// Whether a target takes the covering plan (every line exact where the moduli allow).
inline bool exact_plan_target(Accuracy a) { return a == Accuracy::cr || a == Accuracy::faithful; }

constexpr int kNormFracBits = 32;           // K < 2^31 terms of <= 2^32: the sums fit uint64
constexpr double kRoundUp = 1 + 0x1p-50;    // covers the roundings of the double arithmetic below
constexpr double kRoundDown = 1 - 0x1p-50;  // (a few operations of relative error 2^-53 each)

// u of each format.
template <class F>
constexpr double unit_roundoff() {
  return sizeof(F) == 4 ? 0x1p-24 : 0x1p-53;
}
constexpr double kUnitRoundoff = unit_roundoff<float>();

// One entry's terms of S1 and S2 (see the header comment); x finite, top = its line's top.
ACCSUM_HD uint64_t norm1_term(float x, int top) {
  return static_cast<uint64_t>(ceil(fabs(static_cast<double>(x)) * pow2(kNormFracBits - top)));
}
ACCSUM_HD uint64_t norm2_term(float x, int top) {
  const double v = static_cast<double>(x);
  return static_cast<uint64_t>(floor(v * v * pow2(kNormFracBits - 2 * top)));
}
ACCSUM_HD uint64_t norm1_term(double x, int top) {
  const double v = ldexp(fabs(x), kNormFracBits - top);
  return x != 0 && v == 0 ? 1 : static_cast<uint64_t>(ceil(v));  // an underflowed term still counts up
}
ACCSUM_HD uint64_t norm2_term(double x, int top) {
  const double y = ldexp(fabs(x), -top);
  return static_cast<uint64_t>(floor(ldexp(y * y, kNormFracBits) * kRoundDown));
}

// 2^e as a double (float: e in pow2's range, the fast form; double: any e, 0 or infinity beyond,
// the fast form where the power is normal).
template <class F>
double exp2_of(int e) {
  return sizeof(F) == 4 || (e >= -1022 && e <= 1023) ? pow2(e) : std::ldexp(1.0, e);
}

// Line norms as doubles: ||x||_1 rounded up, ||x||_2 rounded down.
// (pow2 for float: exact powers of two, top in [-148, 128]; ldexp is several times slower and this
// runs per line)
template <class F = float>
double norm1_upper(uint64_t s1, int top) {
  return static_cast<double>(s1) * kRoundUp * exp2_of<F>(top - kNormFracBits);
}
template <class F = float>
double norm2_lower(uint64_t s2, int top) {
  return std::sqrt(static_cast<double>(s2) * kRoundDown) * kRoundDown * exp2_of<F>(top - kNormFracBits / 2);
}

// What the bound needs of each line: its span, norms, 2^top and 2^top / ||.||_2 (zero and special
// lines: span 0, norms 0), computed once per call (the plan tries up to 12 numbers of moduli).
struct LineNorms {
  std::vector<int> span;
  std::vector<double> n1, n2;         // ||.||_1 upper, ||.||_2 lower
  std::vector<double> step, step_n2;  // 2^top, 2^top / n2 (0 where n2 = 0)
};

// Over the lines with span > bits: the largest 2^top and 2^top / n2 (the grid half-step is
// 2^(top - bits - 1)); over all lines: the largest n1 and n1 / n2.
struct LineMaxima {
  double step_over_n2 = 0, n1_over_n2 = 0, step = 0;
  double n1 = 0;
};
inline LineMaxima line_maxima(const LineNorms& l, int bits) {
  LineMaxima m;
  for (size_t i = 0; i < l.span.size(); ++i) {
    if (l.n2[i] > 0) m.n1_over_n2 = std::max(m.n1_over_n2, l.n1[i] / l.n2[i]);
    m.n1 = std::max(m.n1, l.n1[i]);
    if (l.span[i] > bits) {
      m.step = std::max(m.step, l.step[i]);
      m.step_over_n2 = std::max(m.step_over_n2, l.step_n2[i]);
    }
  }
  return m;
}

// line_maxima(l, bits) for every bits in [0, kMaxSideBits], from one pass over the lines (bucketed
// by span, then maxima from the widest span down): the plan tries up to 25 numbers of moduli.
struct LineMaximaByBits {
  std::vector<LineMaxima> at;  // at[bits]
};
template <class F = float>
LineMaximaByBits line_maxima_by_bits(const LineNorms& l) {
  constexpr int kMaxSideBits = Format<F>::kMaxSideBits;
  constexpr int kBuckets = kMaxSideBits + 2;  // span 0 .. kMaxSideBits, and wider
  std::vector<LineMaxima> bucket(kBuckets);
  LineMaxima all;
  for (size_t i = 0; i < l.span.size(); ++i) {
    if (l.n2[i] > 0) all.n1_over_n2 = std::max(all.n1_over_n2, l.n1[i] / l.n2[i]);
    all.n1 = std::max(all.n1, l.n1[i]);
    LineMaxima& b = bucket[static_cast<size_t>(std::min(l.span[i], kBuckets - 1))];
    b.step = std::max(b.step, l.step[i]);
    b.step_over_n2 = std::max(b.step_over_n2, l.step_n2[i]);
  }
  LineMaximaByBits m;
  m.at.resize(kMaxSideBits + 1);
  LineMaxima wider;  // over the lines with span > bits
  for (int bits = kBuckets - 2; bits >= 0; --bits) {
    wider.step = std::max(wider.step, bucket[static_cast<size_t>(bits + 1)].step);
    wider.step_over_n2 = std::max(wider.step_over_n2, bucket[static_cast<size_t>(bits + 1)].step_over_n2);
    m.at[static_cast<size_t>(bits)] = LineMaxima{wider.step_over_n2, all.n1_over_n2, wider.step, all.n1};
  }
  return m;
}

// gamma_K (infinite when K u >= 1).
template <class F = float>
double gamma_k(int64_t K) {
  const double ku = static_cast<double>(K) * unit_roundoff<F>();
  return ku >= 1 ? INFINITY : ku / (1 - ku) * kRoundDown;
}

// Whether a plan with these bits meets the sgemm (F = double: dgemm) target on every (i, j) (the
// header comment's separable sufficient condition).
template <class F = float>
bool meets_sgemm_target(const LineMaximaByBits& rows, const LineMaximaByBits& cols, int bits_a, int bits_b, int64_t K) {
  const LineMaxima& r = rows.at[static_cast<size_t>(bits_a)];
  const LineMaxima& c = cols.at[static_cast<size_t>(bits_b)];
  const double ha = std::ldexp(1.0, -bits_a - 1), hb = std::ldexp(1.0, -bits_b - 1);
  const double t = (r.step_over_n2 * ha * c.n1_over_n2 + c.step_over_n2 * hb * r.n1_over_n2 +
                    static_cast<double>(K) * r.step_over_n2 * ha * c.step_over_n2 * hb) *
                   kRoundUp;
  return t <= gamma_k<F>(K);
}

// One line's part of (1) under a plan: its half-step (da_i; 0 when the line is covered) and ||.||_1 upper.
struct LineTerms {
  double half_step = 0, n1 = 0;
};
inline LineTerms line_terms(const LineNorms& l, size_t i, int bits) {
  return {l.span[i] > bits ? l.step[i] * std::ldexp(1.0, -bits - 1) : 0.0, l.n1[i]};
}
// |alpha| times (1) for one entry, rounded up: --accuracy=faithful's check, on the host and in the CUDA combine
// (the same operations, no contraction), and row_bounds' value.
ACCSUM_HD double entry_bound(LineTerms r, LineTerms c, int64_t K, double abs_alpha) {
  return (r.half_step * c.n1 + c.half_step * r.n1 + static_cast<double>(K) * r.half_step * c.half_step) * kRoundUp *
         abs_alpha;
}

// bound_i: |alpha| max_j of (1) for row i under a plan (0 for a covered row meeting covered columns), into `out`
// (its storage reused: the cuda backend plans every call on the host while the GPU waits). It is entry_bound with
// the column terms at their maxima, so no entry's bound exceeds its row's.
inline void row_bounds(const LineNorms& rows, const LineNorms& cols, const Plan& p, int64_t K, double abs_alpha,
                       std::vector<double>& out) {
  const LineMaxima c = line_maxima(cols, p.bits_b);
  const LineTerms widest{c.step * std::ldexp(1.0, -p.bits_b - 1), c.n1};  // max_j db_j, max_j ||b_j||_1
  out.resize(rows.span.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = entry_bound(line_terms(rows, i, p.bits_a), widest, K, abs_alpha);
}

}  // namespace accsum::ozaki
