#pragma once
// Host kernels of the correctly rounded sum and dot (Collange, Defour, Graillat, Iakymchuk 2015), shared by the cpu,
// cpu-mt and mpi backends: each accumulates a slice of the data exactly into a superaccumulator; the callers merge the
// accumulators (in any order: digits are integers) and round once.
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

// Adds x[0..n) exactly to acc (acc is not cleared).
void superacc_sum_accumulate(const double* x, int64_t n, const SuperaccConfig& cfg, Superacc& acc);
// Adds the exact products x[i]*y[i], i in [0, n), to acc.
void superacc_dot_accumulate(const double* x, const double* y, int64_t n, const SuperaccConfig& cfg, SuperaccDot& acc);

// The parameters every superacc algorithm takes, with this backend's measured default.
std::vector<ParamSpec> superacc_params(int default_fpe, int default_early_exit);
SuperaccConfig superacc_config(const Params& p);

}  // namespace accsum::cpu
