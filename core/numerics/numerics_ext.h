/* core/numerics/numerics_ext.h: more of core/numerics/numerics.h's macro layer, for the
 * single-source headers beside it (core/numerics/modp.h, core/numerics/dpsum.h). Include it
 * after numerics.h. The same common subset of C99, OpenCL C 1.2, C++17 and CUDA; each macro
 * names the instruction every backend has for it.
 */
#ifndef ACCSUM_CORE_NUMERICS_EXT_H
#define ACCSUM_CORE_NUMERICS_EXT_H

#include "core/numerics/numerics.h"

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
/* A function private to its program (OpenCL has no linkage between programs). */
#define ACCSUM_FN_LOCAL inline
/* The high 64 bits of the 128-bit product of two unsigned 64-bit integers. */
#define ACCSUM_MULHI64(a, b) mul_hi((ulong)(a), (ulong)(b))
/* floor(v) for an exact 0 <= v < 2^52. */
#define ACCSUM_FLOOR52(v) floor(v)
/* Asks for a loop to be unrolled where its trip count is known: OpenCL C 1.2 has no portable
 * spelling, the compiler decides. */
#define ACCSUM_UNROLL
#else
/* Internal linkage on the host: a translation unit built with -frounding-math
 * (backends/cpu/moddot_rz.cpp) must never share an out-of-line copy with one built for
 * round-to-nearest. */
#define ACCSUM_FN_LOCAL static ACCSUM_FN
#if defined(__CUDA_ARCH__)
#define ACCSUM_MULHI64(a, b) __umul64hi((a), (b))
/* (v + 2^52 rounded down) - 2^52 is floor(v) exactly (the ulp of [2^52, 2^53) is 1): two
 * additions on the FP64 pipe instead of a rounding instruction. */
#define ACCSUM_FLOOR52(v) __dsub_rn(__dadd_rd((v), 0x1p52), 0x1p52)
#define ACCSUM_UNROLL _Pragma("unroll")
#else
#define ACCSUM_MULHI64(a, b) \
  ((accsum_u64)(((unsigned __int128)(accsum_u64)(a) * (unsigned __int128)(accsum_u64)(b)) >> 64))
#define ACCSUM_FLOOR52(v) floor(v)
#define ACCSUM_UNROLL
#endif
#endif

#endif /* ACCSUM_CORE_NUMERICS_EXT_H */
