// The gemm family on the cpu backend: sgemm, sgemm-kahan, sgemm-dcs (core/numerics/gemm_serial.hpp, after
// Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs",
// 2011, Figs. 1-3) and OpenBLAS cblas_sgemm on one thread as the baseline; the dgemm family's
// dgemm (the plain definition in double) and cblas_dgemm on one thread as its baseline.
#if defined(ACCSUM_HAVE_OPENBLAS)
#include <cblas.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/openblas_limits.hpp"
#include "backends/cpu/gemm_host.hpp"
#include "core/numerics/gemm_serial.hpp"
#include "core/families/gemm_params.hpp"

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
// per entry as dot_entry (core/numerics/gemm_serial.hpp), vectorized across the rows.
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

namespace {

class HostGemmKernel : public Kernel {
 public:
  HostGemmKernel(const Problem& p, HostGemmSpec s) : p_(p), s_(s), out_(static_cast<size_t>(p.rows * p.cols)) {}
  void execute() override { host_gemm_columns(p_, s_, out_.data(), 0, p_.cols); }
  Result result() override { return Result{std::vector<double>(out_.begin(), out_.end())}; }

 private:
  Problem p_;
  HostGemmSpec s_;
  std::vector<float> out_;
};

template <int COMP>
std::unique_ptr<Kernel> make_host(const Problem& p, const Params& prm) {
  return std::make_unique<HostGemmKernel>(p, host_spec(p, COMP, prm));
}

Registrar reg_sgemm(AlgoEntry("gemm", "sgemm", "cpu", "float GEMM, products summed plainly in k order (the control)")
                        .with_params({fma_param()})
                        .maker(make_host<kNone>));
Registrar reg_kahan(
    AlgoEntry("gemm", "sgemm-kahan", "cpu",
              "float GEMM, strips of `tile` products added by Kahan summation (Badin et al. 2011, Fig. 3)")
        .with_params({tile_param(), fma_param()})
        .maker(make_host<kKahan>));
Registrar reg_dcs(AlgoEntry("gemm", "sgemm-dcs", "cpu",
                            "float GEMM, strips of `tile` products added by Priest's doubly compensated summation "
                            "(Badin et al. 2011, Figs. 1-2)")
                      .with_params({tile_param(), fma_param()})
                      .maker(make_host<kDcs>));

}  // namespace

namespace {

// dgemm: every entry plain_dot then finish, in double (core/numerics/gemm_serial.hpp).
class DgemmKernel : public Kernel {
 public:
  DgemmKernel(const Problem& p, bool fma) : p_(p), fma_(fma), out_(static_cast<size_t>(p.rows * p.cols)) {
    alpha_ = data_double(p.data, "alpha", 1.0);
    beta_ = data_double(p.data, "beta", 0.0);
  }
  void execute() override {
    const int64_t M = p_.rows, K = p_.inner;
    for (int64_t j = 0; j < p_.cols; ++j)
      for (int64_t i = 0; i < M; ++i) {
        const double s = alpha_ == 0.0 ? 0.0 : plain_dot(p_.a64 + i, M, p_.b64 + j * K, K, fma_);  // BLAS: A, B unread
        out_[static_cast<size_t>(i + j * M)] = finish(s, alpha_, beta_, p_.c64 + i + j * M, fma_);
      }
  }
  Result result() override { return Result{out_}; }

 private:
  Problem p_;
  bool fma_;
  double alpha_ = 1, beta_ = 0;
  std::vector<double> out_;
};

Registrar reg_dgemm(AlgoEntry("dgemm", "dgemm", "cpu", "double GEMM, products summed plainly in k order (the control)")
                        .with_params({fma_param()})
                        .maker([](const Problem& p, const Params& prm) {
                          return std::make_unique<DgemmKernel>(p, param_int(prm, "fma") != 0);
                        }));

}  // namespace

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
  Result result() override { return Result{std::vector<double>(out_.begin(), out_.end())}; }

 private:
  Problem p_;
  int threads_;
  F alpha_, beta_;
  std::vector<F> out_;
};

std::unique_ptr<Kernel> make_openblas(const Problem& p, int threads) {
  return std::make_unique<OpenblasKernel<float>>(p, threads);
}

namespace {
Registrar reg_openblas(AlgoEntry("gemm", "openblas-sgemm", "cpu", "OpenBLAS cblas_sgemm on one thread (baseline)")
                           .baseline()
                           .maker([](const Problem& p, const Params&) { return make_openblas(p, 1); }));
Registrar reg_openblas_d(AlgoEntry("dgemm", "openblas-dgemm", "cpu", "OpenBLAS cblas_dgemm on one thread (baseline)")
                             .baseline()
                             .maker([](const Problem& p, const Params&) {
                               return std::make_unique<OpenblasKernel<double>>(p, 1);
                             }));
}  // namespace

#endif

}  // namespace accsum::gemm
