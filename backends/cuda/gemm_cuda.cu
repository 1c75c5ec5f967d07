// The gemm family on CUDA (sm_90): register-blocked, shared-memory tiled SGEMM with selective
// compensation (core/gemm_serial.hpp; Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for
// matrix multiplications on GPUs", 2011, Figs. 1-3), and the cuBLAS front measured in the same
// process: cublas-sgemm (FP32 pedantic, the baseline), cublas-tf32, cublas-bf16x9,
// sgemm-via-dgemm, cublas-fixedpoint.
//
// The tiled kernels: backends/cuda/gemm_tile_agent.cuh (policies: blocks/gemm_policy.cuh).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/gemm_tile_agent.cuh"
#include "core/gemm_params.hpp"
#include "core/gemm_serial.hpp"

namespace accsum::cuda {
namespace {

using gemm::kDcs;
using gemm::kKahan;
using gemm::kNone;

// The matrices on the device, cached per Problem.id (one problem at a time).
struct GemmDeviceData {
  uint64_t id = ~0ull;
  DeviceBuffer<float> a, b, c;
  double upload_seconds = 0;
};
std::shared_ptr<GemmDeviceData> device_matrices(const Problem& p) {
  static std::shared_ptr<GemmDeviceData> cached;
  if (cached && cached->id == p.id) return cached;
  cached.reset();
  auto d = std::make_shared<GemmDeviceData>();
  EventTimer t;
  t.start();
  d->a = DeviceBuffer<float>(static_cast<size_t>(p.rows * p.inner));
  d->b = DeviceBuffer<float>(static_cast<size_t>(p.inner * p.cols));
  d->c = DeviceBuffer<float>(static_cast<size_t>(p.rows * p.cols));
  ACCSUM_CUDA_CHECK(cudaMemcpy(d->a.get(), p.a, d->a.size() * 4, cudaMemcpyHostToDevice));
  ACCSUM_CUDA_CHECK(cudaMemcpy(d->b.get(), p.b, d->b.size() * 4, cudaMemcpyHostToDevice));
  ACCSUM_CUDA_CHECK(cudaMemcpy(d->c.get(), p.c, d->c.size() * 4, cudaMemcpyHostToDevice));
  d->upload_seconds = t.stop_seconds();
  d->id = p.id;
  cached = d;
  return d;
}

float data_float(const Params& data, const char* key, float def) {
  auto it = data.find(key);
  return it == data.end() ? def : std::strtof(it->second.c_str(), nullptr);
}

// Base: device matrices, an output buffer, event timing, the result as doubles.
class GemmCudaKernel : public Kernel {
 public:
  explicit GemmCudaKernel(const Problem& p)
      : p_(p), dev_(device_matrices(p)), out_(static_cast<size_t>(p.rows * p.cols)) {
    alpha_ = data_float(p.data, "alpha", 1.0f);
    beta_ = data_float(p.data, "beta", 0.0f);
  }
  void execute() override {
    timer_.start();
    launch();
    last_ = timer_.stop_seconds();
    ACCSUM_CUDA_CHECK(cudaGetLastError());
  }
  Result result() override {
    std::vector<float> h(out_.size());
    ACCSUM_CUDA_CHECK(cudaMemcpy(h.data(), out_.get(), h.size() * 4, cudaMemcpyDeviceToHost));
    return Result{std::vector<double>(h.begin(), h.end())};
  }
  double last_device_seconds() const override { return last_; }
  double transfer_seconds() const override { return dev_->upload_seconds; }

