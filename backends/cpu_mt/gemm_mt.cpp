// The gemm family on cpu-mt: the cpu backend's blocked kernels (families/gemm/gemm_host.hpp) with
// static chunks of column blocks per thread. Every entry is computed by one thread with the
// serial definition's operations, so the result is bit for bit the cpu one for any thread count.
// Baseline: OpenBLAS cblas_sgemm with the same thread count.
#include <memory>
#include <vector>

#include "families/gemm/gemm_host.hpp"
#include "core/frame/parallel.hpp"
#include "families/gemm/gemm_params.hpp"
#include "families/gemm/gemm_serial.hpp"

namespace accsum::gemm {

namespace {

class MtGemmKernel : public Kernel {
 public:
  MtGemmKernel(const Problem& p, HostGemmSpec s, int threads)
      : p_(p), s_(s), threads_(threads), out_(static_cast<size_t>(p.rows * p.cols)) {}
  void execute() override {
    const int64_t blocks = (p_.cols + kHostColumnBlock - 1) / kHostColumnBlock;
    const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads_, blocks)));
    parallel_chunks(blocks, threads, [&](int, int64_t b, int64_t e) {
      if (b < e) host_gemm_columns(p_, s_, out_.data(), b * kHostColumnBlock, std::min(p_.cols, e * kHostColumnBlock));
    });
  }
  Result result() override { return Result{std::vector<double>(out_.begin(), out_.end()), {}, {}}; }

 private:
  Problem p_;
  HostGemmSpec s_;
  int threads_;
  std::vector<float> out_;
};

template <int COMP>
std::unique_ptr<Kernel> make_mt(const Problem& p, const Params& prm) {
  return std::make_unique<MtGemmKernel>(p, host_spec(p, COMP, prm), threads_of(prm));
}

Registrar reg_sgemm(AlgoEntry("gemm", "sgemm", "cpu-mt", "float GEMM, products summed plainly (threads over columns)")
                        .promises_reproducible()
                        .with_params({fma_param(), threads_param()})
                        .maker(make_mt<kNone>)
                        .shapes(thread_variants));
Registrar reg_kahan(AlgoEntry("gemm", "sgemm-kahan", "cpu-mt", "selective Kahan SGEMM (threads over columns)")
                        .promises_reproducible()
                        .with_params({tile_param(), fma_param(), threads_param()})
                        .maker(make_mt<kKahan>)
                        .shapes(thread_variants));
Registrar reg_dcs(AlgoEntry("gemm", "sgemm-dcs", "cpu-mt", "selective doubly compensated SGEMM (threads over columns)")
                      .promises_reproducible()
                      .with_params({tile_param(), fma_param(), threads_param()})
                      .maker(make_mt<kDcs>)
                      .shapes(thread_variants));
#if defined(ACCSUM_HAVE_OPENBLAS)
Registrar reg_openblas(AlgoEntry("gemm", "openblas-sgemm", "cpu-mt", "OpenBLAS cblas_sgemm, threaded (baseline)")
                           .baseline()
                           .with_params({threads_param()})
                           .maker([](const Problem& p, const Params& prm) {
                             return make_openblas(p, threads_of(prm));
                           }));
#endif

}  // namespace
}  // namespace accsum::gemm
