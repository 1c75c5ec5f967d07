// Segmented superaccumulation (backends/cuda/superacc_rows.hpp): a block per row. Each thread adds its
// strided share of the row into a private accumulator (core's BasicSuperacc: the digits and special-value
// counters every superacc entry rounds, Collange, Defour, Graillat, Iakymchuk 2015, levels 2-3),
// normalizes it, and the block sums the threads' digits and counters exactly (warp shuffles, then
// shared-memory atomics: integer additions, so the order does not matter); one thread rounds the
// block's accumulator as BasicSuperacc::round() does. No rounding error anywhere before that one
// rounding, so every row has the bits of the superacc entries on every backend.
#include <cuda_runtime.h>

#include <climits>
#include <string>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/superacc_rows.hpp"
#include "backends/cuda/warp/warp.cuh"
#include "core/numerics/superacc.hpp"

namespace accsum::cuda {
namespace {

constexpr int kRowThreads = 256;

__device__ __forceinline__ long long warp_total(long long v) {
  for (int off = kWarpThreads / 2; off > 0; off >>= 1) v += __shfl_down_sync(kFullMask, v, off);
  return v;
}

// Adds v into *shared from lane 0 of each warp, after summing it over the warp.
__device__ __forceinline__ void block_add(int64_t* shared, int64_t v) {
  const long long s = warp_total(static_cast<long long>(v));
  if ((threadIdx.x & (kWarpThreads - 1)) == 0 && s != 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(shared), static_cast<unsigned long long>(s));
}

template <bool DOT>
__global__ void __launch_bounds__(kRowThreads)
    superacc_rows_kernel(const double* __restrict__ x, const double* __restrict__ y, int64_t n,
                         double* __restrict__ out) {
  using SA = SuperaccOf<DOT>;
  __shared__ SA block;
  const int64_t row = blockIdx.x;
  const double* xr = x + row * n;
  const double* yr = DOT ? y + row * n : nullptr;
  if (threadIdx.x == 0) block.clear();
  SA mine;
  mine.clear();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    if constexpr (DOT)
      mine.add_product(xr[i], yr[i]);
    else
      mine.add(xr[i]);
  }
  mine.normalize();  // digits below 2^32 (the top signed): the block's sums stay far below 2^63
  __syncthreads();
  for (int d = 0; d < SA::kDigits; ++d) block_add(&block.digit[d], mine.digit[d]);
  block_add(&block.nan_count, mine.nan_count);
  block_add(&block.pos_inf_count, mine.pos_inf_count);
  block_add(&block.neg_inf_count, mine.neg_inf_count);
  block_add(&block.neg_zero_count, mine.neg_zero_count);
  block_add(&block.not_neg_zero_count, mine.not_neg_zero_count);
  __syncthreads();
  if (threadIdx.x == 0) {
    SA total = block;
    total.pending = 1;
    out[row] = total.round();
  }
}

}  // namespace

void superacc_rows(const double* x, const double* y, int64_t rows, int64_t n, double* out, void* stream) {
  if (rows <= 0) return;
  if (rows > INT_MAX) throw UsageError("superacc_rows: more than " + std::to_string(INT_MAX) + " rows");
  const auto s = static_cast<cudaStream_t>(stream);
  if (y)
    superacc_rows_kernel<true><<<static_cast<unsigned>(rows), kRowThreads, 0, s>>>(x, y, n, out);
  else
    superacc_rows_kernel<false><<<static_cast<unsigned>(rows), kRowThreads, 0, s>>>(x, y, n, out);
  ACCSUM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace accsum::cuda
