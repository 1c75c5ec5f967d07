#pragma once
// Host pieces of sgemm-ozaki and dgemm-ozaki shared by the cpu and cuda backends (the numerics:
// families/gemm/ozaki.hpp): the --slices parameter, the line summaries of A's rows and B's columns, and what a run
// reports.
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_bound.hpp"
#include "core/frame/registry.hpp"

namespace accsum::ozaki {

// The parameters' text is the same for sgemm-ozaki and dgemm-ozaki (the CLI shows one --slices and one
// --accuracy); each entry's own choices are checked.
template <class F = float>
ParamSpec slices_param() {
  constexpr int kMost = Format<F>::kMaxModuli;
  ParamSpec p{"slices",
              "int8 products (moduli) of the Ozaki scheme II, 2.." + std::to_string(kMaxModuli) +
                  " (sgemm-ozaki) or 2.." + std::to_string(kMaxModuliDouble) +
                  " (dgemm-ozaki); 0: the fewest that make every entry exact (else the most, and the run reports the "
                  "rows/columns not covered)",
              true,
              0,
              kMost,
              {"0"},
              "0"};
  for (int L = kMinModuli; L <= kMost; ++L) p.choices.push_back(std::to_string(L));
  return p;
}

// The normwise BLAS target of each format: sgemm for float, dgemm for double.
template <class F>
constexpr Accuracy blas_target() {
  return sizeof(F) == 4 ? Accuracy::sgemm : Accuracy::dgemm;
}
template <class F>
const char* blas_name() {
  return sizeof(F) == 4 ? "sgemm" : "dgemm";
}

template <class F = float>
ParamSpec accuracy_param() {
  std::vector<std::string> choices{"cr"};
  if (sizeof(F) == 4) choices.push_back("faithful");
  choices.push_back(blas_name<F>());
  return ParamSpec{"accuracy",
                   "what the number of moduli (--slices=0) must achieve, chosen per call from the data: cr (every line "
                   "scaled exactly: correctly rounded), faithful for sgemm-ozaki (cr's moduli; an entry whose bound "
                   "does not prove its rounding faithful is summed exactly instead), sgemm for sgemm-ozaki, dgemm for "
                   "dgemm-ozaki (the fewest whose proven error bound is at most gamma_K ||a_i||_2 ||b_j||_2, u = 2^-24 "
                   "or 2^-53: SGEMM's or DGEMM's bound in its normwise form; families/gemm/ozaki_bound.hpp). Every run "
                   "reports its bound per row",
                   false,
                   0,
                   0,
                   choices,
                   "cr"};
}
inline Accuracy accuracy_of(const std::string& s) {
  return s == "sgemm"      ? Accuracy::sgemm
         : s == "dgemm"    ? Accuracy::dgemm
         : s == "faithful" ? Accuracy::faithful
                           : Accuracy::cr;
}

// The entry of sgemm-ozaki (F = float, family gemm) or dgemm-ozaki (F = double, family dgemm) on a
// backend whose kernel template K<F> is made from (Problem, moduli, accuracy).
template <class F, template <class> class K>
AlgoEntry ozaki_entry(const char* backend, const char* what) {
  const bool single = sizeof(F) == 4;
  return AlgoEntry(single ? "gemm" : "dgemm", single ? "sgemm-ozaki" : "dgemm-ozaki", backend, what)
      .promises_reproducible()
      .promises_by_params([](const Params& prm) {
        return accuracy_of(param_str(prm, "accuracy")) == Accuracy::faithful ? Guarantee::faithful : Guarantee::none;
      })
      .with_params({slices_param<F>(), accuracy_param<F>()})
      .maker([](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
        return std::make_unique<K<F>>(p, static_cast<int>(param_int(prm, "slices")),
                                      accuracy_of(param_str(prm, "accuracy")));
      });
}

// Per line: the largest |entry| bits and the lowest set-bit exponent over its entries, then (a
// second pass, given the line's top) the integer norm sums S1, S2 of families/gemm/ozaki_bound.hpp.
template <class F>
struct LinesOf {
  std::vector<typename Format<F>::Bits> max_bits;
  std::vector<int> low;
  std::vector<uint64_t> s1, s2;
};
using Lines = LinesOf<float>;

// count lines of `len` entries; entry k of line i at x[i * line_stride + k * entry_stride].
template <class F>
LinesOf<F> summarize_lines(const F* x, int64_t count, int64_t len, int64_t line_stride, int64_t entry_stride) {
  using Bits = typename Format<F>::Bits;
  LinesOf<F> s{
      std::vector<Bits>(static_cast<size_t>(count), 0u), std::vector<int>(static_cast<size_t>(count), kNoLow), {}, {}};
  for (int64_t i = 0; i < count; ++i)
    for (int64_t k = 0; k < len; ++k) {
      const Bits b = abs_bits(x[i * line_stride + k * entry_stride]);
      s.max_bits[static_cast<size_t>(i)] = std::max(s.max_bits[static_cast<size_t>(i)], b);
      if (b < Format<F>::kInf) s.low[static_cast<size_t>(i)] = std::min(s.low[static_cast<size_t>(i)], low_exponent(b));
    }
  s.s1.assign(static_cast<size_t>(count), 0);
  s.s2.assign(static_cast<size_t>(count), 0);
  for (int64_t i = 0; i < count; ++i) {
    const Bits mb = s.max_bits[static_cast<size_t>(i)];
    if (mb == 0 || special_line(mb)) continue;
    const int top = line_top(mb);
    for (int64_t k = 0; k < len; ++k) {
      const F v = x[i * line_stride + k * entry_stride];
      s.s1[static_cast<size_t>(i)] += norm1_term(v, top);
      s.s2[static_cast<size_t>(i)] += norm2_term(v, top);
    }
  }
  return s;
}

// What the error bound needs of the lines (zero and IEEE-special lines: span 0, norms 0).
// Into n, whose storage is reused (no allocation, no fresh pages, when the sizes repeat).
template <class F>
void norms_into(const LinesOf<F>& l, LineNorms& n) {
  const size_t count = l.low.size();
  n.span.resize(count);
  n.n1.resize(count);
  n.n2.resize(count);
  n.step.resize(count);
  n.step_n2.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const int top = line_top(l.max_bits[i]);
    n.span[i] = line_span(l.max_bits[i], l.low[i]);
    n.n1[i] = l.s1.empty() ? 0.0 : norm1_upper<F>(l.s1[i], top);
    n.n2[i] = l.s2.empty() ? 0.0 : norm2_lower<F>(l.s2[i], top);
    n.step[i] = exp2_of<F>(top);
    n.step_n2[i] = n.n2[i] > 0 ? n.step[i] / n.n2[i] : 0.0;
  }
}
template <class F>
LineNorms norms_of(const LinesOf<F>& l) {
  LineNorms n;
  norms_into(l, n);
  return n;
}

