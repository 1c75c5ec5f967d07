#include "base/limits.hpp"

#include <cerrno>
#include <cstdlib>

namespace accsum {

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
