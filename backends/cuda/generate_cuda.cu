// Data made on the GPU by global index (bench --generate=by-index): element i of a recipe is the
// same pure function on host and device (datasets/elements.hpp), so no process copies the
// array and the bits equal the host's generator.
#include "backends/cuda/cuda_common.cuh"
#include "datasets/elements.hpp"

namespace accsum::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

__global__ void make_elements(ElementRecipe r, int64_t first, int64_t n, double* x, double* y) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    double a = 0, b = 0;
    gen::element(r, static_cast<uint64_t>(first + i), a, b);
    x[i] = a;
    if (y) y[i] = b;
  }
}

}  // namespace

bool recipe_has_y(const ElementRecipe& r) { return r.dot; }

void generate_on_device(const ElementRecipe& r, int64_t first, int64_t n, double* x, double* y) {
  if (n <= 0) return;
  bind_device();
  make_elements<<<sm_count() * kBlocksPerSm, kThreads>>>(r, first, n, x, y);
  ACCSUM_CUDA_CHECK(cudaGetLastError());
  ACCSUM_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace accsum::cuda
