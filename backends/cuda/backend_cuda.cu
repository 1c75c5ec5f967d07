// CUDA backend registration, its on-device EFT self-test, and the vendor baselines of the
// sum and dot families: CUB DeviceReduce::Sum and cuBLAS ddot (the GPU baselines every row is timed against).
#include <cublas_v2.h>

#include <cub/device/device_reduce.cuh>

#include "backends/cuda/cuda_common.cuh"
#include "core/frame/placement.hpp"
#include "core/numerics/eft.hpp"

namespace accsum::cuda {
namespace {

__global__ void eft_self_test_kernel(int* ok) {
  // Operands come from memory so nothing folds at compile time.
  volatile int* flag = ok;
  double one = 1.0 + 0.0 * flag[0], tiny = 0x1p-60, big = 0x1p53;
  double s, e;
  bool good = true;
  two_sum(one, tiny, s, e);
  good &= (s == 1.0 && e == 0x1p-60);
  two_sum(big, one, s, e);
  good &= (s == 0x1p53 && e == 1.0);
  double a = one + 0x1p-30, b = one - 0x1p-30, p;
  two_prod_dekker(a, b, p, e);
  good &= (p == 1.0 && e == -0x1p-60);
  two_prod_fma(a, b, p, e);
  good &= (p == 1.0 && e == -0x1p-60);
  if (!good) atomicExch(ok, 0);
}

bool self_test() {
  DeviceBuffer<int> flag(1);
  int one = 1;
  ACCSUM_CUDA_CHECK(cudaMemcpy(flag.get(), &one, sizeof(int), cudaMemcpyHostToDevice));
  eft_self_test_kernel<<<4, 128>>>(flag.get());
  ACCSUM_CUDA_CHECK(cudaGetLastError());
  int r = 0;
  ACCSUM_CUDA_CHECK(cudaMemcpy(&r, flag.get(), sizeof(int), cudaMemcpyDeviceToHost));
  return r == 1;
}

std::string describe() {
  int drv = 0, rt = 0;
  cudaDeviceProp prop{};
  const int dev = bind_device();
  ACCSUM_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  return std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs, " + std::to_string(prop.totalGlobalMem >> 20) + " MiB, L2 " +
         std::to_string(prop.l2CacheSize >> 20) + " MiB, driver " + std::to_string(drv) + ", runtime " +
         std::to_string(rt) + "; this process: " + placement::recorded("cuda") + " (" +
         placement::rule("ACCSUM_CUDA_DEVICE") + ")";
}

Registrar reg_cuda(
    BackendInfo{"cuda", "an NVIDIA GPU through CUDA", available, self_test, describe}.ranked_for_best(0));

// ---- CUB DeviceReduce::Sum: the sum family's baseline ----
class CubSum : public LibraryCallKernel {
 public:
  explicit CubSum(const Problem& p) : LibraryCallKernel(p) {
    size_t bytes = 0;
    ACCSUM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in_->x, static_cast<double*>(nullptr), in_->n));
    temp_ = DeviceBuffer<unsigned char>(bytes ? bytes : 1);
    temp_bytes_ = bytes;
  }
  double run() override {
    return timed_call(
        [&](double* out) { return cub::DeviceReduce::Sum(temp_.get(), temp_bytes_, in_->x, out, in_->n); });
  }

 private:
  DeviceBuffer<unsigned char> temp_;
  size_t temp_bytes_ = 0;
};

// ---- cuBLAS ddot: the dot family's baseline ----
class CublasDot : public CudaKernel {
 public:
  explicit CublasDot(const Problem& p) : CudaKernel(p), out_(1) {
    bind_device();
    if (cublasCreate(&h_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetPointerMode(h_, CUBLAS_POINTER_MODE_DEVICE);
  }
  ~CublasDot() override { cublasDestroy(h_); }
  double run() override {
    // cuBLAS takes int sizes: longer vectors are dotted in chunks whose results are summed in
    // a second ddot-free step on the host (only for n >= 2^31).
    const int64_t chunk = (int64_t(1) << 30);
    double total = 0;
    double elapsed = 0;
    for (int64_t off = 0; off < in_->n || off == 0; off += chunk) {
      int len = static_cast<int>(std::min<int64_t>(chunk, in_->n - off));
      timer_.start();
      if (cublasDdot(h_, len, in_->x + off, 1, in_->y + off, 1, out_.get()) != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error("cublasDdot failed");
      elapsed += timer_.stop_seconds();
      double r = 0;
      ACCSUM_CUDA_CHECK(cudaMemcpy(&r, out_.get(), sizeof r, cudaMemcpyDeviceToHost));
      total += r;
      if (in_->n == 0) break;
    }
    last_ = elapsed;
    return total;
  }

 private:
  cublasHandle_t h_{};
  DeviceBuffer<double> out_;
  EventTimer timer_;
};

Registrar reg_cub(AlgoEntry("sum", "cub-sum", "cuda", "CUB DeviceReduce::Sum (vendor baseline, not reproducible)")
                      .baseline()
                      .generates_by_index()
                      .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                        return std::make_unique<CubSum>(p);
                      }));
Registrar reg_cublas(AlgoEntry("dot", "cublas-dot", "cuda", "cuBLAS ddot (vendor baseline)")
                         .baseline()
                         .generates_by_index()
                         .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                           return std::make_unique<CublasDot>(p);
                         }));

}  // namespace
}  // namespace accsum::cuda
