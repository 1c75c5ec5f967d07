// The gemm family on CUDA (sm_90): register-blocked, shared-memory tiled SGEMM with selective
// compensation (families/gemm/gemm_serial.hpp; Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for
// matrix multiplications on GPUs", 2011, Figs. 1-3), and the cuBLAS front measured in the same
// process: cublas-sgemm (cublasSgemm with the default math mode, the baseline: the call a user
// makes), cublas-sgemm-pedantic, cublas-tf32, cublas-bf16x9, sgemm-via-dgemm, cublas-fixedpoint; and
// the dgemm family's cublas-dgemm (cublasDgemm, default math, its baseline), cublas-dgemm-pedantic
// (CUBLAS_COMPUTE_64F_PEDANTIC, slower on Hopper) and cublas-dgemm-fixedpoint.
//
// The tiled kernels: backends/cuda/agent/gemm_tile_agent.cuh, one translation unit per variant
// (gemm_tiled_plain.cu, gemm_tiled_{kahan,dcs}_fma{0,1}.cu), each under any compiled-in policy of its
// list (agent/gemm_policy.cuh).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/device/gemm_tile_dispatch.cuh"
#include "families/gemm/gemm_params.hpp"
#include "families/gemm/gemm_serial.hpp"

namespace accsum::cuda {

namespace gemm_tile {

// B (column-major K x N) copied row-major through a shared tile of kCopyTile x kCopyTile: reads
// along k and writes along n, both coalesced (the +1 column keeps the transposed reads off one
// bank). One block per tile, numbered k-tile fastest.
constexpr int kCopyTile = 32, kCopyRows = 8;
__global__ void b_row_major(const float* __restrict__ B, int K, int N, float* __restrict__ bt) {
  __shared__ float t[kCopyTile][kCopyTile + 1];
  const int64_t tiles_k = (K + kCopyTile - 1) / kCopyTile;
  const int k0 = static_cast<int>(blockIdx.x % tiles_k) * kCopyTile;
  const int n0 = static_cast<int>(blockIdx.x / tiles_k) * kCopyTile;
  for (int r = threadIdx.y; r < kCopyTile; r += kCopyRows) {  // column n0 + r of B
    const int k = k0 + threadIdx.x, n = n0 + r;
    if (k < K && n < N) t[r][threadIdx.x] = B[k + static_cast<size_t>(n) * K];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kCopyTile; r += kCopyRows) {  // row k0 + r of Bt
    const int k = k0 + r, n = n0 + threadIdx.x;
    if (k < K && n < N) bt[n + static_cast<size_t>(k) * N] = t[threadIdx.x][r];
  }
}

void copy_b_row_major(const float* B, int K, int N, float* bt) {
  const int64_t blocks = ((K + kCopyTile - 1) / kCopyTile) * static_cast<int64_t>((N + kCopyTile - 1) / kCopyTile);
  if (blocks == 0) return;
  b_row_major<<<static_cast<unsigned>(blocks), dim3(kCopyTile, kCopyRows)>>>(B, K, N, bt);
}

}  // namespace gemm_tile

namespace {

using gemm::kDcs;
using gemm::kKahan;
using gemm::kNone;

// The matrices of F (float: gemm, double: dgemm) on the device, cached per Problem.id (one problem at a time).
template <class F>
struct GemmDeviceData {
  uint64_t id = ~0ull;
  DeviceBuffer<F> a, b, c;
  double upload_seconds = 0;
};
template <class F>
std::shared_ptr<GemmDeviceData<F>> device_matrices(const Problem& p) {
  static std::shared_ptr<GemmDeviceData<F>> cached;
  if (cached && cached->id == p.id) return cached;
  cached.reset();
  auto d = std::make_shared<GemmDeviceData<F>>();
  EventTimer t;
  t.start();
  d->a = DeviceBuffer<F>(static_cast<size_t>(p.rows * p.inner));
  d->b = DeviceBuffer<F>(static_cast<size_t>(p.inner * p.cols));
  d->c = DeviceBuffer<F>(static_cast<size_t>(p.rows * p.cols));
  ACCSUM_CUDA_CHECK(cudaMemcpy(d->a.get(), p.*MatricesOf<F>::pa, d->a.size() * sizeof(F), cudaMemcpyHostToDevice));
  ACCSUM_CUDA_CHECK(cudaMemcpy(d->b.get(), p.*MatricesOf<F>::pb, d->b.size() * sizeof(F), cudaMemcpyHostToDevice));
  ACCSUM_CUDA_CHECK(cudaMemcpy(d->c.get(), p.*MatricesOf<F>::pc, d->c.size() * sizeof(F), cudaMemcpyHostToDevice));
  d->upload_seconds = t.stop_seconds();
  d->id = p.id;
  cached = d;
  return d;
}

// Base: device matrices, an output buffer, event timing, the result as doubles.
template <class F>
class GemmCudaKernelOf : public Kernel {
 public:
  explicit GemmCudaKernelOf(const Problem& p)
      : p_(p), dev_(device_matrices<F>(p)), out_(static_cast<size_t>(p.rows * p.cols)) {
    alpha_ = data_scalar<F>(p.data, "alpha", F(1));
    beta_ = data_scalar<F>(p.data, "beta", F(0));
  }
  void execute() override {
    timer_.start();
    launch();
    last_ = timer_.stop_seconds();
    ACCSUM_CUDA_CHECK(cudaGetLastError());
  }
  Result result() override {
    std::vector<F> h(out_.size());
    ACCSUM_CUDA_CHECK(cudaMemcpy(h.data(), out_.get(), h.size() * sizeof(F), cudaMemcpyDeviceToHost));
    return Result{std::vector<double>(h.begin(), h.end())};
  }
  double last_device_seconds() const override { return last_; }
  double transfer_seconds() const override { return dev_->upload_seconds; }

