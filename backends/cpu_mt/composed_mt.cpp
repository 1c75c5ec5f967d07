// cpu-mt versions of every cpu algorithm that has a mergeable state (core/frame/mergeable.hpp): the
// input is cut into one contiguous slice per thread, each thread accumulates its slice, and the
// states merge in slice order. Algorithms with a hand-written cpu-mt kernel replace these.
#include "core/frame/parallel.hpp"
#include "core/frame/mergeable.hpp"

namespace accsum::cpu_mt {
namespace {

class ComposedKernel : public Kernel {
 public:
  ComposedKernel(MergeableFactory make, Params params, const Problem& p)
      : make_(std::move(make)), params_(std::move(params)), p_(p), threads_(threads_of(params_)) {}
  void execute() override { state_ = compose_slices(make_, params_, p_, threads_); }
  Result result() override { return state_->finalize(); }

 private:
  MergeableFactory make_;
  Params params_;
  Problem p_;
  int threads_;
  std::unique_ptr<MergeableState> state_;
};

bool compose(const AlgoEntry& from, AlgoEntry& twin) {
  if (from.backend != "cpu" || !from.state) return false;
  twin = from;
  twin.backend = "cpu-mt";
  twin.summary = from.summary + " [threads: slices merged in order]";
  twin.params.push_back(threads_param());
  twin.is_baseline = from.is_baseline;  // the baseline of the cpu backend stays the baseline (e.g. the GMP loop)
  MergeableFactory make = from.state;
  twin.make = [make](const Problem& p, const Params& q) -> std::unique_ptr<Kernel> {
    return std::make_unique<ComposedKernel>(make, q, p);
  };
  twin.shape_variants = thread_variants;
  return true;
}

Registrar reg(Composer{compose});

}  // namespace
}  // namespace accsum::cpu_mt
