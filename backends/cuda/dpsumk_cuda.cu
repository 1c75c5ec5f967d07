// dpsumk / dpdotk on CUDA: launch sequences of the kernels in agent/dpsumk_agent.cuh, timed with
// CUDA events (device time only), and their registration. Results are bitwise those of the cpu
// backend (families/sum_dot/dpsum.hpp): deterministic across runs, backends and launch shapes, though not
// under a permutation of the input (so not "reproducible" in the README's sense).
//  fused: one pass over the input (fused_lanes(n) lanes, two per thread, 16-byte loads, the
//         lanes' TwoSums as two_sum_ordered), then one or two small launches merging the block
//         states; the root state is flushed on the host. Measured on an H200 at n = 2^28:
//         0.99x / 0.97x CUB (sum, K = 2 / 3), 1.00x / 1.00x cuBLAS ddot (results/dpsumk_{sum,dot}_2e28.json).
//  tree : K-1 DPSum passes (DPDot + K-2 for a dot), then DPRed, each a few launches (one per
//         kSegment-fold of the tree), over a work copy of the terms.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/agent/dpsumk_agent.cuh"
#include "backends/cuda/lane_tree.cuh"
#include "families/sum_dot/dpsum.hpp"

namespace accsum::cuda {
namespace {

using namespace dp;

constexpr int kDefaultLpt = 2;
constexpr bool kDefaultOrdered = true;

using FusedFn = void (*)(const double*, const double*, int64_t, int64_t, int, double*);
using MergeFn = void (*)(const double*, int64_t, int, double*);
using TreeFn = void (*)(const double*, const double*, double*, int64_t, int64_t, double*);

// K = 2..8 get kernels with the state in registers; larger K one kernel with K at run time.
using RegisterKs = std::integer_sequence<int, 2, 3, 4, 5, 6, 7, 8>;

// pick(k) for the kernel that serves K: k = std::integral_constant<int, K> for K in Ks, else 0.
template <int... Ks, class Pick>
auto kernel_for(int K, std::integer_sequence<int, Ks...>, const Pick& pick) {
  auto fn = pick(std::integral_constant<int, 0>{});
  (void)((K == Ks && (fn = pick(std::integral_constant<int, Ks>{}), true)) || ...);
  return fn;
}

template <bool Dot, bool Dekker, int LPT, bool Ordered>
FusedFn fused_fn_k(int K) {
  return kernel_for(K, RegisterKs{},
                    [](auto k) -> FusedFn { return fused_kernel<decltype(k)::value, Dot, Dekker, LPT, Ordered>; });
}
template <bool Dot, bool Dekker>
FusedFn fused_fn(int K, int lpt, bool ordered) {
  if (ordered) return lpt == 1 ? fused_fn_k<Dot, Dekker, 1, true>(K) : fused_fn_k<Dot, Dekker, 2, true>(K);
  return lpt == 1 ? fused_fn_k<Dot, Dekker, 1, false>(K) : fused_fn_k<Dot, Dekker, 2, false>(K);
}

// Speed knobs that keep the bits, with environment overrides for tuning runs and tests:
// lanes per thread ($ACCSUM_DPSUMK_LPT = 1 | 2) and the TwoSum of the lanes
// ($ACCSUM_DPSUMK_EFT = twosum | ordered).
int lanes_per_thread() {
  if (const char* e = std::getenv("ACCSUM_DPSUMK_LPT")) {
    int v = std::atoi(e);
    if (v == 1 || v == 2) return v;
  }
  return kDefaultLpt;
}
bool ordered_two_sum() {
  if (const char* e = std::getenv("ACCSUM_DPSUMK_EFT")) return std::string(e) != "twosum";
  return kDefaultOrdered;
}
MergeFn merge_fn(int K) {
  return kernel_for(K, RegisterKs{}, [](auto k) -> MergeFn { return merge_states_kernel<decltype(k)::value>; });
}

class DpFused : public LaneTreeKernel {
 public:
  DpFused(const Problem& p, int K, bool dot, bool dekker, int lpt) : LaneTreeKernel(p, K, lpt) {
    const bool ord = ordered_two_sum();
    fn_ = !dot     ? fused_fn<false, false>(K, lpt, ord)
          : dekker ? fused_fn<true, true>(K, lpt, ord)
                   : fused_fn<true, false>(K, lpt, ord);
    merge_ = merge_fn(K);
  }
  double run() override {
    if (in_->n == 0) {
      last_ = 0;
      return 0.0;
    }
    double* root = reduce(
        [&](int64_t blocks, double* out) { fn_<<<blocks, kThreads>>>(in_->x, in_->y, in_->n, lanes_, width_, out); },
        [&](int64_t blocks, const double* in, int64_t count, double* out) {
          merge_<<<blocks, kThreads>>>(in, count, width_, out);
        });
    return kf_finalize<0>(root, width_);
  }

