#pragma once
// Launching the tiled SGEMM kernels (agent/gemm_tile_agent.cuh) under any policy of a variant's list
// (agent/gemm_policy.cuh). The variants instantiate their lists in translation units of their own
// (gemm_tiled_plain.cu, gemm_tiled_{kahan,dcs}_fma{0,1}.cu), so no one file compiles every kernel;
// gemm_cuda.cu reaches them through the plain functions declared at the end.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/agent/gemm_tile_agent.cuh"

namespace accsum::cuda::gemm_tile {

struct Launch {
  Shape sh;
  int tile;  // compensated: 1 (after every product) or a multiple of the policy's BK
  bool fma;
  float alpha, beta;
  const float* A;
  const float* B;
  const float* C;
  float* out;
  float* bt;  // K x N scratch for B copied row-major (policies with a cp.async ring), else unused
};

// Bt = B (column-major K x N) copied row-major, for the cp.async ring's [k][n] k-tiles: part of
// every such run, so its traffic (2 K N floats) is timed with the product (gemm_cuda.cu).
void copy_b_row_major(const float* B, int K, int N, float* bt);

// A policy as the report shows it.
struct PolicyInfo {
  std::string name;
  int bm, bn, bk, tm, tn, threads, min_blocks_per_sm, home, stages;
  size_t smem_bytes;
};

// What ptxas and the device made of one kernel instance.
struct KernelFacts {
  int regs = 0;            // registers per thread
  size_t local_bytes = 0;  // local memory per thread (spills)
  int blocks_per_sm = 0;   // resident blocks per SM on this device
};

template <class P, int COMP, bool FMA, bool EACH>
void set_smem_once() {
  static const bool opted_in = [] {  // shared memory beyond 48 KiB must be asked for, once per kernel
    ACCSUM_CUDA_CHECK(cudaFuncSetAttribute(sgemm_blocked<P, COMP, FMA, EACH>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem_bytes<P, COMP>())));
    return true;
  }();
  (void)opted_in;
}

template <class P, int COMP, bool FMA, bool EACH>
void launch_one(const Launch& l) {
  set_smem_once<P, COMP, FMA, EACH>();
  if constexpr (P::kAsync) {
    if (l.alpha != 0.0f) copy_b_row_major(l.B, l.sh.K, l.sh.N, l.bt);
  }
  sgemm_blocked<P, COMP, FMA, EACH><<<blocks_of<P>(l.sh.M, l.sh.N), P::kThreads, smem_bytes<P, COMP>()>>>(
      l.sh, l.tile, l.alpha, l.beta, l.A, l.B, l.bt, l.C, l.out);
}

template <class P, int COMP, bool FMA, bool EACH>
KernelFacts facts_one() {
  set_smem_once<P, COMP, FMA, EACH>();
  cudaFuncAttributes a{};
  ACCSUM_CUDA_CHECK(cudaFuncGetAttributes(&a, sgemm_blocked<P, COMP, FMA, EACH>));
  KernelFacts f;
  f.regs = a.numRegs;
  f.local_bytes = a.localSizeBytes;
  ACCSUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f.blocks_per_sm, sgemm_blocked<P, COMP, FMA, EACH>,
                                                                  P::kThreads, smem_bytes<P, COMP>()));
  return f;
}

// The instance a run takes at a given fma: (compensated) tile 1 or strips.
template <class P, int COMP, bool FMA, class F>
auto with_instance(const Launch& l, F&& f) {
  if (COMP != kNone && l.tile != 1 && l.tile % P::BK != 0)
    throw UsageError("tile " + std::to_string(l.tile) + " is not a multiple of policy " + P::name(true) + "'s k-tile");
  if constexpr (COMP == kNone) {
    return f.template operator()<P, COMP, FMA, false>();
  } else {
    if (l.tile == 1) return f.template operator()<P, COMP, FMA, true>();
    return f.template operator()<P, COMP, FMA, false>();
  }
}

