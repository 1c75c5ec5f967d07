#pragma once
// Matrices for the gemm (float32) and dgemm (float64) families: generated A (M x K), B (K x N),
// C (M x N), column-major, element (i, j) of each a pure function of (seed, matrix, i + j*rows),
// or read from two 2-D .npy files. One template over the element type F.
#include <cstdint>
#include <string>

#include "datasets/dataset.hpp"

namespace accsum {

struct GemmGenSpec {
  std::string dist = "uniform";  // uniform [0,1), uniform-sym [-1,1), loguniform, illcond
  int64_t rows = 0, cols = 0, inner = 0;
  uint64_t seed = 1;
  double alpha = 1.0, beta = 0.0;  // gemm: already rounded to float
  double range = 1e6;              // loguniform: max|x| / min|x| of A and B (1 .. 1e30; doubles 1 .. 1e300)
  double cond = 1e6;               // illcond: target condition number of each entry (1 .. 1e30; doubles 1 .. 1e300)
};

// The generators, the default first.
const std::vector<std::string>& gemm_dist_names();

// For floats (doubles):
// uniform:     24-bit (53-bit) uniform values on [0, 1) (all of A, B, C).
// uniform-sym: 25-bit (54-bit) uniform values on [-1, 1).
// loguniform:  |x| = (1 + v) 2^e, v a 23-bit (52-bit) uniform fraction, e uniform on a window of about
//              log2(range) exponents centred on 2^0, random signs.
// illcond:     heavy cancellation: with h = floor((K-1)/2), column k + h of A repeats column k
//              and row k + h of B is minus row k (k < h; entries (1 + v) 2^e, e in [-8, 8],
//              random signs), so the 2h products cancel exactly in pairs h apart, while the last
//              K - 2h (1 or 2) products are of size about 1/cond: every entry's condition number
//              sum|a_ik b_kj| / |c_ij| is about K * cond. C is uniform on [-1, 1).
// Throws UsageError for sizes < 1, too large for memory or for a 32-bit BLAS index, or options
// out of range. F = float fills a, b, c; F = double fills a64, b64, c64 (family "dgemm").
template <class F = float>
Dataset generate_gemm(const GemmGenSpec& s);

// "A.npy,B.npy": two 2-D little-endian float32 (F = double: float64) arrays (C or Fortran order),
// A of shape (M, K) and B of shape (K, N); C is zero, alpha = 1, beta = 0. Throws UsageError (one
// line) for anything else.
template <class F = float>
Dataset read_gemm_npy(const std::string& spec);

// Host bytes an M x N x K product of F holds: A, B, C, a result and the oracle's per-entry data.
template <class F = float>
double gemm_bytes(int64_t rows, int64_t cols, int64_t inner);
// Throws UsageError when M x N x K matrices (and the oracle's per-entry data) do not fit.
template <class F = float>
void check_gemm_size(int64_t rows, int64_t cols, int64_t inner);

// "%a" of a float or double, exact (the form alpha and beta travel in Dataset::data).
std::string float_hex(double v);

}  // namespace accsum
