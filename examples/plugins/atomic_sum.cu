// An accsum plugin on CUDA: each block sums its part of x in shared memory, then adds it to the
// result with atomicAdd. The order of those additions changes from run to run, so the sum is
// not reproducible, yet this plugin claims it is: `accsum verify --backend=cuda` must catch it.
//   nvcc -O2 -shared -Xcompiler -fPIC -I include examples/plugins/atomic_sum.cu -o atomic_sum.so
#include <accsum/plugin.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

namespace {

constexpr int kThreads = 256;

__global__ void block_sums(const double* x, int64_t n, double* result) {
  __shared__ double part[kThreads];
  double s = 0.0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    s += x[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, part[0]);  // sm_60 and later
}

int atomic_sum(const accsum_call* call) {
  cudaStream_t stream = static_cast<cudaStream_t>(call->stream);
  const int blocks = atoi(call->param_values[0]);
  cudaError_t err = cudaMemsetAsync(call->result, 0, sizeof(double), stream);
  if (err == cudaSuccess && call->n > 0) {
    block_sums<<<blocks, kThreads, 0, stream>>>(call->x, call->n, call->result);
    err = cudaGetLastError();
  }
  if (err != cudaSuccess) {
    snprintf(call->message, call->message_size, "%s", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}

const char* const block_choices[] = {"120", "1024", "4096", nullptr};
const accsum_param params[] = {{"blocks", "thread blocks of the launch", block_choices, 0, 0, "1024"}};

const accsum_algorithm algorithms[] = {{"atomic-sum-plugin",
                                        "block sums added with atomicAdd (claims reproducibility: it is not)",
                                        ACCSUM_FAMILY_SUM, ACCSUM_BACKEND_CUDA, ACCSUM_CLAIM_NONE,
                                        /*reproducible=*/1, nullptr, params, 1, atomic_sum}};

}  // namespace

extern "C" ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "atomic-sum-example", algorithms, 1};
  return &plugin;
}
