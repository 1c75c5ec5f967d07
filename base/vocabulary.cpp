#include "base/vocabulary.hpp"

#include <atomic>

namespace accsum {

long long param_int(const Params& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) throw std::logic_error("parameter not resolved: " + name);
  return std::stoll(it->second);
}

const std::string& param_str(const Params& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) throw std::logic_error("parameter not resolved: " + name);
  return it->second;
}

uint64_t next_dataset_id() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

}  // namespace accsum
