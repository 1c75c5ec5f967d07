// The datasets a command's data options ask for (app/commands.hpp specs_of): shared by bench
// and gen, and linked by the CLI fuzzer, which checks the same values without generating.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "app/output.hpp"
#include "app/parse.hpp"

namespace accsum::cli {

namespace {
// An ill-conditioned generator may fall short of the requested condition number (Ogita, Rump,
// Oishi's GenSum/GenDot reach about 1e16 per halving of the exponent range: a few elements cannot
// reach 1e300). A result off by more than this factor either way is said on stderr.
constexpr double kCondMissFactor = 100;
}  // namespace

void warn_if_cond_missed(const GenSpec& spec, double achieved) {
  auto it = spec.options.find("cond");
  if (it == spec.options.end()) return;
  const double wanted = std::strtod(it->second.c_str(), nullptr);
  if (!(wanted > 0) || !std::isfinite(wanted)) return;
  if (std::isfinite(achieved) && achieved > 0 && achieved * kCondMissFactor >= wanted &&
      achieved <= wanted * kCondMissFactor)
    return;
  std::fprintf(stderr,
               "accsum: warning: requested condition number %s, achieved %.3g (more than %gx off; a larger --n or a "
               "smaller --cond gets closer)\n",
               printable(it->second).c_str(), achieved, kCondMissFactor);
}

bool option_for_files(const std::string& name) {
  for (auto& f : families()) {
    const DataOption* o = find_option(f, name);
    if (o && o->for_files) return true;
  }
  return false;
}

namespace {

// --n=small: a size every family accepts and measures in milliseconds on one core, for a quick
// check of the whole registry (docs/compare.md's CI recipe runs `--algo=all --n=small`).
const std::map<std::string, std::string> kSmallSizes{{"sum", "2^16"}, {"dot", "2^16"}, {"fpe", "2^12"},
                                                     {"gemm", "64"},  {"dgemm", "64"}, {"moddot", "2^16"}};

std::string sizes_for(const DataArgs& d, const FamilyDescriptor& f) {
  if (d.n == kSmallSizesKeyword) {
    auto it = kSmallSizes.find(f.name);
    if (it == kSmallSizes.end()) throw std::logic_error("no --n=small size for the " + f.name + " family");
    return it->second;
  }
  return !d.n.empty() ? d.n : !f.default_n.empty() ? f.default_n : std::string("2^24");
}

// --dist as given (a comma list sweeps, for every family), or the one a data option implies, or
// the family's first.
std::vector<std::string> pick_dists(const DataArgs& d, const FamilyDescriptor& f) {
  if (!d.dist.empty()) return split_list(d.dist);
  for (auto& [name, value] : d.options)
    if (auto* o = find_option(f, name); o && !o->implies_dist.empty()) return {o->implies_dist};
  return {f.dists.front()};
}

}  // namespace

std::vector<GenSpec> specs_of(const DataArgs& d, const FamilyDescriptor& f) {
  std::vector<GenSpec> out;
  for (const std::string& dist : pick_dists(d, f)) {
    // Every data option this family has, as a list; the sweep is their product.
    std::vector<Params> combos{Params{}};
    for (auto& [name, list] : d.options) {
      const DataOption* o = find_option(f, name);
      if (!o) continue;  // another family's option
      if (!o->dists.empty() && std::find(o->dists.begin(), o->dists.end(), dist) == o->dists.end())
        throw UsageError("--" + name + " applies to --dist=" + fmt::format("{}", fmt::join(o->dists, "|")) + " only");
      std::vector<Params> next;
      for (auto& base : combos)
        for (auto& v : o->sweeps ? split_list(list) : std::vector<std::string>{list}) {
          Params p = base;
          p[name] = v;
          next.push_back(p);
        }
      combos = next;
    }
    for (int64_t n : parse_sizes(sizes_for(d, f)))
      for (auto& opts : combos) {
        GenSpec s;
        s.dist = dist;
        s.family = f.name;
        s.n = n;
        s.seed = d.seed;
        s.options = opts;
        out.push_back(s);
      }
  }
  return out;
}

}  // namespace accsum::cli
