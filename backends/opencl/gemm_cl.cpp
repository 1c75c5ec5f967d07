// The gemm family on OpenCL: the tiled SGEMM with selective compensation of families/gemm/gemm_serial.hpp
// (Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs",
// 2011, Figs. 1-3), restated in OpenCL C (kernels/gemm.cl) with the definition's operations in
// the definition's order, so the result is bit for bit the cpu backend's (tests/families/test_gemm.cpp
// checks it on PoCL).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "families/gemm/gemm_params.hpp"

namespace accsum::opencl {
namespace {

// backends/opencl/kernels/gemm.cl, embedded by cmake/embed_opencl.cmake.
const char* kGemmSource =
#include "opencl/gemm.cl.inc"
    ;

class ClGemm : public Kernel {
 public:
  ClGemm(const Problem& p, int comp, int tile, bool fma) : p_(p), comp_(comp), tile_(tile), fma_(fma) {
    Context& ctx = context();
    (void)ctx;
    const size_t na = static_cast<size_t>(p.rows * p.inner), nb = static_cast<size_t>(p.inner * p.cols),
                 nc = static_cast<size_t>(p.rows * p.cols);
    a_ = Buffer(std::max<size_t>(1, na) * 4, CL_MEM_READ_ONLY);
    b_ = Buffer(std::max<size_t>(1, nb) * 4, CL_MEM_READ_ONLY);
    c_ = Buffer(std::max<size_t>(1, nc) * 4, CL_MEM_READ_ONLY);
    out_ = Buffer(std::max<size_t>(1, nc) * 4);
    if (na) a_.write(p.a, na * 4);
    if (nb) b_.write(p.b, nb * 4);
    if (nc) c_.write(p.c, nc * 4);
    kernel_ = make_kernel(program(kGemmSource), "sgemm_tiled");
  }
  ~ClGemm() override { clReleaseKernel(kernel_); }
  void execute() override {
    if (p_.rows * p_.cols == 0) return;
    const int M = static_cast<int>(p_.rows), N = static_cast<int>(p_.cols), K = static_cast<int>(p_.inner);
    const float alpha = data_float(p_.data, "alpha", 1.0f), beta = data_float(p_.data, "beta", 0.0f);
    cl_mem a = a_.get(), b = b_.get(), c = c_.get(), o = out_.get();
    const int fma = fma_ ? 1 : 0;
    set_args(kernel_, M, N, K, alpha, beta, a, b, c, o, comp_, tile_, fma);
    const size_t local[2] = {16, 16};
    const size_t global[2] = {static_cast<size_t>((M + 15) / 16 * 16), static_cast<size_t>((N + 15) / 16 * 16)};
    cl_event ev;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, kernel_, 2, nullptr, global, local, 0, nullptr, &ev));
    ACCSUM_CL_CHECK(clWaitForEvents(1, &ev));
    last_ = event_span_seconds(ev, ev);
    clReleaseEvent(ev);
  }
  Result result() override {
    std::vector<float> h(static_cast<size_t>(p_.rows * p_.cols));
    if (!h.empty()) out_.read(h.data(), h.size() * 4);
    return Result{std::vector<double>(h.begin(), h.end())};
  }
  double last_device_seconds() const override { return last_; }

 private:
  Problem p_;
  int comp_, tile_;
  bool fma_;
  Buffer a_, b_, c_, out_;
  cl_kernel kernel_{};
  double last_ = -1;
};

template <int COMP>
std::unique_ptr<Kernel> make(const Problem& p, const Params& prm) {
  const int tile = prm.count("tile") ? static_cast<int>(param_int(prm, "tile")) : 1;
  return std::make_unique<ClGemm>(p, COMP, tile, param_int(prm, "fma") != 0);
}

Registrar reg_sgemm(AlgoEntry("gemm", "sgemm", "opencl", "tiled float GEMM (16x16 work-groups), plain summation")
                        .promises_reproducible()
                        .with_params({gemm::fma_param()})
                        .maker(make<0>));
Registrar reg_kahan(AlgoEntry("gemm", "sgemm-kahan", "opencl", "tiled float GEMM, selective Kahan summation per strip")
                        .promises_reproducible()
                        .with_params({gemm::tile_param(), gemm::fma_param()})
                        .maker(make<1>));
Registrar reg_dcs(AlgoEntry("gemm", "sgemm-dcs", "opencl", "tiled float GEMM, selective doubly compensated summation")
                      .promises_reproducible()
                      .with_params({gemm::tile_param(), gemm::fma_param()})
                      .maker(make<2>));

}  // namespace
}  // namespace accsum::opencl
