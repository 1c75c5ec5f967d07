#pragma once
// The round-toward-zero kernels of Jean, Graillat, "A parallel algorithm for dot product over
// word-size finite field using floating-point arithmetic", SYNASC 2010, as published: defined
// in moddot_rz.cpp, the one translation unit built with -frounding-math. Each call switches
// the calling thread to FE_TOWARDZERO for the kernel only and restores the caller's mode on
// every exit path (normal return or exception).
#include <cstdint>

#include "families/moddot/moddot.hpp"

namespace accsum::moddot {

// sum x_i y_i mod p: x_i, y_i in [0, p), p - 1 < 2^52. abgd: blocks of `block` <= 2^26 terms.
uint64_t abgd_rz(const double* x, const double* y, int64_t n, uint64_t p, int64_t block = kAbgdBlock);  // Algorithm 3
// Algorithm 3's four sums without its case analysis, in SIMD lanes (the sliced kernel).
uint64_t abgd_rz_lanes(const double* x, const double* y, int64_t n, uint64_t p, int64_t block = kAbgdBlock);
uint64_t lambda_rz(const double* x, const double* y, int64_t n, uint64_t p);  // Theorem 3
// The lambda-algorithm in AVX2 lanes (families/moddot/moddot.hpp lambda_simd) under FE_TOWARDZERO.
uint64_t lambda_rz_lanes(const double* x, const double* y, int64_t n, uint64_t p);

}  // namespace accsum::moddot
