#pragma once
// The error-free transforms of core/numerics/numerics.h on four AVX2 lanes, for the host kernels
// (x86-64-v3): each lane performs exactly the scalar operations, so the bits are the scalar ones.
#include <immintrin.h>

namespace accsum::simd {

// Where a subtraction off TwoSum's dependency chain is issued: on the adders, or on the FMA units
// as fnmadd(b, 1, a) = RN(a - b) (b * 1 is exact, so one rounding of the same difference): the
// adders take two operations a cycle, the FMA units two more.
struct SubOnAdders {
  static __m256d sub(__m256d a, __m256d b) { return _mm256_sub_pd(a, b); }
};
struct SubOnFma {
  static __m256d sub(__m256d a, __m256d b) { return _mm256_fnmadd_pd(b, _mm256_set1_pd(1.0), a); }
};

// TwoSum (Knuth; Ogita, Rump, Oishi, "Accurate sum and dot product", SISC 26(6), 2005, Alg. 3.1)
// lane by lane: s = fl(a + b), e = a + b - s exactly. a and b are taken by value, so s and e may
// name the inputs.
template <class Off = SubOnAdders>
inline void two_sum(__m256d a, __m256d b, __m256d& s, __m256d& e) {
  const __m256d t = _mm256_add_pd(a, b), v = Off::sub(t, a);
  e = _mm256_add_pd(Off::sub(a, _mm256_sub_pd(t, v)), Off::sub(b, v));
  s = t;
}

}  // namespace accsum::simd
