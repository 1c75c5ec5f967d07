// The tiled SGEMM kernels, selective Kahan summation, fma 0: every policy of CompGemmPolicies
// (agent/gemm_policy.cuh) at tile 1 and in strips, in a translation unit of their own so that compile
// time per file stays bounded (device/gemm_tile_dispatch.cuh).
#include "backends/cuda/device/gemm_tile_dispatch.cuh"

namespace accsum::cuda::gemm_tile {

std::vector<PolicyInfo> kahan_policies() { return infos_of<gemm::kKahan>(CompGemmPolicies{}); }
void kahan_launch_fma0(int policy, const Launch& l) { launch_in<gemm::kKahan, false>(CompGemmPolicies{}, policy, l); }
KernelFacts kahan_facts_fma0(int policy, const Launch& l) {
  return facts_in<gemm::kKahan, false>(CompGemmPolicies{}, policy, l);
}

}  // namespace accsum::cuda::gemm_tile