 protected:
  virtual void launch() = 0;
  Problem p_;
  std::shared_ptr<GemmDeviceData<F>> dev_;
  DeviceBuffer<F> out_;
  F alpha_ = 1, beta_ = 0;
  EventTimer timer_;
  double last_ = -1;
};
using GemmCudaKernel = GemmCudaKernelOf<float>;

// The policies compiled into this build (agent/gemm_policy.cuh: auto's only unless the sweep is on).
const std::vector<gemm_tile::PolicyInfo>& tiled_policies(int comp) {
  static const auto plain = gemm_tile::plain_policies(), kahan = gemm_tile::kahan_policies(),
                    dcs = gemm_tile::dcs_policies();
  return comp == kNone ? plain : comp == kKahan ? kahan : dcs;
}
// Every policy of the tuning sweep: what --policy names, compiled in or not.
const std::vector<gemm_tile::PolicyInfo>& sweep_policies(int comp) {
  static const auto plain = gemm_tile::plain_sweep_policies(), comp_ = gemm_tile::comp_sweep_policies();
  return comp == kNone ? plain : comp_;
}
const char* algo_name(int comp) { return comp == kNone ? "sgemm" : comp == kKahan ? "sgemm-kahan" : "sgemm-dcs"; }

// --policy: "auto" or a name of the variant's sweep list (`accsum list` shows them).
ParamSpec policy_param(int comp) {
  std::string compiled;
  for (auto& i : tiled_policies(comp)) compiled += (compiled.empty() ? "" : ", ") + i.name;
  ParamSpec p{
      "policy",
      "tiling of the CUDA kernel, BMxBNxBK-TMxTN (block tile, per-thread tile; compensated: -regs/-smc/-smsc, "
      "where the total s and compensation c live; -cpS: k-tiles copied by cp.async into a ring of S); auto: the one "
      "named in backends/cuda/agent/gemm_policy.cuh. "
      "Compiled into this build: " +
          compiled +
          (kGemmPolicySweep ? " (the whole sweep)" : std::string("; the others need ") + kGemmPolicySweepOption),
      false,
      0,
      0,
      {"auto"},
      "auto"};
  for (auto& i : sweep_policies(comp)) p.choices.push_back(i.name);
  return p;
}

// The policy a run asks for: "auto" (the variant's kAuto*Policy) or a compiled-in name of its list;
// a sweep policy this build left out is a usage error naming the option that compiles it.
int policy_index(int comp, const std::string& asked) {
  const char* automatic = comp == kNone ? kAutoPlainPolicy : comp == kKahan ? kAutoKahanPolicy : kAutoDcsPolicy;
  const std::string name = asked == "auto" ? automatic : asked;
  const auto& list = tiled_policies(comp);
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return static_cast<int>(i);
  if (asked != "auto")
    throw UsageError(std::string(algo_name(comp)) + ": policy " + name +
                     " is not compiled into this build (configure with " + kGemmPolicySweepOption + ")");
  throw std::logic_error("gemm policy '" + name + "' is not in the list (check kAuto*Policy)");
}

class TiledKernel : public GemmCudaKernel {
 public:
  TiledKernel(const Problem& p, int comp, int tile, bool fma, const std::string& policy)
      : GemmCudaKernel(p),
        comp_(comp),
        tile_(tile),
        fma_(fma),
        policy_(policy_index(comp, policy)),
        info_(tiled_policies(comp)[policy_]) {
    // The cp.async ring reads B row-major: a scratch copy, refreshed by every launch.
    if (info_.stages > 0) bt_ = DeviceBuffer<float>(static_cast<size_t>(p.inner * p.cols));
    const gemm_tile::Launch l = args();
    facts_ = comp_ == kNone    ? gemm_tile::plain_facts(policy_, l)
             : comp_ == kKahan ? gemm_tile::kahan_facts(policy_, l)
                               : gemm_tile::dcs_facts(policy_, l);
  }
  Result result() override {
    Result r = GemmCudaKernel::result();
    // Which policy ran, as numbers (the report lists them beside the metrics): its shape, and
    // what ptxas and this device made of it (registers, spill bytes, resident blocks per SM).
    r.figures = {{"policy_bm", info_.bm},
                 {"policy_bn", info_.bn},
                 {"policy_bk", info_.bk},
                 {"policy_tm", info_.tm},
                 {"policy_tn", info_.tn},
                 {"policy_threads", info_.threads},
                 {"policy_home", info_.home},
                 {"policy_stages", info_.stages},
                 {"policy_smem_bytes", static_cast<double>(info_.smem_bytes)},
                 {"policy_regs", facts_.regs},
                 {"policy_local_bytes", static_cast<double>(facts_.local_bytes)},
                 {"policy_blocks_per_sm", facts_.blocks_per_sm}};
    return r;
  }

