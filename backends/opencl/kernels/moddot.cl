/* moddot on OpenCL: the round-to-nearest lambda- and (alpha, beta, gamma, delta)-algorithms of
 * Jean, Graillat, "A parallel algorithm for dot product over word-size finite field using
 * floating-point arithmetic", SYNASC 2010, with the field operations and per-element steps of
 * core/numerics/modp.h (bounds derived in families/moddot/moddot.hpp). Each work-item sums a
 * grid-strided share of the products exactly, reduced mod p every lambda terms (lambda) or every
 * `block` terms (abgd); work-group residues are merged by addition mod p in local memory, the
 * group residues on the host (backends/opencl/moddot_cl.cpp).
 */
#include "core/numerics/numerics.h"
#include "core/numerics/modp.h"

void group_merge(double v, accsum_modp m, __local double* sh, __global double* out) {
  const int t = get_local_id(0);
  sh[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (t < s) sh[t] = accsum_modp_add(sh[t], sh[t + s], m);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = sh[0];
}

__kernel void moddot_abgd(__global const double* x, __global const double* y, long n, accsum_modp m, long block,
                          __global double* out, __local double* sh) {
  const long W = get_global_size(0);
  long i = get_global_id(0);
  double acc = 0;
  while (i < n) {
    double A = 0, B = 0, C = 0, D = 0;
    for (long c = 0; c < block && i < n; ++c, i += W) accsum_abgd_put(x[i], y[i], 0x1p79, &A, &B, &C, &D);
    acc = accsum_modp_add(acc, accsum_abgd_residue(A, B, C, D, m), m);
  }
  group_merge(acc, m, sh, out);
}

__kernel void moddot_lambda(__global const double* x, __global const double* y, long n, accsum_modp m,
                            __global double* out, __local double* sh) {
  const long W = get_global_size(0);
  long i = get_global_id(0);
  double Sa = 0, Sb = 0, Sr = 0;
  while (i < n) {
    double ca = 0, cb = 0, cr = 0;
    for (long c = 0; c < m.lambda && i < n; ++c, i += W) accsum_lambda_put(x[i], y[i], m, &ca, &cb, &cr);
    accsum_lambda_flush(m, &ca, &cb, &cr, &Sa, &Sb, &Sr);
  }
  group_merge(accsum_lambda_residue(Sa, Sb, Sr, m), m, sh, out);
}
