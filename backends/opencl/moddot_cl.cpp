// moddot on OpenCL: the round-to-nearest variants of the lambda- and (alpha, beta, gamma,
// delta)-algorithms of Jean, Graillat (SYNASC 2010), whose splitting bounds are derived in
// families/moddot/moddot.hpp (OpenCL C has no rounding-mode control, so the paper's round-toward-zero
// versions cannot run here); the kernels are backends/opencl/kernels/moddot.cl (abgd blocks:
// default 2^26, the paper's one-pass limit). Residue arithmetic is exact: the same bits as cpu
// for any launch shape.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "families/moddot/moddot.hpp"
#include "core/numerics/modp.h"
#include "datasets/residues.hpp"

namespace accsum::opencl {
namespace {

// backends/opencl/kernels/moddot.cl, embedded by cmake/embed_opencl.cmake.
const char* kModdotSource =
#include "opencl/moddot.cl.inc"
    ;

// The kernels take the modulus struct by value: its layout must be the device's (five doubles
// and a 64-bit integer, no padding).
static_assert(sizeof(accsum_modp) == 6 * 8, "accsum_modp is a kernel argument");

class ModdotCl : public ClKernel {
 public:
  ModdotCl(const Problem& pr, bool lambda, int64_t groups_param, int64_t block)
      : ClKernel(pr), lambda_(lambda), p_(prime_of(pr.data)), block_(block) {
    ls_ = 256;
    while (ls_ > 1 && ls_ > context().max_work_group) ls_ /= 2;
    const int64_t want = groups_param > 0 ? groups_param : static_cast<int64_t>(context().compute_units) * 8;
    groups_ = std::max<int64_t>(1, std::min<int64_t>(want, (pr.n + ls_ - 1) / static_cast<int64_t>(ls_)));
    out_ = Buffer(groups_ * sizeof(double));
    kernel_ = make_kernel(program(kModdotSource), lambda ? "moddot_lambda" : "moddot_abgd");
  }
  ~ModdotCl() override {
    if (kernel_) clReleaseKernel(kernel_);
  }
  double run() override {
    const accsum_modp m = accsum_modp_init(p_);
    cl_mem x = in_->x.get(), y = in_->y.get(), out = out_.get();
    cl_long n = in_->n;
    const LocalBytes partials{ls_ * sizeof(double)};
    if (lambda_)
      set_args(kernel_, x, y, n, m, out, partials);
    else
      set_args(kernel_, x, y, n, m, static_cast<cl_long>(block_), out, partials);
    size_t global = groups_ * ls_, local = ls_;
    cl_event ev = nullptr;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, kernel_, 1, nullptr, &global, &local, 0, nullptr, &ev));
    std::vector<double> part(groups_);
    out_.read(part.data(), part.size() * sizeof(double));  // blocking: waits for the kernel
    double r = 0;
    for (double v : part) r = accsum_modp_add(r, v, m);
    last_ = event_span_seconds(ev, ev);
    clReleaseEvent(ev);
    return r;
  }

 private:
  bool lambda_;
  uint64_t p_;
  int64_t block_;
  size_t ls_ = 256;
  int64_t groups_ = 1;
  Buffer out_;
  cl_kernel kernel_ = nullptr;
};

ParamSpec rn_only() {
  return ParamSpec{
      "rounding", "rn only: OpenCL has no rounding-mode control (our round-to-nearest variant)", false, 0, 0, {"rn"},
      "rn"};
}
ParamSpec groups_param() {
  return ParamSpec{"groups", "work-groups (0 = 8 per compute unit)", true, 0, 1 << 20, {}, "0"};
}
std::vector<Params> group_variants(const Params& p) { return variants_of(p, "groups", {"1", "3", "64"}); }

Registrar reg_lambda(
    AlgoEntry("moddot", "moddot-lambda", "opencl",
              "lambda-algorithm, round-to-nearest variant (Jean-Graillat Thm. 3; bounds in families/moddot/moddot.hpp)")
        .promises(Guarantee::exact)
        .promises_reproducible()
        .with_params({rn_only(), groups_param()})
        .shapes(group_variants)
        .maker([](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
          return std::make_unique<ModdotCl>(pr, true, param_int(prm, "groups"), 0);
        }));

Registrar reg_abgd(AlgoEntry("moddot", "moddot-abgd", "opencl",
                             "(alpha,beta,gamma,delta)-algorithm, round-to-nearest variant, blocks of 2^26 (--block) "
                             "per work-item (baseline)")
                       .promises(Guarantee::exact)
                       .promises_reproducible()
                       .baseline()
                       .with_params({rn_only(), groups_param(), moddot::block_param()})
                       .shapes(group_variants)
                       .maker([](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
                         return std::make_unique<ModdotCl>(pr, false, param_int(prm, "groups"),
                                                           param_int(prm, "block"));
                       }));

}  // namespace
}  // namespace accsum::opencl
