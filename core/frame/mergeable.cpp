#include "core/frame/mergeable.hpp"

#include <mutex>
#include <thread>

namespace accsum {
std::unique_ptr<MergeableState> compose_slices(const MergeableFactory& make, const Params& params, const Problem& p,
                                               int slices) {
  slices = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(slices, std::max<int64_t>(p.n, 1))));
  std::vector<std::unique_ptr<MergeableState>> states;
  for (int t = 0; t < slices; ++t) states.push_back(make(params));
  std::vector<std::thread> pool;
  std::exception_ptr failure;
  std::mutex m;
  for (int t = 0; t < slices; ++t) {
    int64_t b = p.n * t / slices, e = p.n * (t + 1) / slices;
    auto work = [&, t, b, e] {
      try {
        states[t]->accumulate(p.vector_slice(b, e, p.id));
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!failure) failure = std::current_exception();
      }
    };
    if (t == slices - 1)
      work();
    else
      pool.emplace_back(work);
  }
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  for (int t = 1; t < slices; ++t) states[0]->merge(*states[t]);
  return std::move(states[0]);
}

}  // namespace accsum
