// moddot on CUDA: the lambda- and (alpha, beta, gamma, delta)-algorithms of Jean, Graillat,
// "A parallel algorithm for dot product over word-size finite field using floating-point
// arithmetic", SYNASC 2010, in round-toward-zero as published (__dmul_rz, __fma_rz, __dadd_rz,
// __dsub_rz: the rounding is in the instruction, nothing global to restore) and in our
// round-to-nearest variants (bounds derived in families/moddot/moddot.hpp); a 64x64->128-bit integer kernel
// (__umul64hi) and cuBLAS ddot on the same vectors as the bandwidth yardstick.
// Each thread sums a grid-strided share read as 16-byte pairs (64-bit indices: n > 2^31 works),
// reduced mod p every lambda terms (lambda), 2^26 terms (abgd: the paper's one-pass limit, per
// thread) or 2^22 (int128); block residues are merged by addition mod p in shared memory, the
// block residues on the host. The grid is one full wave of resident blocks. Exact residues: the
// same bits as cpu.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "core/numerics/modp.h"
#include "families/moddot/moddot.hpp"
#include "datasets/residues.hpp"

namespace accsum::cuda {
namespace {

constexpr int kThreads = 256;

// CUDA's round-toward-zero operations, as core/numerics/modp.h's step parameters: the rounding
// is in the instruction.
#define ACCSUM_ADD_RZ(a, b) __dadd_rz((a), (b))
#define ACCSUM_SUB_RZ(a, b) __dsub_rz((a), (b))
#define ACCSUM_MUL_RZ(a, b) __dmul_rz((a), (b))
#define ACCSUM_FMA_RZ(a, b, c) __fma_rz((a), (b), (c))

// Merges one residue per thread into out[blockIdx.x].
__device__ void block_merge(double v, accsum_modp m, double* out) {
  __shared__ double sh[kThreads];
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = accsum_modp_add(sh[threadIdx.x], sh[threadIdx.x + s], m);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

// Per-thread accumulators: put() adds one product's pieces, exact as long as at most `period`
// terms are put between two flush()es (the kernel counts); residue() is the thread's residue.

// (alpha, beta, gamma, delta): the branch-free splitting. Round to nearest (families/moddot/moddot.hpp)
// with the last cut by 2^79; round toward zero by 2^78: Algorithm 3's splitting without its
// case analysis (the derivation in backends/cpu/moddot_rz.cpp: every piece nonnegative, every
// sum of at most 2^26 of them exact), so no branch divides a warp.
// period <= 2^26: the paper's one-pass limit, per thread.
template <bool RZ>
struct AbgdAcc {
  accsum_modp m;
  int period;
  double A = 0, B = 0, C = 0, D = 0, res = 0;
  __device__ void put(double a, double b) {
    if (RZ)
      ACCSUM_ABGD_PUT(ACCSUM_ADD_RZ, ACCSUM_SUB_RZ, ACCSUM_MUL_RZ, ACCSUM_FMA_RZ, a, b, 0x1p78, &A, &B, &C, &D);
    else
      accsum_abgd_put(a, b, 0x1p79, &A, &B, &C, &D);
  }
  __device__ void flush() {
    res = accsum_modp_add(res, accsum_abgd_residue(A, B, C, D, m), m);
    A = B = C = D = 0;
  }
  __device__ double residue() {
    flush();
    return res;
  }
};

// lambda (Theorem 3): three pieces made field elements, summed exactly for lambda terms
// (lambda (p - 1) < 2^52), then reduced. The cut: ExtractScalar(2^(l+53), h) in either mode.
template <bool RZ>
struct LambdaAcc {
  accsum_modp m;
  int period;
  double ca = 0, cb = 0, cr = 0, Sa = 0, Sb = 0, Sr = 0;
  __device__ void put(double a, double b) {
    double h, r, al, be;
    if (RZ)
      ACCSUM_LAMBDA_CUT(ACCSUM_ADD_RZ, ACCSUM_SUB_RZ, ACCSUM_MUL_RZ, ACCSUM_FMA_RZ, a, b, m.sigma, &h, &r, &al, &be);
    else
      ACCSUM_LAMBDA_CUT(ACCSUM_ADD, ACCSUM_SUB, ACCSUM_MUL, ACCSUM_FMA, a, b, m.sigma, &h, &r, &al, &be);
    accsum_lambda_add(al, be, r, m, &ca, &cb, &cr);  // every sum exact: any rounding
  }
  __device__ void flush() { accsum_lambda_flush(m, &ca, &cb, &cr, &Sa, &Sb, &Sr); }
  __device__ double residue() {
    flush();
    return accsum_lambda_residue(Sa, Sb, Sr, m);
  }
};

// 64x64->128-bit products (__umul64hi), one reduction per 2^22 terms (2^22 products below
// 2^104 and a residue stay below 2^127).
struct Int128Acc {
  accsum_u64 p;
  int period;
  accsum_u64 hi = 0, lo = 0;
  __device__ void put(double x, double y) {
    accsum_mac128(static_cast<accsum_u64>(x), static_cast<accsum_u64>(y), &hi, &lo);
  }
  __device__ void flush() {
    lo = accsum_mod128(hi, lo, p);
    hi = 0;
  }
  __device__ double residue() {
    flush();
    return static_cast<double>(lo);
  }
};

// Grid-stride over the pairs (x[2j], x[2j+1]) as 16-byte loads, 64-bit indices (any n); the
// odd last element by thread 0; then the block's residues merged. Wide (period >= 4): two
// pairs per thread and iteration (64 bytes in flight per thread before any arithmetic), up to
// period / 4 iterations between flushes, so the loop body has no reduction in it. Narrow
// (period < 4: lambda for p - 1 > 2^50.4, short test blocks): one element at a time.
template <class Acc, bool kWide>
__global__ void __launch_bounds__(kThreads) moddot_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                                          long long n, Acc acc, accsum_modp m, double* out) {
  const long long W = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long pairs = n / 2;
  const double2* __restrict__ x2 = reinterpret_cast<const double2*>(x);
  const double2* __restrict__ y2 = reinterpret_cast<const double2*>(y);
  long long j = tid;
  int count = 0;  // terms put since the last flush (wide: 0 after the loop)
  if (kWide) {
    const int per = acc.period / 4;
    while (j + W < pairs) {
      for (int it = 0; it < per && j + W < pairs; ++it, j += 2 * W) {
        const double2 a0 = x2[j], b0 = y2[j], a1 = x2[j + W], b1 = y2[j + W];
        acc.put(a0.x, b0.x);
        acc.put(a0.y, b0.y);
        acc.put(a1.x, b1.x);
        acc.put(a1.y, b1.y);
      }
      acc.flush();
    }
  }
  auto put = [&](double a, double b) {  // one term, flushing every period terms
    acc.put(a, b);
    if (++count == acc.period) {
      acc.flush();
      count = 0;
    }
  };
  for (; j < pairs; j += W) {  // wide: at most one pair is left
    const double2 a0 = x2[j], b0 = y2[j];
    put(a0.x, b0.x);
    put(a0.y, b0.y);
  }
  if (tid == 0 && (n & 1)) put(x[n - 1], y[n - 1]);
  block_merge(acc.residue(), m, out);
}

enum class Algo { abgd, lambda, int128 };

// Reductions at most every 2^30 terms: the counter is 32-bit (reducing earlier is always exact).
constexpr long long kMaxPeriod = 1ll << 30;

class ModdotCuda : public CudaKernel {
 public:
  ModdotCuda(const Problem& pr, Algo algo, bool rz, int blocks_param, long long abgd_block)
      : CudaKernel(pr),
        algo_(algo),
        rz_(rz),
        p_(prime_of(pr.data)),
        m_(accsum_modp_init(p_)),
        abgd_block_(abgd_block),
        blocks_param_(blocks_param) {
    if ((reinterpret_cast<uintptr_t>(in_->x) | reinterpret_cast<uintptr_t>(in_->y)) % alignof(double2) != 0)
      throw std::logic_error("moddot cuda: device vectors are not 16-byte aligned");
    out_ = DeviceBuffer<double>(max_blocks());
  }
  double run() override {
    timer_.start();
    if (algo_ == Algo::abgd) {
      if (rz_)
        launch(AbgdAcc<true>{m_, static_cast<int>(abgd_block_)});
      else
        launch(AbgdAcc<false>{m_, static_cast<int>(abgd_block_)});
    } else if (algo_ == Algo::lambda) {
      const int lambda = static_cast<int>(std::min<long long>(m_.lambda, kMaxPeriod));
      if (rz_)
        launch(LambdaAcc<true>{m_, lambda});
      else
        launch(LambdaAcc<false>{m_, lambda});
    } else {
      launch(Int128Acc{p_, 1 << 22});
    }
    last_ = timer_.stop_seconds();
    std::vector<double> part(blocks_);
    ACCSUM_CUDA_CHECK(cudaMemcpy(part.data(), out_.get(), part.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double r = 0;
    for (double v : part) r = accsum_modp_add(r, v, m_);
    return r;
  }

 private:
  // The grid: one full wave of resident blocks (as many per SM as the kernel's registers allow;
  // a second, partial wave would leave SMs idle at the end), at most one pair per thread.
  template <class Acc, bool kWide>
  int grid_of() const {
    if (blocks_param_ > 0) return clamp_blocks(blocks_param_);
    int per_sm = 1;
    ACCSUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, moddot_kernel<Acc, kWide>, kThreads, 0));
    return clamp_blocks(static_cast<long long>(std::max(1, per_sm)) * sm_count());
  }
  int clamp_blocks(long long want) const {
    const long long pairs = std::max<long long>(1, in_->n / 2);
    return static_cast<int>(std::max(1ll, std::min({want, (pairs + kThreads - 1) / kThreads, max_blocks()})));
  }
  long long max_blocks() const { return blocks_param_ > 0 ? blocks_param_ : 64ll * sm_count(); }
  template <class Acc>
  void launch(const Acc& acc) {
    if (acc.period >= 4)
      launch_as<Acc, true>(acc);
    else
      launch_as<Acc, false>(acc);
  }
  template <class Acc, bool kWide>
  void launch_as(const Acc& acc) {
    blocks_ = grid_of<Acc, kWide>();
    moddot_kernel<Acc, kWide><<<blocks_, kThreads>>>(in_->x, in_->y, in_->n, acc, m_, out_.get());
    ACCSUM_CUDA_CHECK(cudaGetLastError());
  }

