#include "core/frame/placement.hpp"

#include <cstdlib>
#include <map>
#include <mutex>

#include "core/frame/registry.hpp"

namespace accsum::placement {
namespace {

std::mutex mu;
int local_rank = -1, local_ranks = 0;
std::string cli_device;
std::map<std::string, std::string> bound;
GatherFn gather_fn = nullptr;

// An explicit device index from --device or `env`; -1 when neither is given.
long explicit_index(const char* env, std::string& source) {
  std::string text;
  if (!cli_device.empty()) {
    text = cli_device;
    source = "--device";
  } else if (const char* e = env ? std::getenv(env) : nullptr) {
    text = e;
    source = env;
  } else {
    return -1;
  }
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || text[0] == '+' || text.size() > 6)
    throw UsageError(source + "='" + text + "' is not a device index (a non-negative integer)");
  return v;
}

}  // namespace

void set_node_local_rank(int rank, int ranks) {
  std::lock_guard<std::mutex> lock(mu);
  local_rank = rank;
  local_ranks = ranks;
}

int node_local_rank() {
  std::lock_guard<std::mutex> lock(mu);
  return local_rank;
}

void set_cli_device(const std::string& index) {
  std::lock_guard<std::mutex> lock(mu);
  cli_device = index;
}

int explicit_choice(int visible, const char* env) {
  std::lock_guard<std::mutex> lock(mu);
  std::string source;
  long want = explicit_index(env, source);
  if (want >= visible)
    throw UsageError(source + "=" + std::to_string(want) + " but only " + std::to_string(visible) +
                     " device(s) are visible (indices 0.." + std::to_string(visible - 1) + ")");
  return static_cast<int>(want);
}

int choose(int visible, const char* env) {
  int want = explicit_choice(visible, env);
  if (want >= 0) return want;
  int r = node_local_rank();
  return r >= 0 && visible > 0 ? r % visible : 0;
}

std::string rule(const char* env) {
  std::lock_guard<std::mutex> lock(mu);
  std::string source;
  if (explicit_index(env, source) >= 0) return "explicit (" + source + ")";
  if (local_rank >= 0)
    return "node-local MPI rank " + std::to_string(local_rank) + " of " + std::to_string(local_ranks) +
           " modulo the visible devices";
  return "device 0 (no --device, no " + std::string(env ? env : "override") + ", not under MPI)";
}

void record(const std::string& backend, const std::string& description) {
  std::lock_guard<std::mutex> lock(mu);
  bound[backend] = description;
}

std::string recorded(const std::string& backend) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = bound.find(backend);
  return it == bound.end() ? std::string() : it->second;
}

void set_gather(GatherFn f) {
  std::lock_guard<std::mutex> lock(mu);
  gather_fn = f;
}

std::vector<std::string> gather(const std::string& mine) {
  GatherFn f;
  {
    std::lock_guard<std::mutex> lock(mu);
    f = gather_fn;
  }
  return f ? f(mine) : std::vector<std::string>{mine};
}

}  // namespace accsum::placement
