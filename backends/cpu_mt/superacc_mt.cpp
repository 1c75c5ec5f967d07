// Correctly rounded, reproducible sum and dot on all cores (Collange, Defour, Graillat, Iakymchuk 2015, levels 1-4 on a
// CPU): each thread runs the single-core kernel of families/sum_dot/superacc_host.cpp (SIMD expansions, chunk table,
// superaccumulator) on its static slice; the per-thread superaccumulators are merged (integer digit additions: exact,
// so the result does not depend on the thread count or the order) and rounded once.
#include <memory>
#include <string>
#include <vector>

#include "families/sum_dot/superacc_host.hpp"
#include "core/frame/parallel.hpp"
#include "families/sum_dot/superacc_state.hpp"

namespace accsum::cpu_mt {
namespace {

// Adds the exact value of p's data to acc, one static slice per thread; with a bound, a value within *bound of it
// (cpu::superacc_sum_accumulate).
template <class SA>
void accumulate_threads(const Problem& p, const cpu::SuperaccConfig& cfg, int threads, SA& acc,
                        double* bound = nullptr) {
  // Never more threads than terms (a thread with an empty slice is harmless, just useless).
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, p.n)));
  std::vector<SA> part(threads);
  std::vector<double> part_bound(threads, 0.0);
  parallel_chunks(p.n, threads, [&](int t, int64_t b, int64_t e) {
    part[t].clear();
    double* pb = bound ? &part_bound[t] : nullptr;
    if constexpr (SA::kDigits == Superacc::kDigits)
      cpu::superacc_sum_accumulate(p.x + b, e - b, cfg, part[t], pb);
    else
      cpu::superacc_dot_accumulate(p.x + b, p.y + b, e - b, cfg, part[t], pb);
  });
  for (int t = 0; t < threads; ++t) acc.merge(part[t]);
  // The threads' bounds carry the slack for this float sum (families/sum_dot/superacc_host.cpp, kBoundScale).
  if (bound)
    for (double b : part_bound) *bound += b;
}

template <class SA>
class SuperaccMt : public ScalarKernel {
 public:
  SuperaccMt(const Problem& p, const Params& q)
      : p_(p), cfg_(cpu::superacc_config(q)), threads_(threads_of(q)), bounded_(superacc_bounded(q)) {}
  // Within a bound first; exactly when the bound leaves the rounding open (rare but for ill-conditioned data).
  double run() override {
    return cpu::round_bounded_then_exact<SA>(
        bounded_, [&](SA& acc, double* bound) { accumulate_threads(p_, cfg_, threads_, acc, bound); });
  }

 private:
  Problem p_;
  cpu::SuperaccConfig cfg_;
  int threads_;
  bool bounded_;
};

// The mergeable state (families/sum_dot/superacc_state.hpp): all cores add a slice (an mpi rank's,
// with inner "cpu-mt").
template <class SA>
std::unique_ptr<MergeableState> superacc_state(const Params& q) {
  return std::make_unique<SuperaccState<SA>>(
      [cfg = cpu::superacc_config(q), threads = threads_of(q)](const Problem& s, SA& acc) {
        accumulate_threads(s, cfg, threads, acc);
      });
}

std::vector<ParamSpec> params() {
  // Defaults: the fastest configuration measured on 2 cores (n = 2^26, range 1e50).
  std::vector<ParamSpec> ps = {threads_param()};
  for (auto& s : cpu::superacc_params(0, 0)) ps.push_back(s);
  ps.push_back(superacc_bounded_param());
  return ps;
}

template <bool DOT>
AlgoEntry superacc_mt(const std::string& summary) {
  return superacc_entry(DOT, "cpu-mt", summary, params(), make_kernel_of<SuperaccMt<SuperaccOf<DOT>>>)
      .shapes(thread_variants)
      .mergeable(superacc_state<SuperaccOf<DOT>>);
}

Registrar reg_sum(
    superacc_mt<false>("correctly rounded sum on all cores (per-thread superaccumulators, merged exactly)"));
Registrar reg_dot(
    superacc_mt<true>("correctly rounded dot on all cores (exact products, per-thread superaccumulators)"));

}  // namespace
}  // namespace accsum::cpu_mt