  Algo algo_;
  bool rz_;
  uint64_t p_;
  accsum_modp m_;
  long long abgd_block_;
  int blocks_param_;
  int blocks_ = 1;
  DeviceBuffer<double> out_;
  EventTimer timer_;
};

ParamSpec rounding_param() {
  return ParamSpec{"rounding", "rz: __dmul_rz/__fma_rz/__dadd_rz as published; rn: our round-to-nearest variant",
                   false,      0,
                   0,          {"rz", "rn"},
                   "rz",       true};
}
ParamSpec blocks_param() {
  return ParamSpec{"blocks", "thread blocks (0 = one full wave: as many per SM as fit)", true, 0, 1 << 20, {}, "0"};
}
std::vector<Params> block_variants(const Params& p) { return variants_of(p, "blocks", {"1", "7", "132"}); }

MakeFn make(Algo a) {
  return [a](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
    bool rz = a != Algo::int128 && param_str(prm, "rounding") == "rz";
    const long long block = a == Algo::abgd ? param_int(prm, "block") : 0;
    return std::make_unique<ModdotCuda>(pr, a, rz, static_cast<int>(param_int(prm, "blocks")), block);
  };
}

Registrar reg_abgd(
    AlgoEntry("moddot", "moddot-abgd", "cuda",
              "(alpha,beta,gamma,delta)-algorithm (Jean-Graillat Alg. 3), per-thread blocks of 2^26, 64-bit indices")
        .promises(Guarantee::exact)
        .promises_reproducible()
        .with_params({rounding_param(), blocks_param(), moddot::block_param()})
        .shapes(block_variants)
        .maker(make(Algo::abgd)));
Registrar reg_lambda(AlgoEntry("moddot", "moddot-lambda", "cuda",
                               "lambda-algorithm (Jean-Graillat Thm. 3), one reduction per lambda terms per thread")
                         .promises(Guarantee::exact)
                         .promises_reproducible()
                         .with_params({rounding_param(), blocks_param()})
                         .shapes(block_variants)
                         .maker(make(Algo::lambda)));
Registrar reg_int128(
    AlgoEntry("moddot", "moddot-int128", "cuda",
              "64x64->128-bit integer products (__umul64hi), one reduction per 2^22 terms per thread (baseline)")
        .promises(Guarantee::exact)
        .promises_reproducible()
        .baseline()
        .with_params({blocks_param()})
        .shapes(block_variants)
        .maker(make(Algo::int128)));
Registrar reg_cublas(AlgoEntry("moddot", "moddot-cublas-ddot", "cuda",
                               "cuBLAS ddot of the same vectors: the bandwidth yardstick (not a residue; no guarantee)")
                         // The dot family's cuBLAS ddot kernel itself, on the same 16 bytes per element.
                         .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                           const AlgoEntry* ddot = registry().find("cublas-dot", "cuda");
                           return ddot->make(p, registry().resolve_params(*ddot, {}));
                         }));

}  // namespace
}  // namespace accsum::cuda
