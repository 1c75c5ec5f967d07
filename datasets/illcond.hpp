#pragma once
// Ill-conditioned sums and dot products with a target condition number (Ogita, Rump, Oishi,
// "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Algorithm 6.1 GenDot, and
// its sum analogue GenSum). Internal to datasets/; generate() is the public entry point.
#include "datasets/dataset.hpp"

namespace accsum {

constexpr double kMaxCond = 1e300;  // largest accepted target condition number

// Writes the n elements of spec (dist "illcond") into x, and y when it is non-null (a dot).
// The achieved condition number S / |s| (S = sum|x_i| or sum|x_i y_i|, s the exact sum or dot)
// is the target within a relative 1e-5 for n >= 64 and any cond in [1, 1e300] (observed: below
// 1e-7; 1e-13 for n >= 1000). Fewer terms reach fewer bits (one term cancels at most about 48):
// the target is met (within 1%) for n >= 2 (log2(cond) + 40) / 44 + 2 or so (n >= 32 for
// 1e300, 8 for 1e100, 4 for 1e30); below that the data are finite and as ill-conditioned as
// the terms allow.
void generate_illcond(const GenSpec& spec, double* x, double* y);

}  // namespace accsum
