// The CUDA twin of paced_sum.c, for measuring compare's speed gate on a GPU
// (scripts/speed_gate_rates.py): block sums added with atomicAdd; built with -DSLOWDOWN_PERCENT=P
// it also reads the first P % of x a second time (a memory-bound kernel: about P % slower).
#include <accsum/plugin.h>
#include <cuda_runtime.h>

#include <stdio.h>

#ifndef SLOWDOWN_PERCENT
#define SLOWDOWN_PERCENT 0
#endif

namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__global__ void block_sums(const double* x, int64_t n, int64_t extra, double* result, double* discard) {
  __shared__ double part[kThreads];
  double s = 0.0, e = 0.0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) s += x[i];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < extra; i += stride) e += x[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, part[0]);
  if (e == 1e300) *discard = e;  // keeps the second pass from being optimised away
}

int paced_sum(const accsum_call* call) {
  cudaStream_t stream = static_cast<cudaStream_t>(call->stream);
  cudaError_t err = cudaMemsetAsync(call->result, 0, sizeof(double), stream);
  if (err == cudaSuccess && call->n > 0) {
    block_sums<<<kBlocks, kThreads, 0, stream>>>(call->x, call->n, call->n / 100 * SLOWDOWN_PERCENT, call->result,
                                                 call->result);
    err = cudaGetLastError();
  }
  if (err != cudaSuccess) {
    snprintf(call->message, call->message_size, "%s", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}

const accsum_algorithm algorithms[] = {{"paced-sum-cuda", "block sums, slowed by SLOWDOWN_PERCENT at build",
                                        ACCSUM_FAMILY_SUM, ACCSUM_BACKEND_CUDA, ACCSUM_CLAIM_NONE,
                                        /*reproducible=*/0, nullptr, nullptr, 0, paced_sum}};

}  // namespace

extern "C" ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "paced-sum-cuda", algorithms, 1};
  (void)host_abi_version;
  return &plugin;
}