 private:
  FusedFn fn_;
  MergeFn merge_;
};

template <bool Plain>
TreeFn tree_fn(Source s) {
  switch (s) {
    case Source::copy_x:
      return tree_kernel<Plain, Source::copy_x>;
    case Source::dot_fma:
      return tree_kernel<Plain, Source::dot_fma>;
    case Source::dot_dekker:
      return tree_kernel<Plain, Source::dot_dekker>;
    default:
      return tree_kernel<Plain, Source::in_place>;
  }
}

class DpTree : public CudaKernel {
 public:
  DpTree(const Problem& p, int K, bool dot, bool dekker)
      : CudaKernel(p),
        K_(K),
        N_(dot ? 2 * p.n : p.n),
        first_(!dot     ? Source::copy_x
               : dekker ? Source::dot_dekker
                        : Source::dot_fma),
        p_(N_ ? N_ : 1),
        out_(2) {}
  double run() override {
    if (in_->n == 0) {
      last_ = 0;
      return 0.0;
    }
    timer_.start();
    pass(first_, false, out_.get() + 1);  // DPSum (or DPDot); its top is the plain sum
    for (int k = 2; k < K_; ++k) pass(Source::in_place, false, nullptr);
    pass(Source::in_place, true, out_.get());  // DPRed
    last_ = timer_.stop_seconds();
    double r[2];
    ACCSUM_CUDA_CHECK(cudaMemcpy(r, out_.get(), sizeof r, cudaMemcpyDeviceToHost));
    return ieee_result(r[0], r[1]);
  }

 private:
  // One pass of the global tree: launches with stride 1, kSegment, kSegment^2, ...
  void pass(Source src, bool plain, double* top) {
    for (int64_t stride = 1;; stride *= kSegment) {
      int64_t terms = ceil_div(N_, stride), blocks = ceil_div(terms, kSegment);
      TreeFn fn = plain ? tree_fn<true>(src) : tree_fn<false>(src);
      fn<<<blocks, kThreads>>>(in_->x, in_->y, p_.get(), terms, stride, blocks == 1 ? top : nullptr);
      ACCSUM_CUDA_CHECK(cudaGetLastError());
      src = Source::in_place;
      if (blocks == 1) break;
    }
  }
  int K_;
  int64_t N_;
  Source first_;
  DeviceBuffer<double> p_, out_;
  EventTimer timer_;
};

std::unique_ptr<Kernel> make(const Problem& p, const Params& prm, bool dot) {
  const int K = dp_K(prm);
  const bool dekker = dot && dp_dekker(prm);
  if (dp_variant(prm) == DpVariant::tree) return std::make_unique<DpTree>(p, K, dot, dekker);
  return std::make_unique<DpFused>(p, K, dot, dekker, lanes_per_thread());
}

Registrar reg_sum(
    dp_entry(false, "cuda",
             "DPSumK on the GPU: the paper's DPSum kernel passes (tree) or one fused pass; same bits as cpu")
        .maker([](const Problem& p, const Params& prm) { return make(p, prm, false); }));
Registrar reg_dot(
    dp_entry(true, "cuda",
             "DPDotK on the GPU: the paper's DPDot/DPSum passes (tree) or one fused pass; same bits as cpu")
        .maker([](const Problem& p, const Params& prm) { return make(p, prm, true); }));

}  // namespace
}  // namespace accsum::cuda
