// dpsumk / dpdotk on one core: the serial definitions of families/sum_dot/dpsum.hpp, both variants. The
// parallel backends compute the same bits (same tree, same lanes) and are tested against these.
#include <functional>
#include <memory>

#include "families/sum_dot/dpsum.hpp"
#include "core/frame/registry.hpp"

namespace accsum {
namespace {

std::unique_ptr<Kernel> make_sum(const Problem& pb, const Params& p) {
  const double* x = pb.x;
  int64_t n = pb.n;
  int K = dp_K(p);
  if (dp_variant(p) == DpVariant::tree) return std::make_unique<SerialKernel>([=] { return dpsumk_tree(x, n, K); });
  return std::make_unique<SerialKernel>([=] { return dpsumk_fused(x, n, K); });
}

std::unique_ptr<Kernel> make_dot(const Problem& pb, const Params& p) {
  const double *x = pb.x, *y = pb.y;
  int64_t n = pb.n;
  int K = dp_K(p);
  bool dekker = dp_dekker(p);
  if (dp_variant(p) == DpVariant::tree)
    return std::make_unique<SerialKernel>([=] { return dpdotk_tree(x, y, n, K, dekker); });
  return std::make_unique<SerialKernel>([=] { return dpdotk_fused(x, y, n, K, dekker); });
}

Registrar reg_sum(dp_entry(false, "cpu",
                           "DPSumK (Suzuki; Ogita-Rump-Oishi): fused: K-fold, first-order u|s|; tree: TwoSum tree "
                           "passes, first-order gamma_{ceil(log2 n)}|s|")
                      .maker(make_sum));
Registrar reg_dot(dp_entry(true, "cpu",
                           "DPDotK (Suzuki; Ogita-Rump-Oishi): fused: K-fold, first-order u|s|; tree: TwoSum tree "
                           "passes, first-order gamma_{ceil(log2 n)}|s|")
                      .maker(make_dot));

}  // namespace
}  // namespace accsum
