// The threads parameter of the host backends (core/frame/parallel.hpp).
#include "core/frame/parallel.hpp"

#include <string>

namespace accsum {

int default_threads() { return default_thread_count(); }  // base/limits.hpp

std::vector<Params> thread_variants(const Params& p) {
  return variants_of(p, "threads", {"1", "2", "3", std::to_string(default_threads())});
}

}  // namespace accsum