// Whether the number of moduli is chosen by the error bound (--accuracy=sgemm|dgemm, --slices=0).
inline bool chooses_by_bound(Accuracy accuracy, int moduli) { return !exact_plan_target(accuracy) && moduli == 0; }

// An exact plan may take fewer moduli than its rule's K 2^(bits_a + bits_b) asks when the lines' norms bound C'
// lower. With the norm sums S2 (families/gemm/ozaki_bound.hpp, F = kNormFracBits), each floored term falls short of
// x^2 2^(F - 2 top) by less than 2 (1 for floats; doubles add a rounding of relative size 2^-49 on terms <= 2^F),
// so ||a_i||_2^2 < 2^(2 top_i - F) (S2_i + 2K), and a covered row's A'_i = a_i 2^(bits_a - top_i) gives
// ||A'_i||_2^2 < 2^(2 bits_a - F) T_a, T_a = max_i S2_i + 2K. Cauchy-Schwarz: every
// |C'_ij| <= ||A'_i||_2 ||B'_j||_2 < 2^(bits_a + bits_b - F) ceil(sqrt(T_a T_b)), with bits = the needs (every
// line stays covered). Uniform data sit near a third of K 2^(bits_a + bits_b): U[-1,1] at K = 2^13 needs
// 25 + 25 bits, 8 moduli instead of 9.
// Tried only where it may pay for the norm sums (a pass over A and B): where the rule's bound is below kNormGain
// times the next smaller L's half product, kNormGain = 3 the gain of lines spread uniformly (||a||_2^2 about
// K max^2 / 3); a larger gain needs heavier-tailed lines, and missing it costs less than the pass would.
constexpr uint64_t kNormGain = 3;
template <class F>
bool norms_may_lower(const Plan& cover, int64_t K, Accuracy accuracy, int moduli) {
  using U = typename Format<F>::U;
  if (!exact_plan_target(accuracy) || moduli != 0 || !cover.exact() || cover.moduli <= kMinModuli) return false;
  const ProductBound rule{static_cast<uint64_t>(std::max<int64_t>(K, 1)), cover.need_a + cover.need_b};
  return rule.bits() < static_cast<int>(8 * sizeof(U)) - 2 &&
         rule.as<U>() < (moduli_product_of<U>(cover.moduli - 1) >> 1) * kNormGain;
}

