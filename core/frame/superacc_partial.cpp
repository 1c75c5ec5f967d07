#include "core/frame/superacc_partial.hpp"

#include <map>
#include <mutex>

namespace accsum {
namespace {
std::mutex& lock() {
  static std::mutex m;
  return m;
}
struct Registered {
  SuperaccPartialFactory make;
  bool makes_own_data = false;
};
std::map<std::string, Registered>& table() {  // function-local: any init order
  static std::map<std::string, Registered> t;
  return t;
}
}  // namespace

void register_superacc_partial(const std::string& backend, bool makes_own_data, SuperaccPartialFactory make) {
  std::lock_guard<std::mutex> g(lock());
  table()[backend] = Registered{std::move(make), makes_own_data};
}

SuperaccPartialFactory find_superacc_partial(const std::string& backend) {
  std::lock_guard<std::mutex> g(lock());
  auto it = table().find(backend);
  return it == table().end() ? nullptr : it->second.make;
}

bool superacc_partial_makes_own_data(const std::string& backend) {
  std::lock_guard<std::mutex> g(lock());
  auto it = table().find(backend);
  return it != table().end() && it->second.makes_own_data;
}

}  // namespace accsum
