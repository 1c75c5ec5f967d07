// fpe-sum / fpe-dot on all cores: the lanes of core/fpe_sum.hpp split among the threads (each
// lane's steps in order, R fixed at compile time), then the lane tree, low levels per thread.
// The same operations as the serial definition, so the bits do not depend on the thread count.
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cpu_mt/parallel.hpp"
#include "core/fpe_sum.hpp"
#include "core/registry.hpp"

namespace accsum::cpu_mt {
namespace {

template <int R>
void lane(const double* x, const double* y, int64_t n, int64_t G, int64_t g, double* a) {
  for (int l = 0; l < R; ++l) a[l] = 0.0;
  for (int64_t j = g * kFusedVec; j < n; j += G * kFusedVec)
    for (int64_t i = j; i < std::min(j + kFusedVec, n); ++i) {
      if (y) {
        double h, t;
        fpe_acc_product(x[i], y[i], h, t);
        if (R == 2)
          fpe_acc_add2_dot(a, h, t);
        else
          fpe_acc_add<R>(a, R, h, t);
      } else if (R == 2) {
        fpe_acc_add2_sum(a, x[i]);
      } else {
        fpe_acc_add<R>(a, R, x[i], 0.0);
      }
    }
}

using LaneFn = void (*)(const double*, const double*, int64_t, int64_t, int64_t, double*);
LaneFn lane_fn(int R) {
  switch (R) {
    case 2: return lane<2>;
    case 4: return lane<4>;
    case 8: return lane<8>;
    case 16: return lane<16>;
    default: return lane<32>;
  }
}

double fpe_acc_mt(const double* x, const double* y, int64_t n, int R, int threads) {
  if (n <= 0) return 0.0;
  const int64_t G = fused_lanes(n);
  std::vector<double> st(G * R);
  const LaneFn fn = lane_fn(R);
  const int T = static_cast<int>(std::min<int64_t>(std::max(1, threads), G));
  parallel_chunks(G, T, [&](int, int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) fn(x, y, n, G, g, &st[g * R]);
  });
  const int64_t P = pow2_floor(T), sub = G / P;
  parallel_chunks(P, static_cast<int>(P), [&](int, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fpe_acc_merge_lanes(&st[b * sub * R], sub, R);
  });
  fpe_acc_merge_lanes(st.data(), G, R, sub);
  return fpe_acc_finish(st.data(), R, x, y, n);
}

class FpeAccMtKernel : public ScalarKernel {
 public:
  FpeAccMtKernel(const Problem& pb, const Params& p, bool dot)
      : pb_(pb), R_(fpe_acc_r(p)), dot_(dot), threads_(threads_of(p)) {}
  double run() override { return fpe_acc_mt(pb_.x, dot_ ? pb_.y : nullptr, pb_.n, R_, threads_); }

 private:
  Problem pb_;
  int R_;
  bool dot_;
  int threads_;
};

AlgoEntry entry(bool dot, const char* summary) {
  AlgoEntry e = fpe_acc_entry(dot, "cpu-mt", summary);
  auto ps = e.params;
  ps.push_back(threads_param());
  return e.with_params(ps)
      .maker([dot](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
        return std::make_unique<FpeAccMtKernel>(p, prm, dot);
      })
      .shapes(thread_variants);
}

Registrar reg_sum(entry(false, "R-term expansion accumulator on all cores (same bits as cpu)"));
Registrar reg_dot(entry(true, "R-term expansion accumulator of the exact products on all cores (same bits as cpu)"));

}  // namespace
}  // namespace accsum::cpu_mt
