/* The OpenCL C prelude of every accsum program that has not moved to a kernel file of its own:
 * core/numerics/numerics.h (fp64 on, contraction off, the error-free transforms, the
 * superaccumulator's named constants, cut, carry propagation and rounding). */
#include "core/numerics/numerics.h"
