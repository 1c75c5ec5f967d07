// The toy algorithm's cpu entry (docs/architecture.md, "add an algorithm", step 3): its kernel and
// its Registrar, nothing else. Compiled into the test binary only, so the tool never lists it.
#include <memory>

#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_bounds.hpp"
#include "tests/toy_algorithm/toy_reverse_serial.hpp"

namespace accsum::toy {
namespace {

Registrar reg(AlgoEntry("sum", "toy-reverse", "cpu", "recursive summation, last term first (the test suite's toy)")
                  .promises(Guarantee::bound)
                  .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                    const double* x = p.x;
                    const int64_t n = p.n;
                    return std::make_unique<SerialKernel>([x, n] { return sum_reverse(x, n); });
                  })
                  .within_domain(bounds::sum_domain)
                  .bounded_by([](const Params&, const ExactFacts& f) { return bounds::naive_sum(f.n, f.sum_abs); },
                              "gamma_{n-1} S: Higham 2002, eq. (4.4)"));

}  // namespace
}  // namespace accsum::toy
