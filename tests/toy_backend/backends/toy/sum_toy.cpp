// The toy backend's one algorithm: the recursive sum of families/sum_dot/sum_serial.hpp, registered
// on the backend "toy" (an algorithm already defined: a backend adds kernels, not definitions).
#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_serial.hpp"

namespace accsum {
namespace {

Registrar reg_naive_toy(AlgoEntry("sum", "naive", "toy", "recursive summation on the toy backend")
                            .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                              return std::make_unique<SerialKernel>([x = p.x, n = p.n] { return sum_naive(x, n); });
                            }));

}  // namespace
}  // namespace accsum
