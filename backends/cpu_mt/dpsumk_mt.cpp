// dpsumk / dpdotk on all cores. Both variants compute exactly the operations of the serial
// definitions (families/sum_dot/dpsum.hpp), only spread over threads, so the bits do not depend on the thread
// count and equal the cpu, CUDA and OpenCL results.
//  tree : each DPSum/DPRed pass runs its low levels (w < kBlock) in aligned blocks of kBlock
//         terms, one block at a time per thread (the block stays in L2), then the few high levels
//         on one thread.
//  fused: the G lanes are split among the threads; a thread walks its lanes kLaneBlock at a
//         time, keeping their K levels in small per-level arrays (structure of arrays) so that
//         the level loops vectorise across lanes; then the lane tree, low levels per thread.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/frame/parallel.hpp"
#include "families/sum_dot/dpsum.hpp"
#include "core/frame/registry.hpp"

namespace accsum::cpu_mt {
namespace {

constexpr int64_t kBlock = int64_t(1) << 14;  // 128 KiB of terms per tree block
constexpr int64_t kLaneBlock = 512;           // lanes walked together (K * 4 KiB of state)

// Runs levels w < kBlock of a tree pass block by block on all threads, then the rest serially.
// `prepare(b, e)` fills terms [b, e) first (the first pass reads the input there).
template <class Op, class Prepare>
void tree_pass(double* p, int64_t N, int threads, int64_t w_lo, Op op, Prepare prepare) {
  const int64_t blocks = (N + kBlock - 1) / kBlock;
  parallel_chunks(blocks, std::min<int64_t>(threads, blocks), [&](int, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t lo = b * kBlock, len = std::min(kBlock, N - lo);
      prepare(lo, lo + len);
      dp_levels(p + lo, len, w_lo, kBlock, op);
    }
  });
  dp_levels(p, N, std::max(w_lo, kBlock), INT64_MAX, op);
}
auto no_prepare = [](int64_t, int64_t) {};

double sum_tree(const double* x, int64_t n, int K, int threads) {
  if (n <= 0) return 0.0;
  std::vector<double> p(n);
  tree_pass(p.data(), n, threads, 1, TwoSumInPlace{}, [&](int64_t b, int64_t e) { std::copy(x + b, x + e, &p[b]); });
  const double plain = p[0];
  for (int k = 2; k < K; ++k) tree_pass(p.data(), n, threads, 1, TwoSumInPlace{}, no_prepare);
  tree_pass(p.data(), n, threads, 1, AddInPlace{}, no_prepare);
  return ieee_result(p[0], plain);
}

double dot_tree(const double* x, const double* y, int64_t n, int K, bool dekker, int threads) {
  if (n <= 0) return 0.0;
  const int64_t N = 2 * n;
  std::vector<double> t(N);
  tree_pass(t.data(), N, threads, 2, TwoSumInPlace{}, [&](int64_t b, int64_t e) {
    dp_dot_products(x + b / 2, y + b / 2, (e - b) / 2, dekker, &t[b]);  // kBlock is even
  });
  const double plain = t[0];
  for (int k = 2; k < K; ++k) tree_pass(t.data(), N, threads, 1, TwoSumInPlace{}, no_prepare);
  tree_pass(t.data(), N, threads, 1, AddInPlace{}, no_prepare);
  return ieee_result(t[0], plain);
}

// ---- fused ----
// One lane block: a[k * kLaneBlock + l] is level k of lane l. Adds the values v[0..L) at level 0
// (and, for a dot, w[0..L) at level 1), as kf_add does for each lane, level by level: a
// re-statement of core/numerics/dpsum.h's accsum_kf_add laid out across lanes for the compiler's
// vectoriser, tested bit for bit against the serial definition (tests/families/test_dpsumk.cpp).
void add_levels(double* a, int K, int L, int level, double* v) {
  for (int k = level; k < K - 1; ++k) {
    double* ak = a + k * kLaneBlock;
    for (int l = 0; l < L; ++l) {
      double s, e;
      two_sum(ak[l], v[l], s, e);
      ak[l] = s;
      v[l] = e;
    }
  }
  double* last = a + (K - 1) * kLaneBlock;
  for (int l = 0; l < L; ++l) last[l] += v[l];
}

template <bool Dot>
double fused(const double* x, const double* y, int64_t n, int K, bool dekker, int threads) {
  if (n <= 0) return 0.0;
  const int64_t G = fused_lanes(n), V = kFusedVec;
  const int64_t full_rows = n / (G * V);  // rows where every lane takes V elements
  std::vector<double> st(G * K);
  threads = static_cast<int>(std::min<int64_t>(std::max(1, threads), (G + kLaneBlock - 1) / kLaneBlock));
  parallel_chunks(G, threads, [&](int, int64_t g0, int64_t g1) {
    std::vector<double> a(K * kLaneBlock), v(kLaneBlock), w(kLaneBlock);
    for (int64_t lb = g0; lb < g1; lb += kLaneBlock) {
      const int L = static_cast<int>(std::min(kLaneBlock, g1 - lb));
      std::fill(a.begin(), a.end(), -0.0);
      for (int64_t r = 0; r < full_rows; ++r) {
        const int64_t base = (r * G + lb) * V;
        for (int q = 0; q < V; ++q) {
          if (Dot) {
            for (int l = 0; l < L; ++l) {
              double xi = x[base + l * V + q], yi = y[base + l * V + q];
              if (dekker)
                two_prod_dekker(xi, yi, v[l], w[l]);
              else
                two_prod_fma(xi, yi, v[l], w[l]);
            }
            add_levels(a.data(), K, L, 0, v.data());
            add_levels(a.data(), K, L, 1, w.data());
          } else {
            for (int l = 0; l < L; ++l) v[l] = x[base + l * V + q];
            add_levels(a.data(), K, L, 0, v.data());
          }
        }
      }
      // The ragged end, element by element with the serial per-lane code.
      for (int l = 0; l < L; ++l) {
        double lane[64];
        for (int k = 0; k < K; ++k) lane[k] = a[k * kLaneBlock + l];
        for (int64_t i = (full_rows * G + lb + l) * V; i < n; i += G * V)
          for (int64_t j = i; j < std::min(i + V, n); ++j) {
            if (!Dot)
              kf_sum_elem<0>(lane, K, x[j]);
            else if (dekker)
              kf_dot_elem<0, true>(lane, K, x[j], y[j]);
            else
              kf_dot_elem<0, false>(lane, K, x[j], y[j]);
          }
        for (int k = 0; k < K; ++k) st[(lb + l) * K + k] = lane[k];
      }
    }
  });
  // Lane tree: subtrees of G / P lanes per thread, then the top P - 1 merges.
  const int64_t P = pow2_floor(std::min<int64_t>(std::max(1, threads), G)), sub = G / P;
  parallel_chunks(P, static_cast<int>(P), [&](int, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) kf_merge_lanes(&st[b * sub * K], sub, K);
  });
  kf_merge_lanes(st.data(), G, K, sub);
  return kf_finalize<0>(st.data(), K);
}

