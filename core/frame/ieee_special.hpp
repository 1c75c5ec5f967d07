#pragma once
// The IEEE 754 rule for special values, applied once to every registered sum / dot product:
// NaN in the input gives NaN, +inf and -inf together give NaN, a single kind of infinity gives
// that infinity, whatever the finite values do before it (e.g. [DBL_MAX, DBL_MAX, -inf] is -inf,
// although a running sum reaches +inf first and +inf + -inf is NaN). For dot products the terms
// are the exact products x_i * y_i: a product is NaN when a factor is NaN or it is inf * 0, and
// infinite only when a factor is infinite (finite products that overflow in floating point are
// finite exactly, so they do not count).
//
// Zero cost on the finite path: the input is rescanned only when the computed result is not
// finite. When the input holds no special value the computed result is returned as is (finite
// data whose intermediate sums overflow are outside the algorithms' domain; the correctly rounded
// ones give the right overflow to +-inf themselves).
//
// ieee_special.cpp registers with_ieee_rule as a wrapper of every entry's `make`
// (Registry::add_wrapper), so every algorithm of such a family on every backend (cpu, cpu-mt, and
// the host side of cuda, opencl and mpi, whose Problem holds host pointers) follows the rule,
// including algorithms registered later.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>

#include "core/frame/registry.hpp"

namespace accsum {

// What the special values of the input alone decide: nothing (no NaN, no infinity), NaN, +inf
// or -inf.
enum class SpecialOutcome { none, nan, pos_inf, neg_inf };

SpecialOutcome special_outcome_sum(const double* x, int64_t n);
SpecialOutcome special_outcome_dot(const double* x, const double* y, int64_t n);

// The result IEEE 754 prescribes, given the computed one: `computed` itself when it is finite
// or when the input holds no special value; y == nullptr for a sum.
inline double ieee_result(double computed, const double* x, const double* y, int64_t n) {
  if (std::isfinite(computed)) return computed;
  switch (y ? special_outcome_dot(x, y, n) : special_outcome_sum(x, n)) {
    case SpecialOutcome::none:
      return computed;
    case SpecialOutcome::nan:
      return std::isnan(computed) ? computed : std::numeric_limits<double>::quiet_NaN();
    case SpecialOutcome::pos_inf:
      return std::numeric_limits<double>::infinity();
    case SpecialOutcome::neg_inf:
      return -std::numeric_limits<double>::infinity();
  }
  return computed;
}

using KernelFactory = std::function<std::unique_ptr<Kernel>(const Problem&, const Params&)>;

// `make` whose kernels return ieee_result(...) of what the wrapped kernel computes, for the
// families whose descriptor says their result is the sum of x (or, with y, the dot product x.y):
// FamilyDescriptor::ieee_reduction. Timing and transfer figures are the wrapped kernel's.
KernelFactory with_ieee_rule(KernelFactory make, std::string family_name);

}  // namespace accsum
