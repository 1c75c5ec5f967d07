// The host GEMM kernels the cpu and cpu-mt backends share (families/gemm/gemm_host.hpp): the blocked
// SGEMM with selective compensation (families/gemm/gemm_serial.hpp, after Badin, Bic, Dillencourt,
// Nicolau, "Improving accuracy for matrix multiplications on GPUs", 2011, Figs. 1-3) and OpenBLAS
// cblas_sgemm / cblas_dgemm with a given thread count, the vendor baseline of the host backends.
#if defined(ACCSUM_HAVE_OPENBLAS)
#include <cblas.h>
#endif

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "families/gemm/gemm_host.hpp"
#include "families/gemm/gemm_params.hpp"
#include "families/gemm/gemm_serial.hpp"
#include "families/gemm/openblas_limits.hpp"

namespace accsum::gemm {

HostGemmSpec host_spec(const Problem& p, int comp, const Params& prm) {
  HostGemmSpec s;
  s.comp = comp;
  s.tile = prm.count("tile") ? static_cast<int>(param_int(prm, "tile")) : 1;
  s.fma = prm.count("fma") ? param_int(prm, "fma") != 0 : true;
  s.alpha = data_float(p.data, "alpha", 1.0f);
  s.beta = data_float(p.data, "beta", 0.0f);
  return s;
}

namespace {

constexpr int64_t kIB = 64;  // rows per block: one AVX2-friendly strip of A's column

// One block: rows [i0, i0+ib) x columns [j0, j0+jb), jb <= kHostColumnBlock. The same operations
// per entry as dot_entry (families/gemm/gemm_serial.hpp), vectorized across the rows.
template <int COMP, bool FMA>
void block(const Problem& p, const HostGemmSpec& sp, float* out, int64_t i0, int64_t ib, int64_t j0, int64_t jb) {
  const int64_t M = p.rows, K = p.inner;
  float s[kHostColumnBlock][kIB], c[kHostColumnBlock][kIB], q[kHostColumnBlock][kIB];
  for (int64_t j = 0; j < jb; ++j)
    for (int64_t i = 0; i < ib; ++i) s[j][i] = c[j][i] = 0.0f;
  const int64_t tile = COMP == kNone ? (K > 0 ? K : 1) : sp.tile;
  for (int64_t k0 = 0; k0 < K; k0 += tile) {
    const int64_t k1 = std::min(K, k0 + tile);
    float(*acc)[kIB] = COMP == kNone ? s : q;
    if (COMP != kNone)
      for (int64_t j = 0; j < jb; ++j)
        for (int64_t i = 0; i < ib; ++i) q[j][i] = 0.0f;
    for (int64_t k = k0; k < k1; ++k) {
      const float* ak = p.a + k * M + i0;
      for (int64_t j = 0; j < jb; ++j) {
        const float bkj = p.b[k + (j0 + j) * K];
        for (int64_t i = 0; i < ib; ++i) acc[j][i] = mul_add(ak[i], bkj, acc[j][i], FMA);
      }
    }
    if (COMP != kNone)
      for (int64_t j = 0; j < jb; ++j)
        for (int64_t i = 0; i < ib; ++i) comp_add(COMP, s[j][i], c[j][i], q[j][i]);
  }
  for (int64_t j = 0; j < jb; ++j)
    for (int64_t i = 0; i < ib; ++i) {
      float v = s[j][i];
      const int64_t row = i0 + i, col = j0 + j;
      if (COMP != kNone && !std::isfinite(v)) v = dot_entry(p.a + row, M, p.b + col * K, K, kNone, 1, FMA);
      out[row + col * M] = finish(v, sp.alpha, sp.beta, p.c + row + col * M, FMA);
    }
}

template <int COMP, bool FMA>
void columns(const Problem& p, const HostGemmSpec& sp, float* out, int64_t j0, int64_t j1) {
  if (sp.alpha == 0.0f) {  // BLAS: A and B are not read
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t i = 0; i < p.rows; ++i)
        out[i + j * p.rows] = finish(0.0f, sp.alpha, sp.beta, p.c + i + j * p.rows, FMA);
    return;
  }
  for (int64_t jb0 = j0; jb0 < j1; jb0 += kHostColumnBlock)
    for (int64_t i0 = 0; i0 < p.rows; i0 += kIB)
      block<COMP, FMA>(p, sp, out, i0, std::min(kIB, p.rows - i0), jb0, std::min(kHostColumnBlock, j1 - jb0));
}

}  // namespace

void host_gemm_columns(const Problem& p, const HostGemmSpec& s, float* out, int64_t j0, int64_t j1) {
  switch (s.comp * 2 + (s.fma ? 1 : 0)) {
    case kNone * 2 + 0:
      return columns<kNone, false>(p, s, out, j0, j1);
    case kNone * 2 + 1:
      return columns<kNone, true>(p, s, out, j0, j1);
    case kKahan * 2 + 0:
      return columns<kKahan, false>(p, s, out, j0, j1);
    case kKahan * 2 + 1:
      return columns<kKahan, true>(p, s, out, j0, j1);
    case kDcs * 2 + 0:
      return columns<kDcs, false>(p, s, out, j0, j1);
    default:
      return columns<kDcs, true>(p, s, out, j0, j1);
  }
}

#if defined(ACCSUM_HAVE_OPENBLAS)
namespace {
void blas_gemm(int M, int N, int K, float alpha, const float* a, const float* b, float beta, float* c) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, a, std::max(1, M), b, std::max(1, K), beta, c,
              std::max(1, M));
}
void blas_gemm(int M, int N, int K, double alpha, const double* a, const double* b, double beta, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, a, std::max(1, M), b, std::max(1, K), beta, c,
              std::max(1, M));
}
}  // namespace

// OpenBLAS cblas_sgemm (cblas_dgemm) with `threads` threads (the vendor baseline on the host backends).
template <class F>
class OpenblasKernel : public Kernel {
 public:
  OpenblasKernel(const Problem& p, int threads) : p_(p), threads_(threads), out_(static_cast<size_t>(p.rows * p.cols)) {
    openblas::require_room(threads);
    alpha_ = data_scalar<F>(p.data, "alpha", F(1));
    beta_ = data_scalar<F>(p.data, "beta", F(0));
  }
  void execute() override {
    if (out_.empty()) return;
    if (beta_ != F(0)) std::memcpy(out_.data(), p_.*MatricesOf<F>::pc, out_.size() * sizeof(F));
    openblas_set_num_threads(threads_);
    blas_gemm(static_cast<int>(p_.rows), static_cast<int>(p_.cols), static_cast<int>(p_.inner), alpha_,
              p_.*MatricesOf<F>::pa, p_.*MatricesOf<F>::pb, beta_, out_.data());
  }
  Result result() override { return Result{std::vector<double>(out_.begin(), out_.end()), {}, {}}; }

 private:
  Problem p_;
  int threads_;
  F alpha_, beta_;
  std::vector<F> out_;
};

std::unique_ptr<Kernel> make_openblas(const Problem& p, int threads) {
  return std::make_unique<OpenblasKernel<float>>(p, threads);
}

std::unique_ptr<Kernel> make_openblas_dgemm(const Problem& p, int threads) {
  return std::make_unique<OpenblasKernel<double>>(p, threads);
}

#endif

}  // namespace accsum::gemm
