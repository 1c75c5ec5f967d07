// The tiled SGEMM kernels, products summed plainly: every policy of PlainGemmPolicies
// (agent/gemm_policy.cuh) with fma 0 and 1, in a translation unit of their own so that
// compile time per file stays bounded (device/gemm_tile_dispatch.cuh).
#include "backends/cuda/device/gemm_tile_dispatch.cuh"

namespace accsum::cuda::gemm_tile {

std::vector<PolicyInfo> plain_policies() { return infos_of<gemm::kNone>(PlainGemmPolicies{}); }
void plain_launch(int policy, const Launch& l) {
  if (l.fma)
    launch_in<gemm::kNone, true>(PlainGemmPolicies{}, policy, l);
  else
    launch_in<gemm::kNone, false>(PlainGemmPolicies{}, policy, l);
}
KernelFacts plain_facts(int policy, const Launch& l) {
  return l.fma ? facts_in<gemm::kNone, true>(PlainGemmPolicies{}, policy, l)
               : facts_in<gemm::kNone, false>(PlainGemmPolicies{}, policy, l);
}

}  // namespace accsum::cuda::gemm_tile
