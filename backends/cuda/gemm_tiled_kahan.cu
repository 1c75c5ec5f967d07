// The tiled SGEMM kernels, selective Kahan summation: every policy of CompGemmPolicies
// (agent/gemm_policy.cuh) with fma 0 and 1, tile 1 and strips, in a translation unit of their own so that
// compile time per file stays bounded as the policy lists grow (device/gemm_tile_dispatch.cuh).
#include "backends/cuda/device/gemm_tile_dispatch.cuh"

namespace accsum::cuda::gemm_tile {

std::vector<PolicyInfo> kahan_policies() { return infos_of<gemm::kKahan>(CompGemmPolicies{}); }
void kahan_launch(int policy, const Launch& l) { launch_in<gemm::kKahan>(CompGemmPolicies{}, policy, l); }
KernelFacts kahan_facts(int policy, const Launch& l) { return facts_in<gemm::kKahan>(CompGemmPolicies{}, policy, l); }

}  // namespace accsum::cuda::gemm_tile
