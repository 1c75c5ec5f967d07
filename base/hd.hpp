#pragma once
// ACCSUM_HD marks numerics usable in both host and CUDA device code, and the integer primitive
// both the numerics (core/) and the generators (datasets/) build on.
#include <cstdint>

#if defined(__CUDACC__)
#define ACCSUM_HD __host__ __device__ __forceinline__
#else
#define ACCSUM_HD inline
#endif

namespace accsum {

// The high 64 bits of the full product a * b.
ACCSUM_HD uint64_t mul_hi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

}  // namespace accsum
