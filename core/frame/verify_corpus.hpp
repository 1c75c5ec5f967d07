#pragma once
// The datasets `accsum verify` (and the Python package's verify corpus) run for a family: each
// verify case, size and seed, the same on every caller.
#include <cstdint>
#include <optional>
#include <string>

#include "core/frame/family.hpp"

namespace accsum {

// "dist n=N seed=S" and the case's options: names the dataset in messages and counter-examples.
std::string case_label(const VerifyCase& c, int64_t n, int seed);

// Case c of family f at size n and seed: generated, or for n = 0 the empty dataset; nullopt where
// the generator refuses n (e.g. an ill-conditioned set needs more elements than n).
std::optional<Dataset> verify_dataset(const FamilyDescriptor& f, const VerifyCase& c, int64_t n, int seed);

}  // namespace accsum
