/* The tiled SGEMM with selective compensation of families/gemm/gemm_serial.hpp (Badin, Bic,
 * Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs", 2011, Figs. 1-3)
 * in OpenCL C, launched by backends/opencl/gemm_cl.cpp: a 16 x 16 work-group stages 16 x 16 tiles
 * of A and B in local memory; each work-item owns one entry and receives its products in the
 * order k = 0..K-1 with the definition's operations (FP_CONTRACT OFF, fma() only where fma_on).
 */
#pragma OPENCL FP_CONTRACT OFF
#define TS 16
float mul_add(float a, float b, float p, int fma_on) {
  if (fma_on) return fma(a, b, p);
  float prod = a * b;
  return p + prod;
}
void comp_add(int comp, float* s, float* c, float x) {
  if (comp == 1) { /* Kahan, Fig. 3 */
    float temp = *s;
    float y = x + *c;
    *s = temp + y;
    *c = (temp - *s) + y;
    return;
  }
  float big = *s, small = x; /* Priest's DCS, Fig. 1 lines 5-11, Fig. 2's ordering */
  if (!(fabs(*s) >= fabs(x))) {
    big = x;
    small = *s;
  }
  float y = *c + small;
  float u = small - (y - *c);
  float t = y + big;
  float v = y - (t - big);
  float z = u + v;
  *s = t + z;
  *c = z - (*s - t);
}
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
          s = mul_add(As[kk][li], Bs[lj][kk], s, fma_on);
        } else {
          p = mul_add(As[kk][li], Bs[lj][kk], p, fma_on);
          if ((k + 1) % tile == 0 || k + 1 == K) {
            comp_add(comp, &s, &c, p);
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
    for (int k = 0; k < K; ++k) s = mul_add(A[i + (size_t)k * M], B[k + (size_t)j * K], s, fma_on);
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
