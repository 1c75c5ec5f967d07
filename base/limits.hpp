#pragma once
// Resource limits (README "Resource limits"): how many threads may be asked for, a thread pool
// that never aborts, and the memory an algorithm needs.
//
// * Thread counts: ACCSUM_THREADS and --threads must be integers in [1, kMaxThreads] (--threads
//   also 0 = default). Anything else is a UsageError (one line, exit 2), never thousands of
//   threads and a `terminate`.
// * run_threads: when the system refuses a thread (std::system_error: ulimit -u, memory), the
//   threads already started are joined and a UsageError says so; an exception thrown inside any
//   thread (std::bad_alloc included) is carried to the caller and rethrown there after every
//   thread has been joined, so main reports it as one line instead of std::terminate.
#include <cstdint>
#include <exception>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/vocabulary.hpp"

namespace accsum {

constexpr int kMaxThreads = 1024;

// ACCSUM_THREADS parsed strictly: 0 when unset; a UsageError when set but empty, or anything but
// an integer in [1, kMaxThreads].
int threads_from_env();

// ACCSUM_THREADS when set, else the hardware thread count (at least 1).
int default_thread_count();

// The memory this process may still take, in bytes: the least of MemAvailable, what the address
// space limit (RLIMIT_AS, `ulimit -v`) and the data limit (RLIMIT_DATA, `ulimit -d`) leave above
// the current virtual and data sizes, and what the memory cgroup (v2 memory.max, or v1
// memory.limit_in_bytes) leaves above its usage, for this cgroup and each one above it. -1 when
// none of them can be read (not Linux). Every memory pre-check uses it.
double memory_available_bytes();

// What the process limits alone (RLIMIT_AS, RLIMIT_DATA) leave, or +inf when unlimited.
double rlimit_headroom_bytes();

// What the memory cgroups named in `self_cgroup` (/proc/self/cgroup) leave under `cgroup_root`
// (/sys/fs/cgroup): limit - usage, the least over each cgroup and its ancestors; v2 (memory.max,
// memory.current) and v1 (memory/memory.limit_in_bytes, memory.usage_in_bytes). +inf when none
// limits the process.
double cgroup_headroom_bytes(const std::string& self_cgroup, const std::string& cgroup_root);

// fn(t) for t = 0 .. threads-1, t = 0 on the caller, the others on new threads (see above).
template <class Fn>
void run_threads(int threads, Fn&& fn) {
  if (threads < 1) threads = 1;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto guarded = [&](int t) {
    try {
      fn(t);
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::string refused;
  try {
    pool.reserve(static_cast<size_t>(threads - 1));
    for (int t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
  } catch (const std::system_error& e) {
    refused = e.what();
  } catch (const std::bad_alloc&) {
    refused = "out of memory";
  }
  if (refused.empty()) guarded(0);
  for (auto& th : pool) th.join();
  if (!refused.empty())
    throw UsageError("cannot start " + std::to_string(threads) + " threads (" + std::to_string(pool.size() + 1) +
                     " started): " + refused + "; use fewer (--threads or ACCSUM_THREADS)");
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace accsum
