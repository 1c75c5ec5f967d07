#pragma once
// ACCSUM_HD marks numerics usable in both host and CUDA device code.
#if defined(__CUDACC__)
#define ACCSUM_HD __host__ __device__ __forceinline__
#else
#define ACCSUM_HD inline
#endif