 protected:
  virtual void launch() = 0;
  Problem p_;
  std::shared_ptr<GemmDeviceData> dev_;
  DeviceBuffer<float> out_;
  float alpha_ = 1, beta_ = 0;
  EventTimer timer_;
  double last_ = -1;
};

template <class P, int COMP, bool FMA, int TILE>
void launch_tiled(const Problem& p, const GemmDeviceData& d, float alpha, float beta, float* out) {
  constexpr size_t smem = gemm_tile::smem_bytes<P, COMP>();
  static const bool opted_in = [] {  // shared memory beyond 48 KiB must be asked for, once per kernel
    ACCSUM_CUDA_CHECK(cudaFuncSetAttribute(gemm_tile::sgemm_blocked<P, COMP, FMA, TILE>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    return true;
  }();
  (void)opted_in;
  const gemm_tile::Shape sh{static_cast<int>(p.rows), static_cast<int>(p.cols), static_cast<int>(p.inner)};
  gemm_tile::sgemm_blocked<P, COMP, FMA, TILE><<<gemm_tile::blocks_of<P>(p.rows, p.cols), P::kThreads, smem>>>(
      sh, alpha, beta, d.a.get(), d.b.get(), d.c.get(), out);
}

template <int COMP, bool FMA>
void launch_comp(int tile, const Problem& p, const GemmDeviceData& d, float alpha, float beta, float* out) {
  switch (tile) {
    case 1: return launch_tiled<CompGemmPolicy, COMP, FMA, 1>(p, d, alpha, beta, out);
    case 16: return launch_tiled<CompGemmPolicy, COMP, FMA, 16>(p, d, alpha, beta, out);
    case 32: return launch_tiled<CompGemmPolicy, COMP, FMA, 32>(p, d, alpha, beta, out);
    case 64: return launch_tiled<CompGemmPolicy, COMP, FMA, 64>(p, d, alpha, beta, out);
    default: return launch_tiled<CompGemmPolicy, COMP, FMA, 128>(p, d, alpha, beta, out);
  }
}

class TiledKernel : public GemmCudaKernel {
 public:
  TiledKernel(const Problem& p, int comp, int tile, bool fma) : GemmCudaKernel(p), comp_(comp), tile_(tile), fma_(fma) {}

 protected:
  void launch() override {
    if (out_.size() == 0) return;
    const GemmDeviceData& d = *dev_;
    float* o = out_.get();
    if (comp_ == kNone) {
      if (fma_) launch_tiled<PlainGemmPolicy, kNone, true, 1>(p_, d, alpha_, beta_, o);
      else launch_tiled<PlainGemmPolicy, kNone, false, 1>(p_, d, alpha_, beta_, o);
    } else if (comp_ == kKahan) {
      if (fma_) launch_comp<kKahan, true>(tile_, p_, d, alpha_, beta_, o);
      else launch_comp<kKahan, false>(tile_, p_, d, alpha_, beta_, o);
    } else {
      if (fma_) launch_comp<kDcs, true>(tile_, p_, d, alpha_, beta_, o);
      else launch_comp<kDcs, false>(tile_, p_, d, alpha_, beta_, o);
    }
  }

 private:
  int comp_, tile_;
  bool fma_;
};

template <int COMP>
std::unique_ptr<Kernel> make_tiled(const Problem& p, const Params& prm) {
  const int tile = prm.count("tile") ? static_cast<int>(param_int(prm, "tile")) : 1;
  return std::make_unique<TiledKernel>(p, COMP, tile, param_int(prm, "fma") != 0);
}

// ---- the cuBLAS front ----

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed (cuBLAS status " + std::to_string(s) + ")");
}

__global__ void widen(const float* __restrict__ x, double* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    y[i] = x[i];
}
__global__ void narrow(const double* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    y[i] = __double2float_rn(x[i]);
}
unsigned grid_for(size_t n) { return static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65535)); }

enum class Front { sgemm, tf32, bf16x9, via_dgemm, fixedpoint };

class CublasKernel : public GemmCudaKernel {
 public:
  CublasKernel(const Problem& p, Front f, int bits) : GemmCudaKernel(p), front_(f), bits_(bits) {
    check_cublas(cublasCreate(&h_), "cublasCreate");
    if (front_ == Front::via_dgemm || front_ == Front::fixedpoint) {
      da_ = DeviceBuffer<double>(dev_->a.size());
      db_ = DeviceBuffer<double>(dev_->b.size());
      dc_ = DeviceBuffer<double>(dev_->c.size());
    }
    if (front_ == Front::fixedpoint) {
      check_cublas(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_EAGER), "cublasSetEmulationStrategy");
      check_cublas(cublasSetFixedPointEmulationMantissaControl(h_, CUDA_EMULATION_MANTISSA_CONTROL_FIXED),
                   "cublasSetFixedPointEmulationMantissaControl");
      check_cublas(cublasSetFixedPointEmulationMaxMantissaBitCount(h_, bits_), "cublasSetFixedPointEmulationMaxMantissaBitCount");
    }
    if (front_ == Front::bf16x9) check_cublas(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_EAGER), "cublasSetEmulationStrategy");
  }
  ~CublasKernel() override { cublasDestroy(h_); }

 protected:
  void launch() override {
    if (out_.size() == 0) return;
    const int M = static_cast<int>(p_.rows), N = static_cast<int>(p_.cols), K = static_cast<int>(p_.inner);
    if (front_ == Front::via_dgemm || front_ == Front::fixedpoint) {
      // Widen (exact), DGEMM (or its fixed-point emulation) in double, round to float: the
      // double result is rounded twice (to double, then to float).
      widen<<<grid_for(da_.size()), 256>>>(dev_->a.get(), da_.get(), da_.size());
      widen<<<grid_for(db_.size()), 256>>>(dev_->b.get(), db_.get(), db_.size());
      if (beta_ != 0.0f) widen<<<grid_for(dc_.size()), 256>>>(dev_->c.get(), dc_.get(), dc_.size());
      const double alpha = alpha_, beta = beta_;
      const cublasComputeType_t ct =
          front_ == Front::fixedpoint ? CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT : CUBLAS_COMPUTE_64F_PEDANTIC;
      check_cublas(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da_.get(), CUDA_R_64F, M, db_.get(),
                                CUDA_R_64F, K, &beta, dc_.get(), CUDA_R_64F, M, ct, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx (double)");
      narrow<<<grid_for(dc_.size()), 256>>>(dc_.get(), out_.get(), dc_.size());
      return;
    }
    if (beta_ != 0.0f)
      ACCSUM_CUDA_CHECK(cudaMemcpyAsync(out_.get(), dev_->c.get(), out_.size() * 4, cudaMemcpyDeviceToDevice));
    const cublasComputeType_t ct = front_ == Front::sgemm  ? CUBLAS_COMPUTE_32F_PEDANTIC
                                   : front_ == Front::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                           : CUBLAS_COMPUTE_32F_EMULATED_16BFX9;
    check_cublas(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha_, dev_->a.get(), CUDA_R_32F, M,
                              dev_->b.get(), CUDA_R_32F, K, &beta_, out_.get(), CUDA_R_32F, M, ct, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx (float)");
  }

 private:
  Front front_;
  int bits_;
  cublasHandle_t h_{};
  DeviceBuffer<double> da_, db_, dc_;
};

std::unique_ptr<Kernel> make_front(Front f, const Problem& p, int bits = 0) { return std::make_unique<CublasKernel>(p, f, bits); }

Registrar reg_sgemm(AlgoEntry("gemm", "sgemm", "cuda", "tiled float GEMM (128x128x8 blocks, 8x8 per thread), products summed plainly in k order")
                        .promises_reproducible()
                        .with_params({gemm::fma_param()})
                        .maker(make_tiled<kNone>));
Registrar reg_kahan(AlgoEntry("gemm", "sgemm-kahan", "cuda", "tiled float GEMM, selective Kahan summation per strip")
                        .promises_reproducible()
                        .with_params({gemm::tile_param(), gemm::fma_param()})
                        .maker(make_tiled<kKahan>));
Registrar reg_dcs(AlgoEntry("gemm", "sgemm-dcs", "cuda", "tiled float GEMM, selective doubly compensated summation")
                      .promises_reproducible()
                      .with_params({gemm::tile_param(), gemm::fma_param()})
                      .maker(make_tiled<kDcs>));
Registrar reg_cublas(AlgoEntry("gemm", "cublas-sgemm", "cuda", "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_PEDANTIC (baseline)")
                         .baseline()
                         .maker([](const Problem& p, const Params&) { return make_front(Front::sgemm, p); }));
Registrar reg_tf32(AlgoEntry("gemm", "cublas-tf32", "cuda", "cuBLAS GEMM on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)")
                       .maker([](const Problem& p, const Params&) { return make_front(Front::tf32, p); }));
Registrar reg_bf16x9(AlgoEntry("gemm", "cublas-bf16x9", "cuda",
                               "cuBLAS FP32 via BF16x9 emulation (CUBLAS_COMPUTE_32F_EMULATED_16BFX9); not supported on "
                               "Hopper: cuBLAS falls back to SGEMM there")
                         .maker([](const Problem& p, const Params&) { return make_front(Front::bf16x9, p); }));
Registrar reg_dgemm(AlgoEntry("gemm", "sgemm-via-dgemm", "cuda", "widen to double, cuBLAS DGEMM (pedantic), round to float")
                        .maker([](const Problem& p, const Params&) { return make_front(Front::via_dgemm, p); }));
Registrar reg_fixed(AlgoEntry("gemm", "cublas-fixedpoint", "cuda",
                              "widen, cuBLAS fixed-point (INT8 tensor core) DGEMM emulation with --bits mantissa bits, round")
                        .with_params({ParamSpec{"bits", "mantissa bits of the fixed-point emulation", true, 24, 40,
                                                {"24", "32", "40"}, "24"}})
                        .maker([](const Problem& p, const Params& prm) {
                          return make_front(Front::fixedpoint, p, static_cast<int>(param_int(prm, "bits")));
                        }));

}  // namespace
}  // namespace accsum::cuda
