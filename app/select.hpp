#pragma once
// Turns --algo/--backend/parameter lists into registry entries and parameter sets; shared by
// bench, verify and table so all three read the one registry the same way.
#include <map>
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"

namespace accsum::cli {

struct Selection {
  const AlgoEntry* entry;
  std::vector<Params> param_sets;  // resolved (defaults filled, validated)
};

// Parameter lists from the CLI: name -> "2,3,4".
using ParamLists = std::map<std::string, std::string>;

// algos: "all" or a comma list; backends: "" (best available per algorithm), "all" (every
// available one) or a comma list. Throws UsageError for unknown names, a backend missing here,
// an explicit algorithm missing on an explicit backend, or a parameter no selected algorithm has.
std::vector<Selection> select(const std::string& algos, const std::string& backends, const ParamLists& params,
                              bool add_baselines);

// Every family by its descriptor's listing_rank, then registration order: the order `list`
// shows them and bench runs them in.
std::vector<const FamilyDescriptor*> families_in_listing_order();

// The backends the selection uses, in registry order.
std::vector<std::string> backends_of(const std::vector<Selection>& sel);

}  // namespace accsum::cli
