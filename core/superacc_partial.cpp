#include "core/superacc_partial.hpp"

#include <map>
#include <mutex>

namespace accsum {
namespace {
std::mutex& lock() {
  static std::mutex m;
  return m;
}
std::map<std::string, SuperaccPartialFactory>& table() {  // function-local: any init order
  static std::map<std::string, SuperaccPartialFactory> t;
  return t;
}
}  // namespace

void register_superacc_partial(const std::string& backend, SuperaccPartialFactory make) {
  std::lock_guard<std::mutex> g(lock());
  table()[backend] = std::move(make);
}

SuperaccPartialFactory find_superacc_partial(const std::string& backend) {
  std::lock_guard<std::mutex> g(lock());
  auto it = table().find(backend);
  return it == table().end() ? nullptr : it->second;
}

}  // namespace accsum