struct LaunchIt {
  const Launch& l;
  template <class P, int COMP, bool FMA, bool EACH>
  int operator()() const {
    launch_one<P, COMP, FMA, EACH>(l);
    return 0;
  }
};
struct FactsOf {
  template <class P, int COMP, bool FMA, bool EACH>
  KernelFacts operator()() const {
    return facts_one<P, COMP, FMA, EACH>();
  }
};

template <class P, int COMP>
PolicyInfo info_of() {
  return PolicyInfo{P::name(COMP != kNone),
                    P::BM,
                    P::BN,
                    P::BK,
                    P::TM,
                    P::TN,
                    P::kThreads,
                    P::kMinBlocksPerSm,
                    COMP != kNone ? P::kHome : -1,
                    P::kStages,
                    smem_bytes<P, COMP>()};
}

// Policy `index` of the list at one fma: launch it (or read its facts) for this run.
template <int COMP, bool FMA, class... P>
void launch_in(GemmPolicyList<P...>, int index, const Launch& l) {
  int i = 0;
  const bool done = ((i++ == index ? (with_instance<P, COMP, FMA>(l, LaunchIt{l}), true) : false) || ...);
  if (!done) throw std::logic_error("gemm policy index " + std::to_string(index) + " out of range");
}
template <int COMP, bool FMA, class... P>
KernelFacts facts_in(GemmPolicyList<P...>, int index, const Launch& l) {
  int i = 0;
  KernelFacts f;
  const bool done = ((i++ == index ? (f = with_instance<P, COMP, FMA>(l, FactsOf{}), true) : false) || ...);
  if (!done) throw std::logic_error("gemm policy index " + std::to_string(index) + " out of range");
  return f;
}
template <int COMP, class... P>
std::vector<PolicyInfo> infos_of(GemmPolicyList<P...>) {
  return {info_of<P, COMP>()...};
}

// One set per variant: the policy list's names and shapes, a launch of policy `policy` (its index
// in the list), and its kernel's facts. Plain SGEMM (2 instances per policy) is one translation unit,
// gemm_tiled_plain.cu; each compensated variant (4 instances per policy: fma x tile 1 / strips) is
// two, gemm_tiled_<variant>_fma0.cu and _fma1.cu, so no file compiles more than 2 kernel instances
// of --policy=auto (about 40 s of nvcc each file).
std::vector<PolicyInfo> plain_policies();
void plain_launch(int policy, const Launch& l);
KernelFacts plain_facts(int policy, const Launch& l);
std::vector<PolicyInfo> kahan_policies();
void kahan_launch_fma0(int policy, const Launch& l);
void kahan_launch_fma1(int policy, const Launch& l);
KernelFacts kahan_facts_fma0(int policy, const Launch& l);
KernelFacts kahan_facts_fma1(int policy, const Launch& l);
std::vector<PolicyInfo> dcs_policies();
void dcs_launch_fma0(int policy, const Launch& l);
void dcs_launch_fma1(int policy, const Launch& l);
KernelFacts dcs_facts_fma0(int policy, const Launch& l);
KernelFacts dcs_facts_fma1(int policy, const Launch& l);
inline void kahan_launch(int policy, const Launch& l) {
  l.fma ? kahan_launch_fma1(policy, l) : kahan_launch_fma0(policy, l);
}
inline KernelFacts kahan_facts(int policy, const Launch& l) {
  return l.fma ? kahan_facts_fma1(policy, l) : kahan_facts_fma0(policy, l);
}
inline void dcs_launch(int policy, const Launch& l) { l.fma ? dcs_launch_fma1(policy, l) : dcs_launch_fma0(policy, l); }
inline KernelFacts dcs_facts(int policy, const Launch& l) {
  return l.fma ? dcs_facts_fma1(policy, l) : dcs_facts_fma0(policy, l);
}

// Every policy of the tuning sweep, compiled in or not (names and shapes only: no kernel is
// instantiated for them here).
inline std::vector<PolicyInfo> plain_sweep_policies() { return infos_of<gemm::kNone>(PlainSweepPolicies{}); }
inline std::vector<PolicyInfo> comp_sweep_policies() { return infos_of<gemm::kKahan>(CompSweepPolicies{}); }

}  // namespace accsum::cuda::gemm_tile
