// fpe-sum / fpe-dot on one core: the serial definitions of families/sum_dot/fpe_sum.hpp. The parallel
// backends compute the same bits (same lanes, same tree) and are tested against these.
#include <memory>

#include "families/sum_dot/fpe_sum.hpp"
#include "core/frame/registry.hpp"

namespace accsum {
namespace {

class FpeAccSerialKernel : public ScalarKernel {
 public:
  FpeAccSerialKernel(const Problem& pb, const Params& p, bool dot) : pb_(pb), R_(fpe_acc_r(p)), dot_(dot) {}
  double run() override { return fpe_acc_serial(pb_.x, dot_ ? pb_.y : nullptr, pb_.n, R_); }

 private:
  Problem pb_;
  int R_;
  bool dot_;
};

Registrar reg_sum(
    fpe_acc_entry(
        false, "cpu",
        "R-term expansion accumulator (Collange et al. 2016, Algorithm 1 + renormalisation), lanes and pairwise tree")
        .maker([](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
          return std::make_unique<FpeAccSerialKernel>(p, prm, false);
        }));
Registrar reg_dot(
    fpe_acc_entry(true, "cpu", "R-term expansion accumulator of the exact products (2MultFMA), lanes and pairwise tree")
        .maker([](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
          return std::make_unique<FpeAccSerialKernel>(p, prm, true);
        }));

}  // namespace
}  // namespace accsum
