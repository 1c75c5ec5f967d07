#pragma once
// OpenBLAS under a process memory limit (ulimit -v, ulimit -d). OpenBLAS (0.3.x, pthreads) gives
// each of its threads a work buffer of about 128 MiB: its worker threads take theirs when the
// library is loaded, before main, and the caller at its first product past the small-matrix
// path. When the limit refuses one, blas_memory_alloc retries for ever, and exit() then waits
// for that thread: the run hangs with no message. These two make it an error instead.

namespace accsum::openblas {

// Under a process memory limit, with OPENBLAS_NUM_THREADS unset and worker threads started,
// executes the program again with OPENBLAS_NUM_THREADS=1 (no worker threads at load); threaded
// products start their threads when they run, after require_room. Called first in main.
void start_within_memory_limits(char** argv);

// UsageError (one line, exit 2) when the process limits leave no room for the buffers of
// `threads` OpenBLAS threads; called before OpenBLAS is given `threads`.
void require_room(int threads);

}  // namespace accsum::openblas
