// CUB's own reproducible reduction as a peer of superacc: cub::DeviceReduce with the requirement
// cuda::execution::determinism::gpu_to_gpu (CCCL >= 3.1) sums doubles with a reproducible
// floating-point accumulator (Ahrens, Demmel, Nguyen, "Algorithms for efficient reproducible
// floating point summation", ACM TOMS 46(3), 2020): the same bits on every GPU, but not
// correctly rounded. `cub-sum-repro` (sum family) and `cub-dot-repro` (dot family: products
// rounded to double, then the same accumulator, through TransformReduce). What CUB promises is
// the same bits for the same input sequence on every run and GPU, not for a permutation of it: its
// accumulator deposits a zero as a value with its lowest bit set (rounding to odd), and on the
// permutations of {-0, +0, -0} an H200 gave different bits. The entries promise what CUB does.
#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>

#include "backends/cuda/cuda_common.cuh"

#if CUB_VERSION >= 300100
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/iterator>
#include <cuda/std/functional>

namespace accsum::cuda {
namespace {

// term i of the dot product, rounded to double (as in cuBLAS ddot; --fmad=false: no contraction)
struct Product {
  const double* x;
  const double* y;
  __host__ __device__ double operator()(int64_t i) const { return x[i] * y[i]; }
};

// The env overloads allocate their temporary storage stream-ordered from the device's default
// pool: keep freed blocks in the pool so repeated calls do not go back to the driver.
void keep_pool_memory() {
  int dev = 0;
  cudaMemPool_t pool{};
  ACCSUM_CUDA_CHECK(cudaGetDevice(&dev));
  ACCSUM_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  uint64_t keep = UINT64_MAX;
  ACCSUM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

class CubRepro : public LibraryCallKernel {
 public:
  explicit CubRepro(const Problem& p) : LibraryCallKernel(p) { keep_pool_memory(); }
  double run() override {
    auto env = ::cuda::execution::require(::cuda::execution::determinism::gpu_to_gpu);
    if (in_->y)
      return timed_call([&](double* out) {
        return cub::DeviceReduce::TransformReduce(::cuda::counting_iterator<int64_t>(0), out, in_->n,
                                                  ::cuda::std::plus<double>{}, Product{in_->x, in_->y}, 0.0, env);
      });
    return timed_call([&](double* out) {
      return cub::DeviceReduce::Reduce(in_->x, out, in_->n, ::cuda::std::plus<double>{}, 0.0, env);
    });
  }
};

std::unique_ptr<Kernel> make_repro(const Problem& p, const Params&) { return std::make_unique<CubRepro>(p); }

Registrar reg_sum(
    AlgoEntry("sum", "cub-sum-repro", "cuda",
              "CUB DeviceReduce::Reduce, determinism gpu_to_gpu (reproducible accumulator; not correctly rounded)")
        .promises_reproducible_for_the_same_order()
        .maker(make_repro));
Registrar reg_dot(
    AlgoEntry("dot", "cub-dot-repro", "cuda",
              "CUB DeviceReduce::TransformReduce of the rounded products, determinism gpu_to_gpu (reproducible)")
        .promises_reproducible_for_the_same_order()
        .maker(make_repro));

}  // namespace
}  // namespace accsum::cuda
#endif  // CUB_VERSION >= 300100: older CCCL has no gpu_to_gpu reduction (CMake says so)
