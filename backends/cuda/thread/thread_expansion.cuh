#pragma once
// Thread level: a floating-point expansion in registers, absorbing batches of terms with TwoSum
// (Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel reduction
// on multi- and many-core architectures", Parallel Computing 2015, Alg. 2; TwoSum is Ogita,
// Rump, Oishi 2005, Alg. 3.1, from core/numerics/numerics.h), plus the bit tests the kernels use to keep
// the FP64 pipe for the arithmetic. Any future EFT-based kernel (GEMM, FP expansions) reuses
// these; only the early-exit vote needs a converged warp.
#include <cuda_runtime.h>

#include "backends/cuda/warp/warp.cuh"
#include "core/numerics/eft.hpp"
#include "core/numerics/expansion.h"

namespace accsum::cuda {

// Integer test on the bits (keeps the FP64 pipe for the expansion): +-0 -> false.
__device__ __forceinline__ bool nonzero(double r) {
  return ((static_cast<unsigned>(__double2hiint(r)) & 0x7FFFFFFFu) | static_cast<unsigned>(__double2loint(r))) != 0;
}
// The high word of |x|: one integer compare classifies the exponent.
__device__ __forceinline__ unsigned abs_hi(double x) { return static_cast<unsigned>(__double2hiint(x)) & 0x7FFFFFFFu; }

// Alg. 2 of Collange et al. for a batch of B terms, level by level: term i of the expansion a
// absorbs, with TwoSum, the residues that term i-1 left (term 0 takes only v[0..SPLIT): a dot's
// product errors enter at term 1, being below ulp(p)). Afterwards v[] holds what the expansion
// could not absorb. Level-major order keeps B independent chains in flight and needs one vote per
// level for early exit (EE: the warp stops when no lane has a residue left) instead of one per term.
template <int N, bool EE, int B, int SPLIT = B>
__device__ __forceinline__ void fpe_batch(double (&a)[N], double (&v)[B]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    accsum_expansion_level(&a[i], v, i == 0 ? SPLIT : B);
    if (EE && i + 1 < N) {
      bool any = false;
#pragma unroll
      for (int j = 0; j < B; ++j) any |= nonzero(v[j]);
      if (!__any_sync(kFullMask, any)) return;
    }
  }
}

}  // namespace accsum::cuda
