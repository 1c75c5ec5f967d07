// The host side of `import accsum`: nothing is reimplemented here. A float64 row runs the kernel
// `accsum bench` times for that entry; a float32 row is widened exactly, added to the entry's
// mergeable superaccumulator (the state cpu-mt and mpi compose), and rounded once to float32.
#include "python/src/reductions.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "core/frame/parallel.hpp"
#include "core/frame/mergeable.hpp"
#include "core/frame/registry.hpp"

namespace accsum::python {
namespace {

// Below this many elements per thread, starting a thread costs more than it saves.
constexpr int64_t kMinPerThread = int64_t{1} << 15;
// float32 rows are widened to float64 this many elements at a time (constant extra memory).
constexpr int64_t kWidenBlock = int64_t{1} << 16;

const AlgoEntry& entry(const std::string& algo, const std::string& backend) {
  require_backend(backend);
  const AlgoEntry* e = registry().find(algo, backend);
  if (!e) throw UsageError(algo + " is not built in on " + backend);
  return *e;
}

// Threads worth starting for `work` elements when the caller allows `threads` (0: all).
int useful_threads(int threads, int64_t work) {
  if (work < 2 * kMinPerThread) return 1;  // without asking how many cores there are (a system call)
  const int allowed = threads == 0 ? default_threads() : threads;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(allowed, work / kMinPerThread)));
}

// The same entry on cpu (one thread) or cpu-mt (several), with its parameters resolved once.
struct Chosen {
  const AlgoEntry* e;
  Params params;
};
Chosen resolve(const std::string& algo, int threads, int K) {
  const bool mt = threads > 1;
  const AlgoEntry& e = entry(algo, mt ? "cpu-mt" : "cpu");
  Params user;
  if (mt) user["threads"] = std::to_string(threads);
  if (algo == "dpsumk" || algo == "dpdotk") user["K"] = std::to_string(K);
  return {&e, registry().resolve_params(e, user)};
}
// Finding an entry scans the registry and resolving its parameters builds string maps, microseconds
// that a call on a thousand elements would feel: each (algo, threads, K) is resolved once.
const Chosen& choose(const std::string& algo, int threads, int K) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, int, int>, Chosen> resolved;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(algo, threads, K);
  auto it = resolved.find(key);
  if (it == resolved.end()) it = resolved.emplace(key, resolve(algo, threads, K)).first;
  return it->second;  // std::map nodes stay put
}

double run_kernel(const Chosen& c, const double* x, const double* y, int64_t n) {
  auto kernel = c.e->make(Problem::vectors(x, y, n, next_dataset_id()), c.params);
  kernel->execute();
  return kernel->result().scalar();
}

// RN32(S) from s1 = RN64(S) and r = RN64(S - s1) (r has the sign of S - s1 and is 0 only when s1 is
// S): s1 moved to its odd neighbour towards S is S rounded to odd at 53 bits, and rounding that to
// 24 bits is S rounded to nearest (Boldo, Melquiond, "Emulation of FMA and correctly rounded sums:
// proved algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008, Theorem 1: 53 >= 24 + 2).
float round_once_to_float(double s1, double r) {
  if (r == 0 || !std::isfinite(s1)) return static_cast<float>(s1);
  uint64_t bits;
  std::memcpy(&bits, &s1, sizeof bits);
  if ((bits & 1) == 0) s1 = std::nextafter(s1, r > 0 ? INFINITY : -INFINITY);
  return static_cast<float>(s1);
}

