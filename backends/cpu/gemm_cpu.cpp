// The gemm family on the cpu backend: sgemm, sgemm-kahan, sgemm-dcs (families/gemm/gemm_serial.hpp, after
// Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs",
// 2011, Figs. 1-3) and OpenBLAS cblas_sgemm on one thread as the baseline; the dgemm family's
// dgemm (the plain definition in double) and cblas_dgemm on one thread as its baseline.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "families/gemm/gemm_host.hpp"
#include "families/gemm/gemm_serial.hpp"
#include "families/gemm/gemm_params.hpp"

namespace accsum::gemm {

namespace {

class HostGemmKernel : public Kernel {
 public:
  HostGemmKernel(const Problem& p, HostGemmSpec s) : p_(p), s_(s), out_(static_cast<size_t>(p.rows * p.cols)) {}
  void execute() override { host_gemm_columns(p_, s_, out_.data(), 0, p_.cols); }
  Result result() override { return Result{std::vector<double>(out_.begin(), out_.end()), {}, {}}; }

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

// dgemm: every entry plain_dot then finish, in double (families/gemm/gemm_serial.hpp).
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
  Result result() override { return Result{out_, {}, {}}; }

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
Registrar reg_openblas(AlgoEntry("gemm", "openblas-sgemm", "cpu", "OpenBLAS cblas_sgemm on one thread (baseline)")
                           .baseline()
                           .maker([](const Problem& p, const Params&) { return make_openblas(p, 1); }));
Registrar reg_openblas_d(AlgoEntry("dgemm", "openblas-dgemm", "cpu", "OpenBLAS cblas_dgemm on one thread (baseline)")
                             .baseline()
                             .maker([](const Problem& p, const Params&) { return make_openblas_dgemm(p, 1); }));
}  // namespace

#endif

}  // namespace accsum::gemm
