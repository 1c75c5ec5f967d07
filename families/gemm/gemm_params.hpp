#pragma once
// The parameters every backend's sgemm / sgemm-kahan / sgemm-dcs take (families/gemm/gemm_serial.hpp).
#include "core/frame/registry.hpp"

namespace accsum::gemm {

inline ParamSpec tile_param() {
  return ParamSpec{"tile",
                   "products summed plainly before each compensated addition (Badin et al. 2011, Fig. 2's k; 1 = "
                   "compensate every addition)",
                   true,
                   1,
                   128,
                   {"1", "16", "32", "64", "128"},
                   "64"};
}
inline ParamSpec fma_param() {
  ParamSpec p{
      "fma", "1: accumulate products with fused multiply-add; 0: round each product first (the paper's Table 3)",
      true,  0,
      1,     {"0", "1"},
      "1"};
  p.verify_every_choice = true;
  return p;
}

}  // namespace accsum::gemm
