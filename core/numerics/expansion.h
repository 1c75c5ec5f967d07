/* core/numerics/expansion.h: the step of a floating-point expansion that absorbs terms with TwoSum,
 * level 1 of Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel
 * reduction on multi- and many-core architectures", Parallel Computing 49, 2015, Alg. 2 (TwoSum is
 * Knuth's; Ogita, Rump, Oishi 2005, Alg. 3.1). The one definition every language uses: the C++
 * expansion (core/numerics/fpe.hpp), the CUDA batches (backends/cuda/thread/thread_expansion.cuh)
 * and the OpenCL kernels (backends/opencl/kernels/superacc.cl). Same subset and macro layer as
 * core/numerics/numerics.h.
 */
#ifndef ACCSUM_CORE_EXPANSION_H
#define ACCSUM_CORE_EXPANSION_H

#include "core/numerics/numerics_ext.h"

/* The expansion's loops run over compile-time counts: unrolled, the terms stay in registers. OpenCL
 * asks for it with `#pragma unroll`, which clang (PoCL) and NVIDIA's OpenCL compiler accept
 * (core/numerics/numerics_ext.h's ACCSUM_UNROLL leaves OpenCL loops to the compiler). */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define ACCSUM_EXPANSION_UNROLL _Pragma("unroll")
#else
#define ACCSUM_EXPANSION_UNROLL ACCSUM_UNROLL
#endif

/* Term *ai of an expansion absorbs v[0], ..., v[count-1] in that order with TwoSum; each v[j]
 * is left holding what *ai could not (the residue passed to the next term). */
ACCSUM_FN void accsum_expansion_level(double* ai, double* v, int count) {
  ACCSUM_EXPANSION_UNROLL
  for (int j = 0; j < count; ++j) accsum_two_sum(*ai, v[j], ai, &v[j]);
}

/* One term x through the n terms a[0..n) (Alg. 2); returns the residue the expansion could not
 * hold (zero when it absorbed x). early_exit: stop once the residue is zero (the same exact
 * result, fewer operations on well-conditioned data, a data-dependent branch). */
ACCSUM_FN double accsum_expansion_absorb(double* a, int n, double x, int early_exit) {
  ACCSUM_EXPANSION_UNROLL
  for (int i = 0; i < n; ++i) {
    accsum_expansion_level(&a[i], &x, 1);
    if (early_exit && x == 0.0) return x;
  }
  return x;
}

#endif /* ACCSUM_CORE_EXPANSION_H */
