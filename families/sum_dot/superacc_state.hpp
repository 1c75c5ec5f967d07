#pragma once
// The mergeable state (core/frame/mergeable.hpp) of the superaccumulator algorithms on every
// backend: a Superacc or SuperaccDot, whose digits merge by integer addition, exactly (Collange,
// Defour, Graillat, Iakymchuk 2015). The backend says how a slice is added (its own kernel); the
// mpi backend then sums each rank's slice with any backend's state (its `inner`) and reduces the
// serialised accumulators with MPI_Allreduce. Host-only.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/frame/mergeable.hpp"
#include "core/numerics/superacc.hpp"

namespace accsum {

template <class SA>
class SuperaccState : public PodState<SuperaccState<SA>, SA> {
 public:
  using AddFn = std::function<void(const Problem& slice, SA& acc)>;
  explicit SuperaccState(AddFn add) : add_(std::move(add)) { this->pod_.clear(); }
  void accumulate(const Problem& slice) override { add_(slice, this->pod_); }
  Result finalize() const override { return Result::scalar(this->pod_.round()); }

 private:
  void merge_pod(const SA& other) override { this->pod_.merge(other); }
  AddFn add_;
};

// The superaccumulator algorithm of the sum family ("superacc") or of the dot family
// ("superacc-dot") on `backend`: correctly rounded and reproducible wherever it runs, since the
// digits add exactly (Collange et al. 2015). The backend adds its launch shapes and state.
inline AlgoEntry superacc_entry(bool dot, const std::string& backend, const std::string& summary,
                                std::vector<ParamSpec> params, MakeFn make) {
  return AlgoEntry(dot ? "dot" : "sum", dot ? "superacc-dot" : "superacc", backend, summary)
      .promises(Guarantee::correctly_rounded)
      .promises_reproducible()
      .with_params(std::move(params))
      .maker(std::move(make));
}

// The choice of the kernels that have a bounded pass: 1 (default) accumulates within a proven
// bound first and exactly only where the bound leaves the rounding open; 0 accumulates exactly at
// once (faster on data known to be ill-conditioned). Both give the same bits.
inline ParamSpec superacc_bounded_param() {
  return ParamSpec{"bounded",
                   "accumulate within a proven bound first and exactly only where it leaves the rounding open (1), or "
                   "exactly at once (0)",
                   true,
                   0,
                   1,
                   {"0", "1"},
                   "1",
                   true};  // verify sweeps both: they take different arithmetic to the same bits
}
inline bool superacc_bounded(const Params& p) { return param_int(p, "bounded") != 0; }

// The kernel a device backend made for a slice, kept for the next accumulate() of the same slice
// (an mpi rank adds the same slice at every run): the device keeps its copy of the data.
template <class K>
class KeptKernel {
 public:
  K& for_slice(const Problem& s, const std::function<std::unique_ptr<K>()>& make) {
    if (!kernel_ || s.id != slice_.id || s.x != slice_.x || s.first != slice_.first || s.n != slice_.n) {
      kernel_.reset();  // its device memory first
      kernel_ = make();
      slice_ = s;
    }
    return *kernel_;
  }

 private:
  std::unique_ptr<K> kernel_;
  Problem slice_;
};

}  // namespace accsum
