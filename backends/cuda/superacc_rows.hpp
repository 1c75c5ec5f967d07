#pragma once
// Segmented correctly rounded sums and dot products on CUDA: one launch, one block per row of a
// row-major (rows x n) device matrix, each row's exact sum rounded once (the Python package's
// axis reductions of CUDA arrays). Host-only header.
#include <cstdint>

namespace accsum::cuda {

// out[r] = the correctly rounded sum of row r of x (y non-null: of x[r, i] * y[r, i]); x, y, out are
// device pointers of the current device, x and y 16-byte aligned; the launch is queued on `stream` (a
// cudaStream_t) and not waited for. block: threads per row (64, 128, 256 or 512; the bits do not
// depend on it). Each warp of a block clears, merges and rounds a superaccumulator per lane for
// every row, so fewer warps per row cost less per row, and more blocks fit on an SM.
constexpr int kRowsBlock = 128;
void superacc_rows(const double* x, const double* y, int64_t rows, int64_t n, double* out, void* stream,
                   int block = kRowsBlock);

}  // namespace accsum::cuda
