// The OpenCL backend's self-test (backends/opencl/backend_opencl.cpp): the error-free transforms of
// core/numerics/numerics.h on the device, on inputs whose exact results are known
// (in = {1, 2^-60, 2^53, 2^-30}); ok[0] is cleared when one differs.
#include "core/numerics/numerics.h"
__kernel void eft_self_test(__global const double* in, __global int* ok) {
  double one = in[0], tiny = in[1], big = in[2], s, e, p;
  int good = 1;
  accsum_two_sum(one, tiny, &s, &e);
  good &= (s == 1.0 && e == tiny);
  accsum_two_sum(big, one, &s, &e);
  good &= (s == big && e == 1.0);
  double a = one + in[3], b = one - in[3];
  accsum_two_prod_dekker(a, b, &p, &e);
  good &= (p == 1.0 && e == -in[1]);
  accsum_two_prod_fma(a, b, &p, &e);
  good &= (p == 1.0 && e == -in[1]);
  if (!good) ok[0] = 0;
}
