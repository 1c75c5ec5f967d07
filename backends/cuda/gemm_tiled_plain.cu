// The tiled SGEMM kernels, products summed plainly: every policy of PlainGemmPolicies
// (agent/gemm_policy.cuh) with fma 0 and 1, in a translation unit of their own so that
// compile time per file stays bounded as the policy lists grow (device/gemm_tile_dispatch.cuh).
#include "backends/cuda/device/gemm_tile_dispatch.cuh"

namespace accsum::cuda::gemm_tile {

std::vector<PolicyInfo> plain_policies() { return infos_of<gemm::kNone>(PlainGemmPolicies{}); }
void plain_launch(int policy, const Launch& l) { launch_in<gemm::kNone>(PlainGemmPolicies{}, policy, l); }
KernelFacts plain_facts(int policy, const Launch& l) { return facts_in<gemm::kNone>(PlainGemmPolicies{}, policy, l); }

}  // namespace accsum::cuda::gemm_tile
