#pragma once
// The mergeable state (core/frame/mergeable.hpp) of the superaccumulator algorithms on every
// backend: a Superacc or SuperaccDot, whose digits merge by integer addition, exactly (Collange,
// Defour, Graillat, Iakymchuk 2015). The backend says how a slice is added (its own kernel); the
// mpi backend then sums each rank's slice with any backend's state (its `inner`) and reduces the
// serialised accumulators with MPI_Allreduce. Host-only.
#include <cstdint>
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

// The choice of the kernels that have a bounded pass: 1 accumulates within a proven bound first
// and exactly only where the bound leaves the rounding open; 0 accumulates exactly at once; auto
// (the default) lets the backend choose by size (bounded_pass_first). All give the same bits.
inline ParamSpec superacc_bounded_param() {
  return ParamSpec{"bounded",
                   "accumulate within a proven bound first and exactly only where it leaves the rounding open (1), "
                   "exactly at once (0), or as the backend chooses by size (auto)",
                   false,
                   0,
                   0,
                   {"auto", "0", "1"},
                   "auto",
                   true};  // verify sweeps every choice: they take different arithmetic to the same bits
}
enum class BoundedMode { automatic, off, on };
inline BoundedMode superacc_bounded_mode(const Params& p) {
  const std::string& v = p.at("bounded");
  return v == "auto" ? BoundedMode::automatic : v == "1" ? BoundedMode::on : BoundedMode::off;
}

// Whether a device kernel runs the bounded pass first for `bytes` of input (every vector it reads)
// on a device whose L2 cache holds `l2_bytes`. Where the bound does not decide, the exact pass reads
// the data again: only where the input fits in L2 with room to spare does that second read come from
// L2, not from device memory. Larger inputs are accumulated exactly at once, so that the worst case
// over the data (an ill-conditioned sum) costs one read, as the best case does.
constexpr int64_t kBoundedL2Divisor = 2;  // the input may fill at most this fraction of L2
inline bool bounded_pass_first(BoundedMode mode, int64_t bytes, int64_t l2_bytes) {
  if (mode != BoundedMode::automatic) return mode == BoundedMode::on;
  return bytes <= l2_bytes / kBoundedL2Divisor;
}
// The same choice where there is no cache to fill (a CPU's exact pass is several times slower than
// its bounded one, so a second read costs little beside it): the bounded pass first unless told 0.
inline bool superacc_bounded(const Params& p) { return superacc_bounded_mode(p) != BoundedMode::off; }

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
