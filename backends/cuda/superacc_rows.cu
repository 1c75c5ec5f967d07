// Segmented superaccumulation (backends/cuda/superacc_rows.hpp): a block per row, built from the
// whole-array superacc kernel's pieces (superacc_cuda.cu; Collange, Defour, Graillat, Iakymchuk,
// "Numerical reproducibility for the parallel reduction on multi- and many-core architectures",
// Parallel Computing 49, 2015). The block streams its row through SuperaccAgent as the only block
// of a one-block grid (levels 1-2: private shared-memory lane accumulators), merges its lanes into
// one shared-memory record (level 3, block_merge_lanes) and one warp rounds it (warp_round: core's
// BasicSuperacc::round()). No rounding before that one, so every row has the bits of the superacc
// entries on every backend. Rows start on a 16-byte boundary when n is even; with n odd, every other
// row starts 8 bytes past one: its first term is added alone and the rest streams from the boundary.
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "backends/cuda/agent/superacc_agent.cuh"
#include "backends/cuda/agent/superacc_policy.cuh"
#include "backends/cuda/block/block_merge.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/device/superacc_finish.cuh"
#include "backends/cuda/superacc_rows.hpp"

namespace accsum::cuda {
namespace {

// The pure superaccumulator (no expansion), as the whole-array entry's default.
template <bool DOT>
using RowsPolicy = SuperaccPolicy<0, false, DOT>;

template <class Policy>
constexpr size_t rows_smem_bytes(int block) {
  return sizeof(WarpArea<Policy::kWarpRing>) * (block / kWarpThreads) + sizeof(typename Policy::Record) + 16;
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kMaxBlockThreads, Policy::kMinBlocksPerSm)
    superacc_rows_blocks(const double* __restrict__ x, const double* __restrict__ y, int64_t n,
                         double* __restrict__ out) {
  constexpr bool DOT = Policy::kDot;
  using R = typename Policy::Record;
  using Area = WarpArea<Policy::kWarpRing>;
  extern __shared__ __align__(16) unsigned char smem[];
  const int warps = warp_of(blockDim.x), warp = warp_of(threadIdx.x), lane = lane_of(threadIdx.x);
  Area* areas = reinterpret_cast<Area*>(smem);
  auto* block_acc = reinterpret_cast<R*>(smem + sizeof(Area) * warps);
  auto* block_flags = reinterpret_cast<unsigned*>(block_acc + 1);
  const int64_t row = blockIdx.x;
  const double* xr = x + row * n;
  const double* yr = DOT ? y + row * n : nullptr;
  const int head = (reinterpret_cast<uintptr_t>(xr) & 15) != 0;  // x, y share their offsets

  SuperaccAgent<Policy> agent;
  agent.init(areas[warp], lane, block_acc, true);
  agent.consume_part(
      xr + head, DOT ? yr + head : nullptr, n - head,
      [&] {
        block_clear(block_acc, block_flags);
        __syncthreads();
      },
      0, 1);
  if (head && warp == 0) agent.single_term(xr, yr);
  const unsigned wflags = agent.finish_thread();
  if (lane == 0) atomicOr(block_flags, wflags);
  block_merge_lanes(areas, block_acc);
  if (warp == 0) {
    const double r = warp_round<R>(block_acc->digit, *block_flags, n, lane, false);
    if (lane == 0) out[row] = r;
  }
}

template <bool DOT>
void launch_rows(const double* x, const double* y, int64_t rows, int64_t n, double* out, cudaStream_t s, int block) {
  using P = RowsPolicy<DOT>;
  const size_t smem = rows_smem_bytes<P>(block);
  // Set at every call: the attribute belongs to the current device.
  ACCSUM_CUDA_CHECK(cudaFuncSetAttribute(superacc_rows_blocks<P>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
  superacc_rows_blocks<P><<<static_cast<unsigned>(rows), block, smem, s>>>(x, y, n, out);
}

}  // namespace

void superacc_rows(const double* x, const double* y, int64_t rows, int64_t n, double* out, void* stream, int block) {
  if (block != 64 && block != 128 && block != 256 && block != 512)
    throw UsageError("superacc_rows: block must be 64, 128, 256 or 512 threads");
  if (rows <= 0) return;
  if (rows > INT_MAX) throw UsageError("superacc_rows: more than " + std::to_string(INT_MAX) + " rows");
  if (n >> RowsPolicy<true>::kLogMaxTermsPerBlock)
    throw UsageError("superacc_rows: rows of more than 2^" + std::to_string(RowsPolicy<true>::kLogMaxTermsPerBlock) +
                     " elements");
  if ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15)
    throw std::logic_error("superacc_rows: device matrices must start on a 16-byte boundary");
  const auto s = static_cast<cudaStream_t>(stream);
  if (y)
    launch_rows<true>(x, y, rows, n, out, s, block);
  else
    launch_rows<false>(x, y, rows, n, out, s, block);
  ACCSUM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace accsum::cuda
