// moddot on CUDA: the lambda- and (alpha, beta, gamma, delta)-algorithms of Jean, Graillat,
// "A parallel algorithm for dot product over word-size finite field using floating-point
// arithmetic", SYNASC 2010, in round-toward-zero as published (__dmul_rz, __fma_rz, __dadd_rz,
// __dsub_rz: the rounding is in the instruction, nothing global to restore) and in our
// round-to-nearest variants (bounds derived in core/moddot.hpp); a 64x64->128-bit integer kernel
// (__umul64hi) and cuBLAS ddot on the same vectors as the bandwidth yardstick.
// Each thread sums a grid-strided share (64-bit indices: n > 2^31 works), reduced mod p every
// lambda terms (lambda) or 2^26 terms (abgd); block residues are merged by addition mod p in
// shared memory, the block residues on the host. Exact residues: the same bits as cpu.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "core/moddot.hpp"
#include "datasets/residues.hpp"

namespace accsum::cuda {
namespace {

constexpr int kThreads = 256;
constexpr long long kBlock = 1ll << 26;

__device__ __forceinline__ double d_mod(double x, double p) {  // fmod is exact (0 ulp)
  double r = fmod(x, p);
  return r < 0 ? r + p : r;
}
__device__ __forceinline__ double d_add_mod(double a, double b, double p) {
  double s = __dadd_rn(a, b);  // exact: below 2^53
  return s >= p ? __dsub_rn(s, p) : s;
}
__device__ __forceinline__ double d_reduce52(double x, double p, double pinv) {
  double q = floor(__dmul_rn(x, pinv));
  double r = __fma_rn(-q, p, x);
  r = r < 0 ? r + p : r;
  return r >= p ? r - p : r;
}
__device__ __forceinline__ double d_to_field(double v, double p) {
  v = v < 0 ? v + p : v;
  return v >= p ? v - p : v;
}
// ExtractScalar in round-toward-zero (the paper's Algorithm 2).
__device__ __forceinline__ void extract_rz(double sigma, double a, double& x, double& y) {
  double q = __dadd_rz(sigma, a);
  x = __dsub_rz(q, sigma);
  y = __dsub_rz(a, x);
}

// Merges one residue per thread into out[blockIdx.x].
__device__ void block_merge(double v, double p, double* out) {
  __shared__ double sh[kThreads];
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = d_add_mod(sh[threadIdx.x], sh[threadIdx.x + s], p);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

// Algorithm 3 (round toward zero), per thread, blocks of at most 2^26 terms.
__global__ void abgd_rz_kernel(const double* __restrict__ x, const double* __restrict__ y, long long n, double p,
                               double* out) {
  const long long W = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double acc = 0;
  while (i < n) {
    double A = 0, B = 0, C = 0, D = 0;
    for (long long c = 0; c < kBlock && i < n; ++c, i += W) {
      const double a = x[i], b = y[i];
      double h = __dmul_rz(a, b);
      double r = __fma_rz(a, b, -h);
      double al, be, ga, de, ep;
      extract_rz(0x1p131, h, al, be);
      if (al == 0) {
        if (be == 0) {
          extract_rz(0x1p78, h, ga, de);
        } else {
          extract_rz(0x1p105, h, be, ga);
          extract_rz(0x1p78, ga, ga, ep);
          de = __dadd_rz(r, ep);
        }
      } else {
        extract_rz(0x1p105, be, be, ep);
        extract_rz(0x1p78, r, ga, de);
        ga = __dadd_rz(ga, ep);
      }
      A = __dadd_rz(A, al);
      B = __dadd_rz(B, be);
      C = __dadd_rz(C, ga);
      D = __dadd_rz(D, de);
    }
    acc = d_add_mod(acc, d_add_mod(d_add_mod(d_mod(A, p), d_mod(B, p), p), d_add_mod(d_mod(C, p), d_mod(D, p), p), p), p);
  }
  block_merge(acc, p, out);
}

// Our round-to-nearest (alpha, beta, gamma, delta) variant: branch-free (core/moddot.hpp).
__global__ void abgd_rn_kernel(const double* __restrict__ x, const double* __restrict__ y, long long n, double p,
                               double* out) {
  const long long W = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double acc = 0;
  while (i < n) {
    double A = 0, B = 0, C = 0, D = 0;
    for (long long c = 0; c < kBlock && i < n; ++c, i += W) {
      const double a = x[i], b = y[i];
      double h = __dmul_rn(a, b);
      double r = __fma_rn(a, b, -h);
      double al = __dsub_rn(__dadd_rn(0x1p131, h), 0x1p131), bp = __dsub_rn(h, al);
      double be = __dsub_rn(__dadd_rn(0x1p105, bp), 0x1p105), ep = __dsub_rn(bp, be);
      double t = __dadd_rn(ep, r);
      double ga = __dsub_rn(__dadd_rn(0x1p79, t), 0x1p79), de = __dsub_rn(t, ga);
      A = __dadd_rn(A, al);
      B = __dadd_rn(B, be);
      C = __dadd_rn(C, ga);
      D = __dadd_rn(D, de);
    }
    acc = d_add_mod(acc, d_add_mod(d_add_mod(d_mod(A, p), d_mod(B, p), p), d_add_mod(d_mod(C, p), d_mod(D, p), p), p), p);
  }
  block_merge(acc, p, out);
}

// lambda-algorithm (Theorem 3); RZ as published or our RN variant.
template <bool RZ>
__global__ void lambda_kernel(const double* __restrict__ x, const double* __restrict__ y, long long n, double p,
                              double pinv, double sigma, double scale, double two_l1, long long lambda, double* out) {
  const long long W = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double Sa = 0, Sb = 0, Sr = 0;
  while (i < n) {
    double ca = 0, cb = 0, cr = 0;
    for (long long c = 0; c < lambda && i < n; ++c, i += W) {
      const double a = x[i], b = y[i];
      double h, r, al, be;
      if (RZ) {
        h = __dmul_rz(a, b);
        r = __fma_rz(a, b, -h);
        extract_rz(sigma, h, al, be);
      } else {
        h = __dmul_rn(a, b);
        r = __fma_rn(a, b, -h);
        al = __dsub_rn(__dadd_rn(sigma, h), sigma);
        be = __dsub_rn(h, al);
      }
      ca = __dadd_rn(ca, d_to_field(__dmul_rn(al, scale), p));  // every sum exact: any rounding
      cb = __dadd_rn(cb, d_to_field(be, p));
      cr = __dadd_rn(cr, d_to_field(r, p));
    }
    Sa = d_add_mod(Sa, d_reduce52(ca, p, pinv), p);
    Sb = d_add_mod(Sb, d_reduce52(cb, p, pinv), p);
    Sr = d_add_mod(Sr, d_reduce52(cr, p, pinv), p);
  }
  block_merge(d_add_mod(d_mod(__dmul_rn(Sa, two_l1), p), d_add_mod(Sb, Sr, p), p), p, out);
}

// (hi, lo) mod p for p < 2^52: hi mod p, then the 64 low bits 4 + 5 x 12 at a time.
__device__ unsigned long long mod128(unsigned long long hi, unsigned long long lo, unsigned long long p) {
  unsigned long long r = hi % p;
  r = ((r << 4) | (lo >> 60)) % p;
  for (int s = 48; s >= 0; s -= 12) r = ((r << 12) | ((lo >> s) & 0xfff)) % p;
  return r;
}

// 64x64->128-bit products (__umul64hi), one reduction per 2^22 terms per thread.
__global__ void int128_kernel(const double* __restrict__ x, const double* __restrict__ y, long long n,
                              unsigned long long p, double* out) {
  const long long W = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long acc = 0;
  while (i < n) {
    unsigned long long hi = 0, lo = acc;
    for (long long c = 0; c < (1ll << 22) && i < n; ++c, i += W) {
      const unsigned long long a = static_cast<unsigned long long>(x[i]), b = static_cast<unsigned long long>(y[i]);
      const unsigned long long pl = a * b, ph = __umul64hi(a, b);
      lo += pl;
      hi += ph + (lo < pl);
    }
    acc = mod128(hi, lo, p);
  }
  block_merge(static_cast<double>(acc), static_cast<double>(p), out);
}

enum class Algo { abgd, lambda, int128 };

class ModdotCuda : public CudaKernel {
 public:
  ModdotCuda(const Problem& pr, Algo algo, bool rz, int blocks_param)
      : CudaKernel(pr), algo_(algo), rz_(rz), p_(prime_of(pr.data)) {
    int sms = 1;
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const long long want = blocks_param > 0 ? blocks_param : 8ll * sms;
    blocks_ = static_cast<int>(std::max(1ll, std::min<long long>(want, (pr.n + kThreads - 1) / kThreads)));
    out_ = DeviceBuffer<double>(blocks_);
  }
  double run() override {
    const double pd = static_cast<double>(p_);
    const long long n = in_->n;
    timer_.start();
    if (algo_ == Algo::abgd) {
      if (rz_) abgd_rz_kernel<<<blocks_, kThreads>>>(in_->x, in_->y, n, pd, out_.get());
      else abgd_rn_kernel<<<blocks_, kThreads>>>(in_->x, in_->y, n, pd, out_.get());
    } else if (algo_ == Algo::lambda) {
      const int l = moddot::split_level(p_);
      const double sigma = std::ldexp(1.0, l + 53), scale = std::ldexp(1.0, -(l + 1)), two = std::ldexp(1.0, l + 1);
      const long long lambda = moddot::lambda_of(p_);
      if (rz_) lambda_kernel<true><<<blocks_, kThreads>>>(in_->x, in_->y, n, pd, 1.0 / pd, sigma, scale, two, lambda, out_.get());
      else lambda_kernel<false><<<blocks_, kThreads>>>(in_->x, in_->y, n, pd, 1.0 / pd, sigma, scale, two, lambda, out_.get());
    } else {
      int128_kernel<<<blocks_, kThreads>>>(in_->x, in_->y, n, p_, out_.get());
    }
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    last_ = timer_.stop_seconds();
    std::vector<double> part(blocks_);
    ACCSUM_CUDA_CHECK(cudaMemcpy(part.data(), out_.get(), part.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double r = 0;
    for (double v : part) r = moddot::add_mod(r, v, pd);
    return r;
  }

 private:
  Algo algo_;
  bool rz_;
  uint64_t p_;
  int blocks_ = 1;
  DeviceBuffer<double> out_;
  EventTimer timer_;
};

ParamSpec rounding_param() {
  return ParamSpec{"rounding", "rz: __dmul_rz/__fma_rz/__dadd_rz as published; rn: our round-to-nearest variant",
                   false, 0, 0, {"rz", "rn"}, "rz", true};
}
ParamSpec blocks_param() { return ParamSpec{"blocks", "thread blocks (0 = 8 per SM)", true, 0, 1 << 20, {}, "0"}; }
std::vector<Params> block_variants(const Params& p) {
  std::vector<Params> out;
  for (const char* b : {"1", "7", "132"}) {
    Params q = p;
    q["blocks"] = b;
    out.push_back(q);
  }
  return out;
}

MakeFn make(Algo a) {
  return [a](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
    bool rz = a != Algo::int128 && param_str(prm, "rounding") == "rz";
    return std::make_unique<ModdotCuda>(pr, a, rz, static_cast<int>(param_int(prm, "blocks")));
  };
}

Registrar reg_abgd(AlgoEntry("moddot", "moddot-abgd", "cuda",
    "(alpha,beta,gamma,delta)-algorithm (Jean-Graillat Alg. 3), per-thread blocks of 2^26, 64-bit indices")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rounding_param(), blocks_param()})
    .shapes(block_variants)
    .maker(make(Algo::abgd)));
Registrar reg_lambda(AlgoEntry("moddot", "moddot-lambda", "cuda",
    "lambda-algorithm (Jean-Graillat Thm. 3), one reduction per lambda terms per thread")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rounding_param(), blocks_param()})
    .shapes(block_variants)
    .maker(make(Algo::lambda)));
Registrar reg_int128(AlgoEntry("moddot", "moddot-int128", "cuda",
    "64x64->128-bit integer products (__umul64hi), one reduction per 2^22 terms per thread (baseline)")
    .promises(Guarantee::exact).promises_reproducible().baseline()
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