class MtKernel : public ScalarKernel {
 public:
  MtKernel(const Problem& pb, const Params& p, bool dot)
      : pb_(pb),
        K_(dp_K(p)),
        tree_(dp_variant(p) == DpVariant::tree),
        dot_(dot),
        dekker_(dot && dp_dekker(p)),
        threads_(threads_of(p)) {}
  double run() override {
    if (dot_)
      return tree_ ? dot_tree(pb_.x, pb_.y, pb_.n, K_, dekker_, threads_)
                   : fused<true>(pb_.x, pb_.y, pb_.n, K_, dekker_, threads_);
    return tree_ ? sum_tree(pb_.x, pb_.n, K_, threads_) : fused<false>(pb_.x, nullptr, pb_.n, K_, false, threads_);
  }

 private:
  Problem pb_;
  int K_;
  bool tree_, dot_, dekker_;
  int threads_;
};

std::vector<ParamSpec> params(bool dot) {
  auto ps = dp_params(dot);
  ps.push_back(threads_param());
  return ps;
}

Registrar reg_sum(dp_entry(false, "cpu-mt", "DPSumK on all cores (tree or fused; same bits as cpu)")
                      .with_params(params(false))
                      .maker([](const Problem& pb, const Params& p) -> std::unique_ptr<Kernel> {
                        return std::make_unique<MtKernel>(pb, p, false);
                      })
                      .shapes(thread_variants));
Registrar reg_dot(dp_entry(true, "cpu-mt", "DPDotK on all cores (tree or fused; same bits as cpu)")
                      .with_params(params(true))
                      .maker([](const Problem& pb, const Params& p) -> std::unique_ptr<Kernel> {
                        return std::make_unique<MtKernel>(pb, p, true);
                      })
                      .shapes(thread_variants));

}  // namespace
}  // namespace accsum::cpu_mt
