// `superacc` and `superacc-dot` on the cpu backend: the host kernels of families/sum_dot/superacc_host.cpp on one
// core (Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel reduction on multi- and
// many-core architectures", 2015), one accumulator, one slice (the whole input), one rounding.
#include <memory>
#include <string>
#include <vector>

#include "families/sum_dot/superacc_host.hpp"
#include "families/sum_dot/superacc_state.hpp"

namespace accsum::cpu {
namespace {

// The cpu backend's registrations: one accumulator, one slice (the whole input), one rounding.
template <bool DOT>
void accumulate(const Problem& p, const SuperaccConfig& c, SuperaccOf<DOT>& acc, double* bound = nullptr) {
  if constexpr (DOT)
    superacc_dot_accumulate(p.x, p.y, p.n, c, acc, bound);
  else
    superacc_sum_accumulate(p.x, p.n, c, acc, bound);
}

template <bool DOT>
class SuperaccKernel : public ScalarKernel {
 public:
  SuperaccKernel(const Problem& p, const Params& q) : p_(p), c_(superacc_config(q)), bounded_(superacc_bounded(q)) {}
  // Within a bound first; exactly when the bound leaves the rounding open (rare but for ill-conditioned data).
  double run() override {
    return round_bounded_then_exact<SuperaccOf<DOT>>(
        bounded_, [&](SuperaccOf<DOT>& acc, double* bound) { accumulate<DOT>(p_, c_, acc, bound); });
  }

 private:
  Problem p_;
  SuperaccConfig c_;
  bool bounded_;
};

// The mergeable state (families/sum_dot/superacc_state.hpp): this core adds a slice to the
// superaccumulator; threads (cpu-mt) and MPI ranks (mpi, its inner "cpu") merge the states.
template <bool DOT>
std::unique_ptr<MergeableState> superacc_state(const Params& q) {
  return std::make_unique<SuperaccState<SuperaccOf<DOT>>>(
      [c = superacc_config(q)](const Problem& s, SuperaccOf<DOT>& acc) { accumulate<DOT>(s, c, acc); });
}

// Defaults: the fastest configuration measured on one core (n = 2^26, log-uniform, range 1e50).
template <bool DOT>
AlgoEntry superacc_cpu(const std::string& summary) {
  std::vector<ParamSpec> ps = superacc_params(0, 0);
  ps.push_back(superacc_bounded_param());
  return superacc_entry(DOT, "cpu", summary, ps, make_kernel_of<SuperaccKernel<DOT>>).mergeable(superacc_state<DOT>);
}

Registrar reg_sum(
    superacc_cpu<false>("correctly rounded sum: FP expansion + exponent-indexed chunks + superaccumulator"));
Registrar reg_dot(superacc_cpu<true>("correctly rounded dot: exact products (TwoProductFMA) into a superaccumulator"));

}  // namespace
}  // namespace accsum::cpu