 protected:
  void launch() override {
    if (out_.size() == 0) return;
    const gemm_tile::Launch l = args();
    if (comp_ == kNone)
      gemm_tile::plain_launch(policy_, l);
    else if (comp_ == kKahan)
      gemm_tile::kahan_launch(policy_, l);
    else
      gemm_tile::dcs_launch(policy_, l);
  }

 private:
  gemm_tile::Launch args() const {
    const gemm_tile::Shape sh{static_cast<int>(p_.rows), static_cast<int>(p_.cols), static_cast<int>(p_.inner)};
    gemm_tile::Launch l{sh, tile_, fma_, alpha_, beta_, dev_->a.get(), dev_->b.get(), dev_->c.get(), out_.get()};
    l.bt = bt_.get();
    return l;
  }
  int comp_, tile_;
  bool fma_;
  int policy_;
  gemm_tile::PolicyInfo info_;
  gemm_tile::KernelFacts facts_;
  DeviceBuffer<float> bt_;  // B row-major, for policies with a cp.async ring
};

// Every policy gives the same bits (the same products in the same order per entry): bench's
// reproducibility check runs the other compiled-in ones too.
template <int COMP>
std::vector<Params> other_policies(const Params& p) {
  std::vector<std::string> names;
  for (auto& i : tiled_policies(COMP)) names.push_back(i.name);
  return variants_of(p, "policy", names);
}

template <int COMP>
std::unique_ptr<Kernel> make_tiled(const Problem& p, const Params& prm) {
  const int tile = prm.count("tile") ? static_cast<int>(param_int(prm, "tile")) : 1;
  return std::make_unique<TiledKernel>(p, COMP, tile, param_int(prm, "fma") != 0, param_str(prm, "policy"));
}

// ---- the cuBLAS front ----

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed (cuBLAS status " + std::to_string(s) + ")");
}

__global__ void widen(const float* __restrict__ x, double* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    y[i] = x[i];
}
__global__ void narrow(const double* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    y[i] = __double2float_rn(x[i]);
}
unsigned grid_for(size_t n) { return static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65535)); }

enum class Front { sgemm, sgemm_pedantic, tf32, bf16x9, via_dgemm, fixedpoint };

// CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT on this handle with a fixed `bits` mantissa bits, always emulated.
void use_fixed_point(cublasHandle_t h, int bits) {
  check_cublas(cublasSetEmulationStrategy(h, CUBLAS_EMULATION_STRATEGY_EAGER), "cublasSetEmulationStrategy");
  check_cublas(cublasSetFixedPointEmulationMantissaControl(h, CUDA_EMULATION_MANTISSA_CONTROL_FIXED),
               "cublasSetFixedPointEmulationMantissaControl");
  check_cublas(cublasSetFixedPointEmulationMaxMantissaBitCount(h, bits),
               "cublasSetFixedPointEmulationMaxMantissaBitCount");
}

