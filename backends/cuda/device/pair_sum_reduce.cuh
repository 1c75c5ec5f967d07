#pragma once
// The bounded pass of the CUDA superacc sum and dot (families/sum_dot/pair_sum.hpp): every thread sums
// its share of the terms (a dot: its products' TwoProductFMA terms) as a pair (Sum2), the pairs
// are merged per warp (shuffles), per block (shared memory) and, in the last block to finish, over
// the blocks' pairs; that block decides the rounding from the proven bound and writes the result
// and whether it is decided. One launch, no shared-memory accumulators: the pass streams at the
// memory's speed.
#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/warp/warp.cuh"
#include "families/sum_dot/pair_sum.hpp"

namespace accsum::cuda {

struct PairSumPolicy {
  static constexpr int kThreads = 256;
  static constexpr int kVecs = 4;            // 16-byte loads in flight per thread
  static constexpr int kMinBlocksPerSm = 4;  // 64 warps per SM: registers capped at 64 per thread
  static constexpr int kWarps = kThreads / kWarpThreads;
  // Merges a term meets above its thread: 5 in the warp, 5 across the warps (warp 0 merges up to 32
  // warps' pairs with the same shuffles), then the same again in the last block.
  static constexpr int kTreeMerges = 4 * 5;
  static constexpr int kThreadMerges = 2;  // the thread's kVecs pairs merged pairwise
  static_assert(kVecs == 1 << kThreadMerges, "a thread's pairs merge in kThreadMerges levels");
};

// Lane 0 receives the merge of the warp's pairs (lane l merges lane l + off's, off = 16 .. 1).
__device__ __forceinline__ void warp_merge_pairs(PairSum& p) {
  for (int off = kWarpThreads / 2; off > 0; off >>= 1) {
    PairSum q;
    q.s = __shfl_down_sync(kFullMask, p.s, off);
    q.c = __shfl_down_sync(kFullMask, p.c, off);
    q.a = __shfl_down_sync(kFullMask, p.a, off);
    pair_merge(p, q);
  }
}

// Thread 0 receives the merge of the block's pairs. Ends with the block's threads synchronised.
__device__ __forceinline__ PairSum block_merge_pairs(PairSum p) {
  __shared__ double ws[PairSumPolicy::kWarps], wc[PairSumPolicy::kWarps], wa[PairSumPolicy::kWarps];
  const int warp = warp_of(threadIdx.x), lane = lane_of(threadIdx.x);
  warp_merge_pairs(p);
  if (lane == 0) ws[warp] = p.s, wc[warp] = p.c, wa[warp] = p.a;
  __syncthreads();
  if (warp == 0) {
    p = PairSum{};
    if (lane < PairSumPolicy::kWarps) p.s = ws[lane], p.c = wc[lane], p.a = wa[lane];
    warp_merge_pairs(p);
  }
  __syncthreads();
  return p;
}

// One element into a pair: a sum's term, or a dot's product as its two TwoProductFMA terms.
template <bool DOT>
__device__ __forceinline__ void pair_add_element(PairSum& p, double x, double y) {
  if (DOT) {
    double h, t;
    two_prod_fma(x, y, h, t);
    pair_add(p, h);
    pair_add(p, t);
  } else {
    pair_add(p, x);
  }
}

// out[0] the correctly rounded sum (DOT: dot product) and out[1] = 1 when the bound decides it;
// out[1] = 0 leaves it to the exact pass. partials: one pair per block; done: the blocks finished
// (the last resets it); slack: pair_dot_slack(n) for a dot, else 0.
template <class Policy, bool DOT>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm)
    pair_sum_blocks(const double* __restrict__ x, const double* __restrict__ y, int64_t n,
                    PairSum* __restrict__ partials, unsigned* __restrict__ done, double scale, double slack,
                    double* __restrict__ out) {
  constexpr int kAcc = Policy::kVecs;  // one pair per load of an iteration: short chains, a small D
  const auto* xv = reinterpret_cast<const double2*>(x);
  const auto* yv = reinterpret_cast<const double2*>(y);
  const int64_t nvec = n / 2, stride = int64_t(gridDim.x) * Policy::kThreads;
  int64_t i = int64_t(blockIdx.x) * Policy::kThreads + threadIdx.x;
  PairSum acc[kAcc];
  for (; i + (Policy::kVecs - 1) * stride < nvec; i += Policy::kVecs * stride) {
    double2 v[Policy::kVecs], w[Policy::kVecs];
#pragma unroll
    for (int j = 0; j < Policy::kVecs; ++j) {
      v[j] = __ldg(xv + i + j * stride);
      if (DOT) w[j] = __ldg(yv + i + j * stride);
    }
#pragma unroll
    for (int j = 0; j < Policy::kVecs; ++j) {
      pair_add_element<DOT>(acc[j], v[j].x, DOT ? w[j].x : 0.0);
      pair_add_element<DOT>(acc[j], v[j].y, DOT ? w[j].y : 0.0);
    }
  }
  for (; i < nvec; i += stride) {
    const double2 v = __ldg(xv + i), w = DOT ? __ldg(yv + i) : double2{};
    pair_add_element<DOT>(acc[0], v.x, w.x);
    pair_add_element<DOT>(acc[0], v.y, w.y);
  }
  if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) pair_add_element<DOT>(acc[0], x[n - 1], DOT ? y[n - 1] : 0.0);
#pragma unroll
  for (int w = 1; w < kAcc; w *= 2)
#pragma unroll
    for (int k = 0; k + w < kAcc; k += 2 * w) pair_merge(acc[k], acc[k + w]);
  PairSum p = acc[0];

  p = block_merge_pairs(p);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = p;
    __threadfence();  // the pair is visible before the count says so
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  PairSum q;
  for (int64_t b = threadIdx.x; b < gridDim.x; b += Policy::kThreads) {
    PairSum r;
    r.s = __ldcg(&partials[b].s);
    r.c = __ldcg(&partials[b].c);
    r.a = __ldcg(&partials[b].a);
    pair_merge(q, r);
  }
  q = block_merge_pairs(q);
  if (threadIdx.x == 0) {
    double r = 0.0;
    const bool decided = pair_round_within(q, scale, slack, r);
    out[0] = r;
    out[1] = decided ? 1.0 : 0.0;
    *done = 0;
  }
}

// Merges on any term's path for a launch of `grid` blocks over n elements (PairSumPolicy), each
// element `terms` terms (a dot: 2): a thread's pair j takes the terms of load j of every full
// iteration, pair 0 also the tail's vectors (fewer than kVecs) and the odd element; then
// log2(kVecs) merges in the thread, the trees of the blocks, and the last block's loop over the
// blocks' pairs.
inline int64_t pair_sum_depth(int64_t n, int64_t grid, int terms) {
  using P = PairSumPolicy;
  const int64_t threads = grid * P::kThreads, per_thread_vecs = (n / 2 + threads - 1) / threads;
  const int64_t chain = terms * (2 * ((per_thread_vecs + P::kVecs - 1) / P::kVecs + P::kVecs) + 1);
  return chain + P::kThreadMerges + P::kTreeMerges + (grid + P::kThreads - 1) / P::kThreads;
}

}  // namespace accsum::cuda
