#include "families/gemm/openblas_limits.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/limits.hpp"

#if defined(ACCSUM_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace accsum::openblas {

namespace {
// One thread's buffer: OpenBLAS 0.3.21 on x86-64 asks malloc for 134221824 bytes (BUFFER_SIZE,
// 128 MiB, and a page), seen in gdb in blas_memory_alloc under `ulimit -v`.
constexpr double kBufferBytes = 134221824.0;

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / (1 << 20));
  return buf;
}
}  // namespace

void start_within_memory_limits(char** argv) {
#if defined(ACCSUM_HAVE_OPENBLAS)
  if (std::getenv("OPENBLAS_NUM_THREADS") || std::isinf(rlimit_headroom_bytes()) || openblas_get_num_threads() <= 1)
    return;
  ::setenv("OPENBLAS_NUM_THREADS", "1", 1);
  ::execv("/proc/self/exe", argv);
  ::unsetenv("OPENBLAS_NUM_THREADS");  // not executed again: go on as started
#else
  (void)argv;
#endif
}

void require_room(int threads) {
  static int judged = 0;  // threads whose buffers were found room for
  if (threads <= judged) return;
  const double need = (threads - judged) * kBufferBytes, room = rlimit_headroom_bytes();
  if (room < need)
    throw UsageError("OpenBLAS needs about " + mib(need) + " of address space for the buffers of " +
                     std::to_string(threads) + " thread(s), but the process limits (ulimit -v, ulimit -d) leave " +
                     mib(room) + " (raise them, or use fewer threads)");
  judged = threads;
}

}  // namespace accsum::openblas
