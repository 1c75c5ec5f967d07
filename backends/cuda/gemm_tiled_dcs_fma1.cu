// The tiled SGEMM kernels, selective doubly compensated summation, fma 1: every policy of CompGemmPolicies
// (agent/gemm_policy.cuh) at tile 1 and in strips, in a translation unit of their own so that compile
// time per file stays bounded (device/gemm_tile_dispatch.cuh).
#include "backends/cuda/device/gemm_tile_dispatch.cuh"

namespace accsum::cuda::gemm_tile {

void dcs_launch_fma1(int policy, const Launch& l) { launch_in<gemm::kDcs, true>(CompGemmPolicies{}, policy, l); }
KernelFacts dcs_facts_fma1(int policy, const Launch& l) {
  return facts_in<gemm::kDcs, true>(CompGemmPolicies{}, policy, l);
}

}  // namespace accsum::cuda::gemm_tile
