#pragma once
// Static-chunk threading for the host backends (cpu-mt, and mpi's threads parameter): thread t always
// gets the same contiguous slice [begin, end) for a given (n, threads), so per-thread results are
// deterministic.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/limits.hpp"
#include "core/frame/registry.hpp"

namespace accsum {

// Threads used when the `threads` parameter is 0: ACCSUM_THREADS, else the hardware count.
int default_threads();

// Calls fn(t, begin, end) for t = 0..threads-1 on `threads` threads (t = 0 on the caller).
template <class Fn>
void parallel_chunks(int64_t n, int threads, Fn fn) {
  threads = std::max(1, threads);
  auto range = [&](int t, int64_t& b, int64_t& e) {
    b = n * t / threads;
    e = n * (t + 1) / threads;
  };
  run_threads(threads, [&](int t) {  // base/limits.hpp: never std::terminate
    int64_t b, e;
    range(t, b, e);
    fn(t, b, e);
  });
}

// The `threads` parameter every cpu-mt algorithm takes (0 = default_threads()).
inline ParamSpec threads_param() {
  return ParamSpec{"threads", "worker threads (0 = all hardware threads or $ACCSUM_THREADS)", true, 0, 1024, {}, "0"};
}
inline int threads_of(const Params& p) {
  long long t = param_int(p, "threads");
  return t == 0 ? default_threads() : static_cast<int>(t);
}
// Thread counts to compare for reproducibility: 1, 2, 3 and the default.
std::vector<Params> thread_variants(const Params& p);

}  // namespace accsum
