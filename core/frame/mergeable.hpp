#pragma once
// Mergeable partial state: an algorithm whose work splits into slices registers a factory of
// states (init), each of which accumulates slices, merges with another state of the same
// parameters, serialises to bytes (for MPI) and finalizes into the result. Composers build
// whole algorithms from it: threads (cpu-mt) and ranks (mpi) each accumulate a slice, then the
// states are merged in a fixed order (slice order), so the bits do not depend on scheduling.
// Examples: a superaccumulator (digits add exactly), residues mod p (merge by addition mod p),
// FP expansions (merge by renormalising the concatenation).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/frame/registry.hpp"

namespace accsum {

class MergeableState {
 public:
  virtual ~MergeableState() = default;
  // Adds the slice (a Problem over a sub-range; see Problem::vector_slice) to the state.
  virtual void accumulate(const Problem& slice) = 0;
  // Adds other's slices (other was made by the same factory with the same parameters).
  virtual void merge(const MergeableState& other) = 0;
  virtual Result finalize() const = 0;
  virtual std::vector<unsigned char> serialize() const = 0;
  // Replaces this state by one serialize()d by a state of the same factory and parameters.
  virtual void deserialize(const std::vector<unsigned char>& bytes) = 0;
};

// For trivially copyable states: serialise by bytes.
template <class Derived, class Pod>
class PodState : public MergeableState {
 public:
  std::vector<unsigned char> serialize() const override {
    const auto* p = reinterpret_cast<const unsigned char*>(&pod_);
    return std::vector<unsigned char>(p, p + sizeof(Pod));
  }
  void deserialize(const std::vector<unsigned char>& b) override {
    if (b.size() != sizeof(Pod)) throw std::logic_error("mergeable state: wrong serialised size");
    std::copy(b.begin(), b.end(), reinterpret_cast<unsigned char*>(&pod_));
  }
  void merge(const MergeableState& o) override { merge_pod(static_cast<const Derived&>(o).pod_); }

 protected:
  virtual void merge_pod(const Pod& other) = 0;
  Pod pod_{};
};

// Accumulates the n elements of p in `slices` contiguous slices on as many threads, merges the
// states in slice order and returns the final state (a cpu-mt composition).
std::unique_ptr<MergeableState> compose_slices(const MergeableFactory& make, const Params& params, const Problem& p,
                                               int slices);

}  // namespace accsum
