// A reordering of a vector dataset for reproducibility checks.
#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

#include "datasets/dataset.hpp"

namespace accsum {

// Whole blocks of 4096 elements in a random order, and each block shuffled inside (the tail
// block stays last, shuffled). Built with all cores and cache-friendly, so a 2^28-element input
// is permuted in a second, not a minute.
Dataset permuted_copy(const Dataset& d) {
  Dataset p = d;
  p.id = next_dataset_id();
  const int64_t B = 4096, full = d.n / B;
  std::vector<int64_t> order(full);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(0x5eed ^ static_cast<uint64_t>(d.n));
  std::shuffle(order.begin(), order.end(), rng);
  const bool two = !d.y.empty();
  auto work = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {  // output block b
      int64_t src = b < full ? order[b] * B : b * B, len = std::min(B, d.n - b * B);
      std::mt19937_64 r(0x9e3779b97f4a7c15ull * static_cast<uint64_t>(b + 1));
      std::copy_n(d.x.begin() + src, len, p.x.begin() + b * B);
      if (two) std::copy_n(d.y.begin() + src, len, p.y.begin() + b * B);
      for (int64_t i = len - 1; i > 0; --i) {
        int64_t j = static_cast<int64_t>(r() % static_cast<uint64_t>(i + 1));
        std::swap(p.x[b * B + i], p.x[b * B + j]);
        if (two) std::swap(p.y[b * B + i], p.y[b * B + j]);
      }
    }
  };
  const int64_t blocks = (d.n + B - 1) / B;
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(blocks / 16, 16)));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, blocks * t / threads, blocks * (t + 1) / threads);
  for (auto& th : pool) th.join();
  return p;
}

}  // namespace accsum
