/* core/numerics/compensated.h: the binary32 steps of SGEMM with selective compensation (Badin, Bic,
 * Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs", 2011, Figs. 1-3),
 * defined once for the serial definition (families/gemm/gemm_serial.hpp, which the cpu, cpu-mt and
 * CUDA kernels call) and the OpenCL kernel (backends/opencl/kernels/gemm.cl). Same subset and macro
 * layer as core/numerics/numerics.h. Plain float operators: every build forbids contraction
 * (-ffp-contract=off, --fmad=false, FP_CONTRACT OFF), so fma appears only where fma_on asks for it.
 */
#ifndef ACCSUM_CORE_COMPENSATED_H
#define ACCSUM_CORE_COMPENSATED_H

#include "core/numerics/numerics.h"

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define ACCSUM_FMAF(a, b, c) fma((a), (b), (c))
#define ACCSUM_FABSF(x) fabs(x)
#else
#define ACCSUM_FMAF(a, b, c) fmaf((a), (b), (c))
#define ACCSUM_FABSF(x) fabsf(x)
#endif

/* The compensations of accsum_comp_add_f32 (0: none, plain recursive summation). */
#define ACCSUM_COMP_NONE 0
#define ACCSUM_COMP_KAHAN 1
#define ACCSUM_COMP_DCS 2

/* One product accumulated into p: fused (fma_on) or rounded first. */
ACCSUM_FN float accsum_mul_add_f32(float a, float b, float p, int fma_on) {
  if (fma_on) return ACCSUM_FMAF(a, b, p);
  float prod = a * b;
  return p + prod;
}

/* Kahan's compensated summation (Fig. 3), one step with summand x. */
ACCSUM_FN void accsum_kahan_add_f32(float* s, float* c, float x) {
  float temp = *s;
  float y = x + *c;
  *s = temp + y;
  *c = (temp - *s) + y;
}

/* Priest's doubly compensated summation (Fig. 1 lines 5-11), one step: summand x into the running
 * sum s with compensation c; with Fig. 2's ordering of total and partial. */
ACCSUM_FN void accsum_dcs_add_f32(float* s, float* c, float x) {
  float big = *s, small = x;
  if (!(ACCSUM_FABSF(*s) >= ACCSUM_FABSF(x))) { /* Fig. 2 line 10: dcsum(2, partialSum, total) */
    big = x;
    small = *s;
  }
  float y = *c + small;       /* line 5 */
  float u = small - (y - *c); /* line 6 */
  float t = y + big;          /* line 7 */
  float v = y - (t - big);    /* line 8 */
  float z = u + v;            /* line 9 */
  *s = t + z;                 /* line 10 */
  *c = z - (*s - t);          /* line 11 */
}

/* The step of compensation comp (ACCSUM_COMP_KAHAN or ACCSUM_COMP_DCS). */
ACCSUM_FN void accsum_comp_add_f32(int comp, float* s, float* c, float x) {
  if (comp == ACCSUM_COMP_KAHAN)
    accsum_kahan_add_f32(s, c, x);
  else
    accsum_dcs_add_f32(s, c, x);
}

#endif /* ACCSUM_CORE_COMPENSATED_H */
