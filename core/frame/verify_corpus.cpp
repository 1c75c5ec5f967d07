#include "core/frame/verify_corpus.hpp"

#include <fmt/format.h>

namespace accsum {

std::string case_label(const VerifyCase& c, int64_t n, int seed) {
  std::string s = fmt::format("{} n={} seed={}", c.dist, n, seed);
  for (auto& [k, v] : c.options) s += " " + k + "=" + v;
  return s;
}

std::optional<Dataset> verify_dataset(const FamilyDescriptor& f, const VerifyCase& c, int64_t n, int seed) {
  if (n == 0) {
    Dataset d;
    d.family = f.name;
    d.generator = "empty";
    d.id = next_dataset_id();
    return d;
  }
  try {
    return f.generate(GenSpec{c.dist, f.name, n, static_cast<uint64_t>(seed), 1e16, 1e16, c.options});
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

}  // namespace accsum
