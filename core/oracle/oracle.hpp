#pragma once
// The exact oracle: MPFR (mpfr_sum is exact and correctly rounded at any size) and the
// metrics of the IEEE 754 rules in the README. Never a floating-point "reference".
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/oracle/result.hpp"

namespace accsum {

// Above this S = sum|x_i| a partial sum, or a TwoSum intermediate (at most about 2 S), can
// reach the overflow threshold 2^1024: ExactFacts::partial_sums_may_overflow.
constexpr double kOverflowSafeMass = 0x1p1021;
// Below this a nonzero product x*y has an error term x*y - fl(x*y) that need not be a double
// (TwoProduct is exact when e_x + e_y >= e_min + p - 1, Boldo, "Pitfalls of a full
// floating-point proof", 2006): ExactFacts::products_underflow.
constexpr double kExactProductMin = 0x1p-969;

// The exact value of a reduction, kept exactly (opaque MPFR number) plus rounded facts.
struct ExactValue {
  double rounded = 0;                 // RN(exact) with IEEE 754 rules: NaN, +-inf, overflow, sign of zero
  std::string hex;                    // `rounded` as a hex float ("0x1.8p+1")
  std::string decimal;                // exact value in decimal, 40 significant digits
  double abs_sum = 0;                 // |s| rounded to nearest
  double sum_abs = 0;                 // S = sum|x_i| (or sum|x_i*y_i|), rounded up
  double cond = 0;                    // S / |s| rounded once; +inf when s == 0 < S; 1 when S == 0
  std::string cond_definition;        // what `cond` is, in words, for the report
  std::string method;                 // how the exact value was computed, for the report
  bool special = false;               // the input holds NaN or an infinity
  ExactFacts facts;                   // what bounds and their domains are stated in
  std::shared_ptr<const void> exact;  // the exact value (mpfr_t inside)
};

ExactValue exact_sum(const double* x, int64_t n);
ExactValue exact_dot(const double* x, const double* y, int64_t n);
// The same for data made on demand: fill(begin, end, x, y) writes elements [begin, end) (y null
// for a sum); threads make and accumulate slices, so no array of n is held.
using FillFn = std::function<void(int64_t begin, int64_t end, double* x, double* y)>;
ExactValue exact_sum_generated(const FillFn& fill, int64_t n);
ExactValue exact_dot_generated(const FillFn& fill, int64_t n);

struct Metrics {
  double value = 0;
  std::string hex;
  double abs_err = 0;              // |computed - exact| rounded (inf when one is infinite and the other not)
  double rel_err = 0;              // abs_err / |exact| (inf when exact is 0 and computed is not)
  double ulps = 0;                 // abs_err / ulp(RN(exact))
  double digits = 0;               // correct decimal digits: clamp(-log10(rel_err), 0, 16); 16 when exact
  bool correctly_rounded = false;  // bitwise equal to RN(exact) (NaN matches NaN)
  bool faithful = false;           // one of the two doubles bracketing the exact value
  bool has_bound = false;
  double bound = 0;            // the algorithm's proven absolute bound
  bool within_bound = false;   // abs_err <= bound (exactly compared)
  std::string outside_domain;  // why the bound claims nothing on these data ("" inside)
  // Family-specific metrics for the report, e.g. the share of entries correctly rounded.
  std::vector<std::pair<std::string, double>> extra;
};

// bound < 0 means "no proven bound".
Metrics measure(double computed, const ExactValue& ref, double bound = -1.0);

std::string hex_double(double v);  // "%a" formatting, "nan", "inf", "-inf", "-0x0p+0"

}  // namespace accsum
