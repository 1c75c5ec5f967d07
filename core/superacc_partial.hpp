#pragma once
// Backends that can hand back an exact, unrounded superaccumulator of a slice of the data
// register a factory here; the mpi backend composes them (its `inner` parameter): each rank
// accumulates its slice with the inner backend, then the superaccumulators are merged with
// MPI's own reduction and rounded once. Host-only.
//
// A backend registers with a file-scope
//   static accsum::SuperaccPartialRegistrar reg("cuda", [](const Problem& slice, const Params& p) {...});
// where p holds the mpi entry's resolved parameters (fpe, early_exit, threads, ...; use defaults
// for anything else) and slice.x / slice.y point into host memory.
#include <functional>
#include <memory>
#include <string>

#include "core/registry.hpp"
#include "core/superacc.hpp"

namespace accsum {

class SuperaccPartial {
 public:
  virtual ~SuperaccPartial() = default;
  // Adds the slice's exact sum (family sum) or exact dot (family dot) to acc, unrounded.
  virtual void accumulate_sum(Superacc& acc) = 0;
  virtual void accumulate_dot(SuperaccDot& acc) = 0;
};

using SuperaccPartialFactory = std::function<std::unique_ptr<SuperaccPartial>(const Problem&, const Params&)>;

void register_superacc_partial(const std::string& backend, SuperaccPartialFactory make);
// Null when `backend` registered none.
SuperaccPartialFactory find_superacc_partial(const std::string& backend);

struct SuperaccPartialRegistrar {
  SuperaccPartialRegistrar(const std::string& backend, SuperaccPartialFactory make) {
    register_superacc_partial(backend, std::move(make));
  }
};

}  // namespace accsum
