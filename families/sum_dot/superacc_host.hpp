#pragma once
// Host kernels of the correctly rounded sum and dot (Collange, Defour, Graillat, Iakymchuk 2015), shared by the cpu,
// cpu-mt and mpi backends: each accumulates a slice of the data exactly into a superaccumulator; the callers merge the
// accumulators (in any order: digits are integers) and round once. The cpu and cpu-mt kernels first accumulate within
// a bound and round when the bound decides (round_within).
#include <cfloat>
#include <cstdint>

#include "core/frame/registry.hpp"
#include "core/numerics/superacc.hpp"

namespace accsum::cpu {

struct SuperaccConfig {
  int fpe = 0;              // expansion size of level 1 (0: none, straight to the accumulator)
  bool early_exit = false;  // Alg. 2 stops once the error is zero
  // Below this many terms every term goes straight into the superaccumulator (the fixed cost
  // of the chunk table is not worth it). Tests set 0 to drive the fast paths with tiny inputs.
  int64_t small_n = 2048;
};

// Adds x[0..n) exactly to acc (acc is not cleared). With a bound (fpe = 0 only; ignored otherwise), blocks of a wide
// exponent span go through double-word accumulators in registers instead: acc then receives a value within the amount
// added to *bound of the exact sum, its NaN and infinity counts exact, its zero-sign counts not (round_within).
void superacc_sum_accumulate(const double* x, int64_t n, const SuperaccConfig& cfg, Superacc& acc,
                             double* bound = nullptr);
// Adds the exact products x[i]*y[i], i in [0, n), to acc (with a bound: as for the sum).
void superacc_dot_accumulate(const double* x, const double* y, int64_t n, const SuperaccConfig& cfg, SuperaccDot& acc,
                             double* bound = nullptr);

// The correctly rounded sum, given that it lies within bound of acc's value: true when that decides it, i.e. the
// interval's ends round to the same nonzero double (rounding is monotone; the rounding test of Ziv, "Fast evaluation
// of elementary mathematical functions with correctly rounded last bit", ACM TOMS 17(3), 1991), or when a NaN or an
// infinity was added. False: the rounding is open, or the result may be a zero (whose sign the bounded accumulation
// does not track); accumulate exactly instead.
template <class SA>
bool round_within(const SA& acc, double bound, double& out) {
  if (acc.nan_count || acc.pos_inf_count || acc.neg_inf_count) {
    out = acc.round();
    return true;
  }
  if (!(bound >= 0 && bound <= DBL_MAX)) return false;  // NaN or infinite: nothing decided
  SA lo = acc, hi = acc;
  if (bound > 0) {
    lo.add(-bound);
    hi.add(bound);
  }
  const double a = lo.round(), b = hi.round();
  if (a == 0 || double_bits(a) != double_bits(b)) return false;
  out = a;
  return true;
}

// The cpu and cpu-mt kernels' run: with `bounded`, accumulate(acc, &bound) first and round when round_within decides;
// otherwise (or when it does not) accumulate(acc, nullptr) exactly into a cleared acc and round.
template <class SA, class Accumulate>
double round_bounded_then_exact(bool bounded, Accumulate&& accumulate) {
  SA acc;
  acc.clear();
  if (bounded) {
    double bound = 0, out;
    accumulate(acc, &bound);
    if (round_within(acc, bound, out)) return out;
    acc.clear();
  }
  accumulate(acc, nullptr);
  return acc.round();
}

// The parameters every superacc algorithm takes, with this backend's measured default.
std::vector<ParamSpec> superacc_params(int default_fpe, int default_early_exit);
SuperaccConfig superacc_config(const Params& p);

}  // namespace accsum::cpu
