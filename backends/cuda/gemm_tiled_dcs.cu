// The tiled SGEMM kernels, selective doubly compensated summation: every policy of CompGemmPolicies
// (agent/gemm_policy.cuh) with fma 0 and 1, tile 1 and strips, in a translation unit of their own so that
// compile time per file stays bounded as the policy lists grow (device/gemm_tile_dispatch.cuh).
#include "backends/cuda/device/gemm_tile_dispatch.cuh"

namespace accsum::cuda::gemm_tile {

std::vector<PolicyInfo> dcs_policies() { return infos_of<gemm::kDcs>(CompGemmPolicies{}); }
void dcs_launch(int policy, const Launch& l) { launch_in<gemm::kDcs>(CompGemmPolicies{}, policy, l); }
KernelFacts dcs_facts(int policy, const Launch& l) { return facts_in<gemm::kDcs>(CompGemmPolicies{}, policy, l); }

}  // namespace accsum::cuda::gemm_tile
