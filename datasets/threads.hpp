#pragma once
// Static-chunk threads for generating and shuffling data (internal to datasets/): chunk t is
// always [n t / T, n (t + 1) / T), and every element is a pure function of its index, so the
// result does not depend on the thread count.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "base/limits.hpp"

namespace accsum::datasets_detail {

// ACCSUM_THREADS when set, else the hardware thread count; a bad ACCSUM_THREADS is a UsageError
// (base/limits.hpp).
inline int dataset_threads() { return default_thread_count(); }

// fn(begin, end) over [0, n) on up to dataset_threads() threads, at least 64 Ki elements each
// (small jobs stay on the caller). fn must not throw.
template <class Fn>
void parallel_chunks(int64_t n, Fn fn) {
  const int64_t min_chunk = 1 << 16;
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(dataset_threads(), n / min_chunk)));
  run_threads(threads, [&](int t) { fn(n * t / threads, n * (t + 1) / threads); });  // base/limits.hpp
}

}  // namespace accsum::datasets_detail
