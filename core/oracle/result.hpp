#pragma once
// What a run computed (Result) and what the oracle states about the data (ExactFacts): the
// vocabulary the oracle judges in, below the registry that hands both to every algorithm.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace accsum {

// What a run computed, on the host. The layout is the family's (one value for a sum, a
// column-major matrix, R terms per expansion, a residue); every element is held exactly in
// binary64 (floats widen exactly, residues are below 2^52).
struct Result {
  std::vector<double> values;
  // What the values are, in the family's terms, for families whose algorithms compute different
  // things from the same data (e.g. "sum" or "product" of two expansions); "" otherwise.
  std::string what;
  // Figures of the run beyond its values (e.g. a plan's size, a time split); every report lists
  // them beside the family's metrics.
  std::vector<std::pair<std::string, double>> figures;
  static Result scalar(double v) { return Result{{v}, {}, {}}; }
  double scalar() const;  // the one value; throws std::logic_error when there are several
};

// Exact facts about the data that bounds and their domains are expressed in, computed by the
// family's oracle from the data alone (never from the name of a generator).
struct ExactFacts {
  int64_t n = 0;
  double abs_sum = 0;                      // |s| (s = exact sum or dot), rounded to nearest
  double sum_abs = 0;                      // S = sum |x_i| (sum) or sum |x_i*y_i| (dot), rounded up
  double max_abs_x = 0;                    // max |x_i| over finite x_i
  double max_abs_y = 0;                    // max |y_i| over finite y_i (0 without y)
  double min_abs_x = 0;                    // min |x_i| over finite nonzero x_i (0 when there is none)
  bool products_underflow = false;         // some nonzero exact product |x_i*y_i| is below 2^-969 (kExactProductMin)
  bool partial_sums_may_overflow = false;  // S exceeds what any partial sum or EFT can hold
  // Family-specific facts by name (1/0 for yes/no), for families whose bounds are not stated in
  // the sum-oriented fields above.
  std::map<std::string, double> family;
};

}  // namespace accsum
