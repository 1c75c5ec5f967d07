/* The tiled SGEMM with selective compensation of families/gemm/gemm_serial.hpp (Badin, Bic,
 * Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs", 2011, Figs. 1-3)
 * in OpenCL C, launched by backends/opencl/gemm_cl.cpp: a 16 x 16 work-group stages 16 x 16 tiles
 * of A and B in local memory; each work-item owns one entry and receives its products in the
 * order k = 0..K-1 with the definition's operations (core/numerics/compensated.h: FP_CONTRACT OFF, fma()
 * only where fma_on).
 */
#include "core/numerics/compensated.h"
#define TS 16
__kernel void sgemm_tiled(int M, int N, int K, float alpha, float beta, __global const float* A,
                          __global const float* B, __global const float* C, __global float* out, int comp, int tile,
                          int fma_on) {
  __local float As[TS][TS]; /* As[k][m] */
  __local float Bs[TS][TS]; /* Bs[n][k] */
  const int li = get_local_id(0), lj = get_local_id(1);
  const int i = get_group_id(0) * TS + li, j = get_group_id(1) * TS + lj;
  float s = 0.0f, c = 0.0f, p = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TS) {
    As[lj][li] = (i < M && k0 + lj < K) ? A[i + (size_t)(k0 + lj) * M] : 0.0f;
    Bs[lj][li] = (k0 + li < K && j < N) ? B[(k0 + li) + (size_t)j * K] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int kmax = min(TS, K - k0);
    if (alpha != 0.0f) {
      for (int kk = 0; kk < kmax; ++kk) {
        const int k = k0 + kk;
        if (comp == 0) {
          s = accsum_mul_add_f32(As[kk][li], Bs[lj][kk], s, fma_on);
        } else {
          p = accsum_mul_add_f32(As[kk][li], Bs[lj][kk], p, fma_on);
          if ((k + 1) % tile == 0 || k + 1 == K) {
            accsum_comp_add_f32(comp, &s, &c, p);
            p = 0.0f;
          }
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i >= M || j >= N) return;
  if (comp != 0 && alpha != 0.0f && !isfinite(s)) { /* IEEE specials: recompute plainly */
    s = 0.0f;
    for (int k = 0; k < K; ++k) s = accsum_mul_add_f32(A[i + (size_t)k * M], B[k + (size_t)j * K], s, fma_on);
  }
  const size_t o = i + (size_t)j * M;
  float r;
  if (alpha == 0.0f)
    r = beta == 0.0f ? 0.0f : beta * C[o];
  else if (beta == 0.0f)
    r = alpha * s;
  else {
    float bc = beta * C[o];
    if (fma_on)
      r = fma(alpha, s, bc);
    else {
      float as = alpha * s;
      r = as + bc;
    }
  }
  out[o] = r;
}