class CublasKernel : public GemmCudaKernel {
 public:
  CublasKernel(const Problem& p, Front f, int bits) : GemmCudaKernel(p), front_(f), bits_(bits) {
    check_cublas(cublasCreate(&h_), "cublasCreate");
    if (front_ == Front::via_dgemm || front_ == Front::fixedpoint) {
      da_ = DeviceBuffer<double>(dev_->a.size());
      db_ = DeviceBuffer<double>(dev_->b.size());
      dc_ = DeviceBuffer<double>(dev_->c.size());
    }
    if (front_ == Front::fixedpoint) use_fixed_point(h_, bits_);
    if (front_ == Front::bf16x9)
      check_cublas(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_EAGER), "cublasSetEmulationStrategy");
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
      if (front_ == Front::fixedpoint)
        check_cublas(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da_.get(), CUDA_R_64F, M, db_.get(),
                                  CUDA_R_64F, K, &beta, dc_.get(), CUDA_R_64F, M,
                                  CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx (double)");
      else
        check_cublas(
            cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da_.get(), M, db_.get(), K, &beta, dc_.get(), M),
            "cublasDgemm");
      narrow<<<grid_for(dc_.size()), 256>>>(dc_.get(), out_.get(), dc_.size());
      return;
    }
    if (beta_ != 0.0f)
      ACCSUM_CUDA_CHECK(cudaMemcpyAsync(out_.get(), dev_->c.get(), out_.size() * 4, cudaMemcpyDeviceToDevice));
    if (front_ == Front::sgemm) {  // the default math mode: no tensor-core down-conversion
      check_cublas(cublasSgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha_, dev_->a.get(), M, dev_->b.get(), K,
                               &beta_, out_.get(), M),
                   "cublasSgemm");
      return;
    }
    const cublasComputeType_t ct = front_ == Front::sgemm_pedantic ? CUBLAS_COMPUTE_32F_PEDANTIC
                                   : front_ == Front::tf32         ? CUBLAS_COMPUTE_32F_FAST_TF32
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

// The dgemm family's cuBLAS DGEMM: cublasDgemm with the default math mode (the call a user makes;
// on Hopper it may use the FP64 tensor cores), CUBLAS_COMPUTE_64F_PEDANTIC, or the fixed-point
// emulation with `bits` mantissa bits.
enum class DgemmMode { default_math, pedantic, fixedpoint };

class CublasDgemmKernel : public GemmCudaKernelOf<double> {
 public:
  CublasDgemmKernel(const Problem& p, DgemmMode mode, int bits)
      : GemmCudaKernelOf<double>(p), mode_(mode), bits_(bits) {
    check_cublas(cublasCreate(&h_), "cublasCreate");
    if (mode_ == DgemmMode::fixedpoint) use_fixed_point(h_, bits_);
  }
  ~CublasDgemmKernel() override { cublasDestroy(h_); }

 protected:
  void launch() override {
    if (out_.size() == 0) return;
    const int M = static_cast<int>(p_.rows), N = static_cast<int>(p_.cols), K = static_cast<int>(p_.inner);
    if (beta_ != 0.0)
      ACCSUM_CUDA_CHECK(cudaMemcpyAsync(out_.get(), dev_->c.get(), out_.size() * 8, cudaMemcpyDeviceToDevice));
    if (mode_ == DgemmMode::default_math) {
      check_cublas(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha_, dev_->a.get(), M, dev_->b.get(), K,
                               &beta_, out_.get(), M),
                   "cublasDgemm");
      return;
    }
    const cublasComputeType_t ct =
        mode_ == DgemmMode::fixedpoint ? CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT : CUBLAS_COMPUTE_64F_PEDANTIC;
    check_cublas(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha_, dev_->a.get(), CUDA_R_64F, M,
                              dev_->b.get(), CUDA_R_64F, K, &beta_, out_.get(), CUDA_R_64F, M, ct, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx (dgemm)");
  }

 private:
  DgemmMode mode_;
  int bits_;
  cublasHandle_t h_{};
};

