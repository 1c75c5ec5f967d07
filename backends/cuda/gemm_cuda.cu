// The gemm family on CUDA (sm_90): register-blocked, shared-memory tiled SGEMM with selective
// compensation (core/gemm_serial.hpp; Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for
// matrix multiplications on GPUs", 2011, Figs. 1-3), and the cuBLAS front measured in the same
// process: cublas-sgemm (FP32 pedantic, the baseline), cublas-tf32, cublas-bf16x9,
// sgemm-via-dgemm, cublas-fixedpoint.
//
// The tiled kernel: a block computes a BM x BN tile of C; each K step stages a BM x BK tile of A
// and a BK x BN tile of B in shared memory; each thread keeps TM x TN entries in registers. Every
// entry receives its products in the order k = 0..K-1 and the compensated additions after the same
// strips as the readable definition, so the result is bit for bit the cpu backend's (--fmad=false
// keeps fma = 0 unfused). Any M, N, K: loads outside the matrices are zero and the last K step
// runs only the valid k, so no padding product ever enters a sum.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "core/gemm_params.hpp"
#include "core/gemm_serial.hpp"

namespace accsum::cuda {
namespace {

using gemm::kDcs;
using gemm::kKahan;
using gemm::kNone;

// The tuning constants of one tiled kernel instance (a retune is a new policy, not a kernel edit).
template <int BM_, int BN_, int BK_, int TM_, int TN_>
struct GemmPolicy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BK == 8, "strip boundaries of tile >= 16 must fall on BK steps");
};
using PlainPolicy = GemmPolicy<128, 128, 8, 8, 8>;  // 256 threads, 64 accumulators each
using CompPolicy = GemmPolicy<64, 64, 8, 4, 4>;     // 256 threads, 16 x (p, s, c) each

template <class P, int COMP, bool FMA, int TILE>
__global__ void __launch_bounds__(P::kThreads) sgemm_tiled(int M, int N, int K, float alpha, float beta,
                                                          const float* __restrict__ A, const float* __restrict__ B,
                                                          const float* __restrict__ C, float* __restrict__ out) {
  __shared__ float As[P::BK][P::BM];
  __shared__ float Bs[P::BK][P::BN];
  const int tid = threadIdx.x;
  const int tx = tid % (P::BN / P::TN), ty = tid / (P::BN / P::TN);
  const int m0 = blockIdx.y * P::BM, n0 = blockIdx.x * P::BN;
  float p[P::TM][P::TN], s[P::TM][P::TN], c[P::TM][P::TN];
#pragma unroll
  for (int i = 0; i < P::TM; ++i)
#pragma unroll
    for (int j = 0; j < P::TN; ++j) p[i][j] = s[i][j] = c[i][j] = 0.0f;
  if (alpha != 0.0f) {
    for (int k0 = 0; k0 < K; k0 += P::BK) {
      // A tile: BM x BK, consecutive threads read consecutive rows (coalesced).
      for (int e = tid; e < P::BM * P::BK; e += P::kThreads) {
        const int m = e % P::BM, k = e / P::BM;
        const int gm = m0 + m, gk = k0 + k;
        As[k][m] = (gm < M && gk < K) ? A[gm + static_cast<size_t>(gk) * M] : 0.0f;
      }
      // B tile: BK x BN, consecutive threads read consecutive k of one column.
      for (int e = tid; e < P::BK * P::BN; e += P::kThreads) {
        const int k = e % P::BK, n = e / P::BK;
        const int gk = k0 + k, gn = n0 + n;
        Bs[k][n] = (gk < K && gn < N) ? B[gk + static_cast<size_t>(gn) * K] : 0.0f;
      }
      __syncthreads();
      const int kmax = K - k0 < P::BK ? K - k0 : P::BK;
      for (int kk = 0; kk < kmax; ++kk) {
        float a[P::TM], b[P::TN];
#pragma unroll
        for (int i = 0; i < P::TM; ++i) a[i] = As[kk][ty * P::TM + i];
#pragma unroll
        for (int j = 0; j < P::TN; ++j) b[j] = Bs[kk][tx * P::TN + j];
#pragma unroll
        for (int i = 0; i < P::TM; ++i)
#pragma unroll
          for (int j = 0; j < P::TN; ++j) {
            if (COMP == kNone) s[i][j] = gemm::mul_add(a[i], b[j], s[i][j], FMA);
            else p[i][j] = gemm::mul_add(a[i], b[j], p[i][j], FMA);
          }
        if (COMP != kNone && TILE == 1) {
#pragma unroll
          for (int i = 0; i < P::TM; ++i)
#pragma unroll
            for (int j = 0; j < P::TN; ++j) {
              gemm::comp_add(COMP, s[i][j], c[i][j], p[i][j]);
              p[i][j] = 0.0f;
            }
        }
      }
      if (COMP != kNone && TILE > 1 && ((k0 + P::BK) % TILE == 0 || k0 + P::BK >= K)) {
#pragma unroll
        for (int i = 0; i < P::TM; ++i)
#pragma unroll
          for (int j = 0; j < P::TN; ++j) {
            gemm::comp_add(COMP, s[i][j], c[i][j], p[i][j]);
            p[i][j] = 0.0f;
          }
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < P::TM; ++i)
#pragma unroll
    for (int j = 0; j < P::TN; ++j) {
      const int gm = m0 + ty * P::TM + i, gn = n0 + tx * P::TN + j;
      if (gm >= M || gn >= N) continue;
      float v = s[i][j];
      // IEEE specials: a non-finite compensated entry is recomputed plainly (gemm_serial.hpp).
      if (COMP != kNone && alpha != 0.0f && !gemm::finite(v)) v = gemm::dot_entry(A + gm, M, B + static_cast<size_t>(gn) * K, K, kNone, 1, FMA);
      const size_t o = gm + static_cast<size_t>(gn) * M;
      out[o] = gemm::finish(v, alpha, beta, C + o, FMA);
    }
}

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
  dim3 grid(static_cast<unsigned>((p.cols + P::BN - 1) / P::BN), static_cast<unsigned>((p.rows + P::BM - 1) / P::BM));
  sgemm_tiled<P, COMP, FMA, TILE><<<grid, P::kThreads>>>(static_cast<int>(p.rows), static_cast<int>(p.cols),
                                                          static_cast<int>(p.inner), alpha, beta, d.a.get(), d.b.get(),
                                                          d.c.get(), out);
}

template <int COMP, bool FMA>
void launch_comp(int tile, const Problem& p, const GemmDeviceData& d, float alpha, float beta, float* out) {
  switch (tile) {
    case 1: return launch_tiled<CompPolicy, COMP, FMA, 1>(p, d, alpha, beta, out);
    case 16: return launch_tiled<CompPolicy, COMP, FMA, 16>(p, d, alpha, beta, out);
    case 32: return launch_tiled<CompPolicy, COMP, FMA, 32>(p, d, alpha, beta, out);
    case 64: return launch_tiled<CompPolicy, COMP, FMA, 64>(p, d, alpha, beta, out);
    default: return launch_tiled<CompPolicy, COMP, FMA, 128>(p, d, alpha, beta, out);
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
      if (fma_) launch_tiled<PlainPolicy, kNone, true, 1>(p_, d, alpha_, beta_, o);
      else launch_tiled<PlainPolicy, kNone, false, 1>(p_, d, alpha_, beta_, o);
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

Registrar reg_sgemm(AlgoEntry("gemm", "sgemm", "cuda", "tiled float GEMM (128x128x8, 8x8 per thread), plain summation")
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
