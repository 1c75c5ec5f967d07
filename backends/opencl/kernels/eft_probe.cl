// The error-free transforms of core/numerics/numerics.h on the device, one input pair per
// work-item, ten outputs each (tests/numerics/test_shared_corpus.cpp compares them with the host and the
// exact oracle).
#include "core/numerics/numerics.h"
__kernel void eft_probe(__global const double* a, __global const double* b, __global double* out) {
  const size_t i = get_global_id(0);
  double o[10];
  accsum_two_sum(a[i], b[i], &o[0], &o[1]);
  accsum_fast_two_sum(a[i], b[i], &o[2], &o[3]);
  accsum_split(a[i], &o[4], &o[5]);
  accsum_two_prod_dekker(a[i], b[i], &o[6], &o[7]);
  accsum_two_prod_fma(a[i], b[i], &o[8], &o[9]);
  for (int k = 0; k < 10; ++k) out[10 * i + k] = o[k];
}