// The entry of a cuBLAS front; the fixed-point emulation takes --bits.
AlgoEntry front_entry(const char* algo, const char* summary, Front f) {
  return AlgoEntry("gemm", algo, "cuda", summary)
      .maker([f](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
        const int bits = f == Front::fixedpoint ? static_cast<int>(param_int(prm, "bits")) : 0;
        return std::make_unique<CublasKernel>(p, f, bits);
      });
}

// A tiled kernel's entry; its policy parameter comes last.
template <int COMP>
AlgoEntry tiled_entry(const char* algo, const char* summary, std::vector<ParamSpec> params) {
  params.push_back(policy_param(COMP));
  return AlgoEntry("gemm", algo, "cuda", summary)
      .promises_reproducible()
      .with_params(std::move(params))
      .shapes(other_policies<COMP>)
      .maker(make_tiled<COMP>);
}

Registrar reg_sgemm(tiled_entry<kNone>(
    "sgemm", "tiled float GEMM (--policy: block and thread tiles), products summed plainly in k order",
    {gemm::fma_param()}));
Registrar reg_kahan(tiled_entry<kKahan>("sgemm-kahan", "tiled float GEMM, selective Kahan summation per strip",
                                        {gemm::tile_param(), gemm::fma_param()}));
Registrar reg_dcs(tiled_entry<kDcs>("sgemm-dcs", "tiled float GEMM, selective doubly compensated summation",
                                    {gemm::tile_param(), gemm::fma_param()}));
Registrar reg_cublas(
    front_entry("cublas-sgemm", "cuBLAS cublasSgemm, default math mode (baseline)", Front::sgemm).baseline());
Registrar reg_cublas_pedantic(front_entry("cublas-sgemm-pedantic",
                                          "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_PEDANTIC (a front row)",
                                          Front::sgemm_pedantic));
Registrar reg_tf32(front_entry("cublas-tf32", "cuBLAS GEMM on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)",
                               Front::tf32));
Registrar reg_bf16x9(front_entry("cublas-bf16x9",
                                 "cuBLAS FP32 via BF16x9 emulation (CUBLAS_COMPUTE_32F_EMULATED_16BFX9); not supported "
                                 "on Hopper: cuBLAS falls back to SGEMM there",
                                 Front::bf16x9));
Registrar reg_dgemm(front_entry("sgemm-via-dgemm", "widen to double, cuBLAS cublasDgemm (default math), round to float",
                                Front::via_dgemm));
Registrar reg_fixed(
    front_entry("cublas-fixedpoint",
                "widen, cuBLAS fixed-point (INT8 tensor core) DGEMM emulation with --bits mantissa bits, round",
                Front::fixedpoint)
        .with_params({ParamSpec{
            "bits", "mantissa bits of the fixed-point emulation", true, 24, 40, {"24", "32", "40"}, "24"}}));

Registrar reg_cublas_dgemm(AlgoEntry("dgemm", "cublas-dgemm", "cuda",
                                     "cuBLAS cublasDgemm, default math mode (baseline)")
                               .baseline()
                               .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                                 return std::make_unique<CublasDgemmKernel>(p, DgemmMode::default_math, 0);
                               }));
Registrar reg_cublas_dgemm_pedantic(AlgoEntry("dgemm", "cublas-dgemm-pedantic", "cuda",
                                              "cuBLAS DGEMM, CUBLAS_COMPUTE_64F_PEDANTIC (a front row)")
                                        .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                                          return std::make_unique<CublasDgemmKernel>(p, DgemmMode::pedantic, 0);
                                        }));
// The dgemm entry's --bits: its own range (the same option name as cublas-fixedpoint's, other choices).
constexpr int kDgemmFixedPointBits = 55;  // 53 + 2 guard bits
Registrar reg_dgemm_fixed(
    AlgoEntry("dgemm", "cublas-dgemm-fixedpoint", "cuda",
              "cuBLAS DGEMM by fixed-point (INT8 tensor core) emulation, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT with "
              "--bits mantissa bits")
        .with_params({ParamSpec{"bits",
                                "mantissa bits of the fixed-point emulation",
                                true,
                                24,
                                79,
                                {"40", "48", std::to_string(kDgemmFixedPointBits), "63", "71", "79"},
                                std::to_string(kDgemmFixedPointBits)}})
        .maker([](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
          return std::make_unique<CublasDgemmKernel>(p, DgemmMode::fixedpoint,
                                                     static_cast<int>(param_int(prm, "bits")));
        }));

}  // namespace
}  // namespace accsum::cuda
