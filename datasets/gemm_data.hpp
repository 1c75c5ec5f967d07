#pragma once
// Matrices for the gemm family: generated float32 A (M x K), B (K x N), C (M x N), column-major,
// element (i, j) of each a pure function of (seed, matrix, i + j*rows), or read from two 2-D
// float32 .npy files.
#include <cstdint>
#include <string>

#include "datasets/dataset.hpp"

namespace accsum {

struct GemmGenSpec {
  std::string dist = "uniform";  // uniform [0,1), uniform-sym [-1,1), loguniform, illcond
  int64_t rows = 0, cols = 0, inner = 0;
  uint64_t seed = 1;
  float alpha = 1.0f, beta = 0.0f;
  double range = 1e6;  // loguniform: max|x| / min|x| of A and B (1 .. 1e30)
  double cond = 1e6;   // illcond: target condition number of each entry (1 .. 1e30)
};

// The generators, the default first.
const std::vector<std::string>& gemm_dist_names();

// uniform:     24-bit uniform floats on [0, 1) (all of A, B, C).
// uniform-sym: 25-bit uniform floats on [-1, 1).
// loguniform:  |x| = (1 + v) 2^e, v a 23-bit uniform fraction, e uniform on a window of about
//              log2(range) exponents centred on 2^0, random signs.
// illcond:     heavy cancellation: with h = floor((K-1)/2), column k + h of A repeats column k
//              and row k + h of B is minus row k (k < h; entries (1 + v) 2^e, e in [-8, 8],
//              random signs), so the 2h products cancel exactly in pairs h apart, while the last
//              K - 2h (1 or 2) products are of size about 1/cond: every entry's condition number
//              sum|a_ik b_kj| / |c_ij| is about K * cond. C is uniform on [-1, 1).
// Throws UsageError for sizes < 1, too large for memory or for a 32-bit BLAS index, or options
// out of range.
Dataset generate_gemm(const GemmGenSpec& s);

// "A.npy,B.npy": two 2-D little-endian float32 arrays (C or Fortran order), A of shape (M, K)
// and B of shape (K, N); C is zero, alpha = 1, beta = 0. Throws UsageError (one line) for
// anything else.
Dataset read_gemm_npy(const std::string& spec);

// Host bytes an M x N x K product holds: A, B, C, a result and the oracle's per-entry data.
double gemm_bytes(int64_t rows, int64_t cols, int64_t inner);
// Throws UsageError when M x N x K matrices (and the oracle's per-entry data) do not fit.
void check_gemm_size(int64_t rows, int64_t cols, int64_t inner);

// "%a" of a float, exact (the form alpha and beta travel in Dataset::data).
std::string float_hex(float v);

}  // namespace accsum