// ceil(sqrt(x)) for x <= (2^64 - 1)^2 (the norms' product: below 2^127).
inline uint64_t ceil_sqrt(u128 x) {
  constexpr uint64_t kMost = UINT64_MAX;
  if (x > static_cast<u128>(kMost) * kMost) throw std::logic_error("ceil_sqrt: beyond 64 bits");
  const long double root = std::sqrt(static_cast<long double>(x));
  uint64_t r = root >= 0x1p64L ? kMost : static_cast<uint64_t>(root);
  while (r > 0 && static_cast<u128>(r) * r > x) --r;
  while (r < kMost && static_cast<u128>(r + 1) * (r + 1) <= x) ++r;
  return static_cast<u128>(r) * r == x ? r : r + 1;  // r < kMost here when r^2 < x
}

template <class F>
Plan tighten_by_norms(const Plan& cover, int64_t K, const LinesOf<F>& rows, const LinesOf<F>& cols) {
  if (rows.s2.size() != rows.low.size() || cols.s2.size() != cols.low.size())
    throw std::logic_error("tighten_by_norms needs the norm sums");
  const uint64_t slack = 2 * static_cast<uint64_t>(std::max<int64_t>(K, 0));
  uint64_t ta = 0, tb = 0;
  for (uint64_t v : rows.s2) ta = std::max(ta, v);
  for (uint64_t v : cols.s2) tb = std::max(tb, v);
  ProductBound b{ceil_sqrt(static_cast<u128>(ta + slack) * (tb + slack)), cover.need_a + cover.need_b - kNormFracBits};
  if (b.s < 0) {  // B = ceil(m 2^s) as an integer (s >= -kNormFracBits)
    b.m = (b.m >> -b.s) + ((b.m & ((uint64_t{1} << -b.s) - 1)) != 0);
    b.s = 0;
  }
  for (int L = kMinModuli; L < cover.moduli; ++L)
    if (below_half_product<F>(b, L)) {
      Plan p = cover;
      p.moduli = L;
      p.bits_a = cover.need_a;
      p.bits_b = cover.need_b;
      p.bound = b;
      return p;
    }
  return cover;
}

// Whether a run needs the norm sums, given its covering plan: a choice by the bound does, a plan that leaves lines
// uncovered does (its bound), and so does an exact plan the norms may lower.
template <class F>
bool needs_norms(const Plan& cover, int64_t K, Accuracy accuracy, int moduli) {
  return chooses_by_bound(accuracy, moduli) || !cover.exact() || norms_may_lower<F>(cover, K, accuracy, moduli);
}

// The fewest moduli below the cr plan's whose bound meets the sgemm (dgemm) target
// (families/gemm/ozaki_bound.hpp), given the lines' norms (norms_of, once per call); else cr itself.
template <class F>
Plan plan_by_bound(int64_t K, const LinesOf<F>& rows, const LinesOf<F>& cols, const Plan& cr,
                   const LineNorms& row_norms, const LineNorms& col_norms) {
  const LineMaximaByBits rm = line_maxima_by_bits<F>(row_norms), cm = line_maxima_by_bits<F>(col_norms);
  for (int L = kMinModuli; L < cr.moduli; ++L) {
    if (bit_budget<F>(L, std::max<int64_t>(K, 1)) < 0) continue;
    Plan p = cr;  // the same needs; only the split of L's budget is tried here, O(1)
    split_bits<F>(p, L, K);
    if (meets_sgemm_target<F>(rm, cm, p.bits_a, p.bits_b, K)) {
      count_uncovered<F>(p, rows.max_bits.data(), rows.low.data(), static_cast<int64_t>(rows.low.size()),
                         cols.max_bits.data(), cols.low.data(), static_cast<int64_t>(cols.low.size()));
      return p;
    }
  }
  return cr;
}

