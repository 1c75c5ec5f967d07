#pragma once
// Ill-conditioned sums and dot products with a target condition number (Ogita, Rump, Oishi,
// "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Algorithm 6.1 GenDot, and
// its sum analogue GenSum). Internal to datasets/; generate() is the public entry point.
#include "datasets/dataset.hpp"

namespace accsum {

constexpr double kMaxCond = 1e300;  // largest accepted target condition number

// Writes the n elements of spec (dist "illcond") into x, and y when it is non-null (a dot).
// The achieved condition number S / |s| (S = sum|x_i| or sum|x_i y_i|, s the exact sum or dot)
// is the target within a relative 2^-30 for n >= 64 and any cond in [1, 1e300].
void generate_illcond(const GenSpec& spec, double* x, double* y);

}  // namespace accsum
