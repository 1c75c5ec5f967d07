// cpu-mt speed baselines: a plain threaded sum and dot, as fast as the machine allows and no
// more accurate than recursive summation. Each thread sums its static chunk into kLanes
// independent accumulators (the compiler turns them into AVX2 vector adds: no reassociation is
// needed, so -ffp-contract=off / no fast-math do not stop it), the lanes are combined in a fixed
// tree and the thread partials in thread order: the same bits for the same thread count.
// Accumulators start at -0, the identity of IEEE addition, so all -0 terms sum to -0; NaN and
// infinities propagate as in the serial sum.
#include <memory>
#include <vector>

#include "core/frame/parallel.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_bounds.hpp"

namespace accsum::cpu_mt {
namespace {

constexpr int kLanes = 16;  // 4 AVX2 vectors: enough independent adds to hide the add latency

// Lanes combined as a fixed binary tree: (l0 + l1) + (l2 + l3), ...
double combine_lanes(double* acc) {
  for (int width = kLanes / 2; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) acc[j] = acc[2 * j] + acc[2 * j + 1];
  return acc[0];
}

double chunk_sum(const double* x, int64_t b, int64_t e) {
  double acc[kLanes];
  for (double& a : acc) a = -0.0;
  int64_t i = b;
  for (; i + kLanes <= e; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += x[i + j];
  for (int j = 0; i < e; ++i, ++j) acc[j] += x[i];
  return combine_lanes(acc);
}

double chunk_dot(const double* x, const double* y, int64_t b, int64_t e) {
  double acc[kLanes];
  for (double& a : acc) a = -0.0;
  int64_t i = b;
  for (; i + kLanes <= e; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += x[i + j] * y[i + j];
  for (int j = 0; i < e; ++i, ++j) acc[j] += x[i] * y[i];
  return combine_lanes(acc);
}

// Per-thread partials, summed in thread order. The empty sum is +0.
template <class ChunkFn>
double threaded(int64_t n, int threads, ChunkFn chunk) {
  if (n <= 0) return 0.0;
  threads = static_cast<int>(std::min<int64_t>(std::max(1, threads), n));
  std::vector<double> partial(threads);
  parallel_chunks(n, threads, [&](int t, int64_t b, int64_t e) { partial[t] = chunk(b, e); });
  double s = partial[0];
  for (int t = 1; t < threads; ++t) s += partial[t];
  return s;
}

class PlainKernel : public ScalarKernel {
 public:
  PlainKernel(const Problem& p, int threads) : p_(p), threads_(threads) {}
  double run() override {
    const double *x = p_.x, *y = p_.y;
    if (y) return threaded(p_.n, threads_, [&](int64_t b, int64_t e) { return chunk_dot(x, y, b, e); });
    return threaded(p_.n, threads_, [&](int64_t b, int64_t e) { return chunk_sum(x, b, e); });
  }

 private:
  Problem p_;
  int threads_;
};

std::unique_ptr<Kernel> make_plain(const Problem& p, const Params& prm) {
  return std::make_unique<PlainKernel>(p, threads_of(prm));
}

// Every term passes through at most ceil(L / kLanes) + 1 lane additions (L <= n/threads + 1 the
// chunk length), 4 tree levels and threads - 1 additions of partials: h <= n/kLanes + threads + 5,
// and the error is at most gamma_h S (Higham 2002 §4.2); one more factor for a dot's products.
int64_t plain_depth(int64_t n, const Params& prm) { return n / kLanes + threads_of(prm) + 5; }

// The threaded baseline of `family` (its entry `algo`): one kernel, the threads a parameter.
AlgoEntry plain_entry(const char* family, const char* algo, const char* summary) {
  AlgoEntry e(family, algo, "cpu-mt", summary);
  e.baseline().promises(Guarantee::bound).with_params({threads_param()}).maker(make_plain).shapes(thread_variants);
  return e;
}

Registrar reg_sum(
    plain_entry("sum", "naive", "plain threaded sum, 16 accumulators per thread (AVX2; cpu-mt baseline)")
        .within_domain(bounds::sum_domain)
        .bounded_by([](const Params& prm,
                       const ExactFacts& f) { return bounds::tree_sum(plain_depth(f.n, prm), f.sum_abs); },
                    "gamma_h S, h = n/16 + threads + 5: Higham 2002 §4.2"));

Registrar reg_dot(
    plain_entry("dot", "dot", "plain threaded dot, 16 accumulators per thread (AVX2; cpu-mt baseline)")
        .within_domain(bounds::dot_domain)
        .bounded_by(
            [](const Params& prm, const ExactFacts& f) {
              return bounds::add_up(bounds::tree_sum(plain_depth(f.n, prm) + 1, f.sum_abs),
                                    bounds::underflow_term(f.n));
            },
            "gamma_{h+1} S, h = n/16 + threads + 5 (Higham 2002 §3.1, §4.2) + n eta for products that underflow"));

}  // namespace
}  // namespace accsum::cpu_mt
