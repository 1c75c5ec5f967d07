#pragma once
// Static-chunk threads for generating and shuffling data (internal to datasets/): chunk t is
// always [n t / T, n (t + 1) / T), and every element is a pure function of its index, so the
// result does not depend on the thread count.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace accsum::datasets_detail {

// ACCSUM_THREADS when set (> 0), else the hardware thread count.
inline int dataset_threads() {
  if (const char* s = std::getenv("ACCSUM_THREADS")) {
    int t = std::atoi(s);
    if (t > 0) return t;
  }
  unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h);
}

// fn(begin, end) over [0, n) on up to dataset_threads() threads, at least 64 Ki elements each
// (small jobs stay on the caller). fn must not throw.
template <class Fn>
void parallel_chunks(int64_t n, Fn fn) {
  const int64_t min_chunk = 1 << 16;
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(dataset_threads(), n / min_chunk)));
  auto work = [&](int t) { fn(n * t / threads, n * (t + 1) / threads); };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
}

}  // namespace accsum::datasets_detail
