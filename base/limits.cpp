#include "base/limits.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

namespace accsum {

namespace {

// A "Key: value kB" line of a /proc file, in bytes, or -1.
double proc_kib_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0) {
      char* end = nullptr;
      const double kib = std::strtod(line.c_str() + key.size(), &end);
      return end == line.c_str() + key.size() ? -1 : kib * 1024.0;
    }
  return -1;
}

// A cgroup file holding one number (or "max"): the number, +inf for "max", -1 when unreadable.
double cgroup_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return -1;
  if (word == "max") return INFINITY;
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  return *end == '\0' ? v : -1;
}

}  // namespace

double rlimit_headroom_bytes() {
  double least = INFINITY;
  const std::pair<int, const char*> limits[] = {{RLIMIT_AS, "VmSize:"}, {RLIMIT_DATA, "VmData:"}};
  for (auto& [resource, field] : limits) {
    struct rlimit rl;
    if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
    const double used = std::max(proc_kib_field("/proc/self/status", field), 0.0);
    least = std::min(least, std::max(static_cast<double>(rl.rlim_cur) - used, 0.0));
  }
  return least;
}

double cgroup_headroom_bytes(const std::string& self_cgroup, const std::string& cgroup_root) {
  std::ifstream self(self_cgroup);
  std::string line;
  double least = INFINITY;
  while (std::getline(self, line)) {
    // "0::/path" (v2), or "N:memory:/path" (v1, the memory controller).
    const size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1);
    const bool v2 = controllers.empty();
    if (!v2 && controllers.find("memory") == std::string::npos) continue;
    std::string path = line.substr(c2 + 1);
    const std::string root = v2 ? cgroup_root : cgroup_root + "/memory";
    while (true) {
      const std::string dir = root + (path == "/" ? "" : path);
      const double limit = cgroup_number(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
      const double used = cgroup_number(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
      if (limit >= 0 && std::isfinite(limit) && used >= 0) least = std::min(least, std::max(limit - used, 0.0));
      if (path.empty() || path == "/") break;
      const size_t slash = path.find_last_of('/');
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
  }
  return least;
}

double memory_available_bytes() {
  double least = proc_kib_field("/proc/meminfo", "MemAvailable:");
  if (least < 0) least = INFINITY;
  least = std::min({least, rlimit_headroom_bytes(), cgroup_headroom_bytes("/proc/self/cgroup", "/sys/fs/cgroup")});
  return std::isfinite(least) ? least : -1;
}

int threads_from_env() {
  const char* s = std::getenv("ACCSUM_THREADS");
  if (!s) return 0;
  if (!*s)
    throw UsageError("ACCSUM_THREADS is set but empty (unset it, or give a thread count in [1, " +
                     std::to_string(kMaxThreads) + "])");
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE || v < 1 || v > kMaxThreads)
    throw UsageError("ACCSUM_THREADS=" + std::string(s).substr(0, 40) + " is not a thread count in [1, " +
                     std::to_string(kMaxThreads) + "]");
  return static_cast<int>(v);
}

int default_thread_count() {
  if (int t = threads_from_env()) return t;
  unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h);
}

}  // namespace accsum