// The exact sum (dot) of a float32 row in the entry's mergeable state, rounded once to float32.
float superacc_float_row(const Chosen& c, const float* x, const float* y, int64_t n) {
  if (!c.e->state) throw std::logic_error(c.e->algo + " on " + c.e->backend + " has no mergeable state");
  std::unique_ptr<MergeableState> st = c.e->state(c.params);
  const int64_t block = c.e->backend == "cpu" ? kWidenBlock : kWidenBlock * 16;
  std::vector<double> wx(static_cast<size_t>(std::min(n, block))), wy(y ? wx.size() : 0);
  for (int64_t b = 0; b < n; b += block) {
    const int64_t e = std::min(n, b + block);
    std::copy(x + b, x + e, wx.begin());  // exact widening
    if (y) std::copy(y + b, y + e, wy.begin());
    st->accumulate(Problem::vectors(wx.data(), y ? wy.data() : nullptr, e - b, next_dataset_id()));
  }
  const double s1 = st->finalize().scalar();
  if (!std::isfinite(s1)) return static_cast<float>(s1);
  const double minus_s1 = -s1, one = 1.0;
  st->accumulate(Problem::vectors(&minus_s1, y ? &one : nullptr, 1, next_dataset_id()));
  return round_once_to_float(s1, st->finalize().scalar());
}

// One row: float64 through the entry's kernel; float32 widened (superacc: the state, rounded once;
// DPSumK / DPDotK: their float64 result, then rounded to float32).
void reduce_row(const Chosen& c, const Rows& r, int64_t i) {
  const int64_t off = i * r.n;
  if (!r.single) {
    const double* x = static_cast<const double*>(r.x) + off;
    const double* y = r.y ? static_cast<const double*>(r.y) + off : nullptr;
    static_cast<double*>(r.out)[i] = run_kernel(c, x, y, r.n);
    return;
  }
  const float* x = static_cast<const float*>(r.x) + off;
  const float* y = r.y ? static_cast<const float*>(r.y) + off : nullptr;
  float& out = static_cast<float*>(r.out)[i];
  if (c.e->algo.rfind("superacc", 0) == 0) {
    out = superacc_float_row(c, x, y, r.n);
    return;
  }
  std::vector<double> wx(x, x + r.n), wy;
  if (y) wy.assign(y, y + r.n);
  out = static_cast<float>(run_kernel(c, wx.data(), y ? wy.data() : nullptr, r.n));
}

}  // namespace

void reduce_rows(const std::string& algo, const Rows& r, int threads, int K) {
  if (r.rows == 1) {  // one reduction: the entry's own threads
    reduce_row(choose(algo, useful_threads(threads, r.n), K), r, 0);
    return;
  }
  // Many reductions: one thread per block of rows, each row on the cpu entry.
  const Chosen& c = choose(algo, 1, K);
  const int t =
      static_cast<int>(std::min<int64_t>(useful_threads(threads, r.rows * std::max<int64_t>(r.n, 1)), r.rows));
  parallel_chunks(r.rows, t, [&](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) reduce_row(c, r, i);
  });
}

void matmul(const void* a, const void* b, void* out, int64_t M, int64_t K, int64_t N, bool single,
            const std::string& accuracy) {
  const AlgoEntry& e = entry(single ? "sgemm-ozaki" : "dgemm-ozaki", "cpu");
  const Params params = registry().resolve_params(e, {{"accuracy", accuracy}});
  // The entries take column-major matrices. C = A B in C order is C^T = B^T A^T in column order, and a
  // C-ordered matrix is its transpose in column order: so the problem is (B's buffer) x (A's buffer).
  Problem p;
  if (single) {
    p.a = static_cast<const float*>(b);
    p.b = static_cast<const float*>(a);
  } else {
    p.a64 = static_cast<const double*>(b);
    p.b64 = static_cast<const double*>(a);
  }
  p.rows = N;
  p.cols = M;
  p.inner = K;
  p.id = next_dataset_id();
  auto kernel = e.make(p, params);
  kernel->execute();
  const Result res = kernel->result();
  const size_t count = static_cast<size_t>(M * N);
  if (res.values.size() < count) throw std::logic_error(e.algo + " returned fewer entries than the product has");
  if (single)
    std::copy(res.values.begin(), res.values.begin() + static_cast<std::ptrdiff_t>(count), static_cast<float*>(out));
  else
    std::copy(res.values.begin(), res.values.begin() + static_cast<std::ptrdiff_t>(count), static_cast<double*>(out));
}

}  // namespace accsum::python
