// cpu-mt: threads (std::thread, static chunks) + SIMD through the compiler's vectoriser.
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/frame/parallel.hpp"
#include "core/numerics/eft.hpp"

namespace accsum::cpu_mt {
namespace {
Registrar reg_cpu_mt(BackendInfo{
    "cpu-mt", "threads + SIMD on all cores", [] { return true; },
    [] {
      std::atomic<bool> ok{true};
      parallel_chunks(default_threads(), default_threads(), [&](int, int64_t, int64_t) {
        if (!eft_self_test()) ok = false;
      });
      return ok.load();
    },
    [] {
      return std::to_string(default_threads()) + " threads";
    }}.ranked_for_best(1));
}  // namespace

}  // namespace accsum::cpu_mt
