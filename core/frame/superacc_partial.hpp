#pragma once
// Backends that can hand back an exact, unrounded superaccumulator of a slice of the data
// register a factory here; the mpi backend composes them (its `inner` parameter): each rank
// accumulates its slice with the inner backend, then the superaccumulators are merged with
// MPI's own reduction and rounded once. Host-only.
//
// A backend registers with a file-scope
//   static accsum::SuperaccPartialRegistrar reg("cuda", [](const Problem& slice, const Params& p) {...});
// where p holds the mpi entry's resolved parameters (fpe, early_exit, threads, ...; use defaults
// for anything else) and slice.x / slice.y point into host memory (or, for a factory registered
// with makes_own_data, slice.generated describes them).
#include <functional>
#include <memory>
#include <string>

#include "core/frame/registry.hpp"
#include "core/numerics/superacc.hpp"

namespace accsum {

class SuperaccPartial {
 public:
  virtual ~SuperaccPartial() = default;
  // Adds the slice's exact sum (family sum) or exact dot (family dot) to acc, unrounded.
  virtual void accumulate_sum(Superacc& acc) = 0;
  virtual void accumulate_dot(SuperaccDot& acc) = 0;
};

using SuperaccPartialFactory = std::function<std::unique_ptr<SuperaccPartial>(const Problem&, const Params&)>;

// makes_own_data: the factory accepts a slice described by a recipe (Problem::generated) and
// makes its elements where it computes; other factories get slices in host memory.
void register_superacc_partial(const std::string& backend, bool makes_own_data, SuperaccPartialFactory make);
// Null when `backend` registered none.
SuperaccPartialFactory find_superacc_partial(const std::string& backend);
bool superacc_partial_makes_own_data(const std::string& backend);

struct SuperaccPartialRegistrar {
  SuperaccPartialRegistrar(const std::string& backend, SuperaccPartialFactory make) {
    register_superacc_partial(backend, false, std::move(make));
  }
  SuperaccPartialRegistrar(const std::string& backend, bool makes_own_data, SuperaccPartialFactory make) {
    register_superacc_partial(backend, makes_own_data, std::move(make));
  }
};

}  // namespace accsum