// The plan whose every line is covered when `moduli` (0: the fewest, else that many) allows (make_plan's rule).
// Throws UsageError when `moduli` (> 0) cannot hold even products of 1-bit integers at this K.
template <class F>
Plan cover_plan(int64_t K, const LinesOf<F>& rows, const LinesOf<F>& cols, int moduli) {
  if (moduli > 0 && bit_budget<F>(moduli, K) < 0)
    throw UsageError("--slices=" + std::to_string(moduli) + " cannot hold products of inner dimension " +
                     std::to_string(K) + " (the moduli's product must exceed 2K): give more slices");
  return make_plan<F>(K, rows.max_bits.data(), rows.low.data(), static_cast<int64_t>(rows.low.size()),
                      cols.max_bits.data(), cols.low.data(), static_cast<int64_t>(cols.low.size()), moduli);
}

// The run's plan from its covering plan (the norm sums in rows and cols where needs_norms says so): sgemm (dgemm)
// takes the fewest moduli whose bound meets its target (plan_by_bound), never more than cr's; cr takes the cover,
// with fewer moduli where the norms allow (tighten_by_norms).
template <class F>
Plan refine_plan(int64_t K, const LinesOf<F>& rows, const LinesOf<F>& cols, const Plan& cover, Accuracy accuracy,
                 int moduli, const LineNorms& row_norms, const LineNorms& col_norms) {
  if (chooses_by_bound(accuracy, moduli)) return plan_by_bound(K, rows, cols, cover, row_norms, col_norms);
  if (norms_may_lower<F>(cover, K, accuracy, moduli)) return tighten_by_norms(cover, K, rows, cols);
  return cover;
}

// The plan of one call, given every summary (the cpu definition).
template <class F>
Plan plan_for(int64_t K, const LinesOf<F>& rows, const LinesOf<F>& cols, int moduli, Accuracy accuracy = Accuracy::cr) {
  const Plan cover = cover_plan(K, rows, cols, moduli);
  if (!needs_norms<F>(cover, K, accuracy, moduli)) return cover;
  return refine_plan(K, rows, cols, cover, accuracy, moduli, norms_of(rows), norms_of(cols));
}

// bound_i of every row (families/gemm/ozaki_bound.hpp), |alpha| max_j E_ij, into b (storage reused); an inexact
// plan needs the lines' norms.
// Whether --accuracy=faithful checks each entry against its own bound (a plan that leaves lines uncovered; an
// exact plan's entries are correctly rounded already): the cpu definition and the cuda combine alike.
inline bool checks_each_entry(Accuracy accuracy, const Plan& p) { return accuracy == Accuracy::faithful && !p.exact(); }

template <class F>
void plan_row_bounds(const Plan& p, int64_t K, const LineNorms& row_norms, const LineNorms& col_norms, F alpha,
                     std::vector<double>& b) {
  row_bounds(row_norms, col_norms, p, K, std::fabs(static_cast<double>(alpha)), b);
}

// The result's values: the M x N entries, then the M row bounds (Result::what says so; the gemm
// oracle checks every judged entry against its row's bound).
inline constexpr const char* kWithRowBounds = "entries+row_bounds";

// What every sgemm-ozaki (dgemm-ozaki) run reports; exact_entries: those --accuracy=faithful summed exactly.
template <class F = float>
std::vector<std::pair<std::string, double>> plan_info(const Plan& p, int64_t K, Accuracy accuracy,
                                                      const std::vector<double>& row_bound, int64_t exact_entries) {
  double bound_max = 0;
  for (double v : row_bound) bound_max = std::max(bound_max, v);
  return {{"ozaki_slices", static_cast<double>(p.moduli)},
          {std::string("ozaki_accuracy_") + blas_name<F>(), accuracy == blas_target<F>() ? 1.0 : 0.0},
          {"ozaki_accuracy_faithful", accuracy == Accuracy::faithful ? 1.0 : 0.0},
          {"ozaki_exact_entries", static_cast<double>(exact_entries)},
          {"ozaki_row_bound_max", bound_max},
          {"ozaki_int8_products", static_cast<double>(int8_products(p, K))},
          {"ozaki_bits_a", static_cast<double>(p.bits_a)},
          {"ozaki_bits_b", static_cast<double>(p.bits_b)},
          {"ozaki_need_bits_a", static_cast<double>(p.need_a)},
          {"ozaki_need_bits_b", static_cast<double>(p.need_b)},
          {"ozaki_product_bound_log2", p.bound.m == 0 ? 0.0 : std::log2(static_cast<double>(p.bound.m)) + p.bound.s},
          {"ozaki_rows_uncovered", static_cast<double>(p.rows_uncovered)},
          {"ozaki_cols_uncovered", static_cast<double>(p.cols_uncovered)},
          {"ozaki_exact", p.exact() ? 1.0 : 0.0}};
}

}  // namespace accsum::ozaki
