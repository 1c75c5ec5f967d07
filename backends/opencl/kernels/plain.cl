// The OpenCL baseline: a plain parallel sum and dot, no more accurate than recursive summation
// (scheme and launch shape: backends/opencl/plain_cl.cpp). numerics.h brings fp64 and
// FP_CONTRACT OFF: a dot's x[i] * y[i] + acc stays two roundings, as on every other backend.
// Build options: -DVW (2, 4 or 8) -DUNROLL -DLS (the work-group size, a power of two) -DSTRIDED -DDOT.
// offline-check: -DVW=2 -DUNROLL=4 -DLS=256 -DSTRIDED=1 -DDOT=0
// offline-check: -DVW=2 -DUNROLL=4 -DLS=256 -DSTRIDED=1 -DDOT=1
// offline-check: -DVW=8 -DUNROLL=4 -DLS=1 -DSTRIDED=0 -DDOT=0
// offline-check: -DVW=8 -DUNROLL=4 -DLS=1 -DSTRIDED=0 -DDOT=1
#include "core/numerics/numerics.h"
#if VW == 2
typedef double2 vec_t;
#define HSUM(v) ((v).lo + (v).hi)
#elif VW == 4
typedef double4 vec_t;
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#else
typedef double8 vec_t;
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#endif
#if DOT
#define TERM(i) (xv[i] * yv[i])
#define SCALAR(i) (x[i] * y[i])
#else
#define TERM(i) (xv[i])
#define SCALAR(i) (x[i])
#endif

// Tree over the work-group's values in local memory (LS a power of two); lid 0 gets the total.
inline double group_sum(double s, __local double* sh) {
  const int lid = get_local_id(0);
  sh[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = LS / 2; d > 0; d >>= 1) {
    if (lid < d) sh[lid] += sh[lid + d];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return sh[0];
}

// Accumulators start at -0, the identity of IEEE addition (all -0 terms sum to -0).
__kernel void plain_stage1(__global const double* x, __global const double* y, long n, __global double* partial) {
  __local double sh[LS];
  __global const vec_t* xv = (__global const vec_t*)x;
  __global const vec_t* yv = (__global const vec_t*)y;
  const long nv = n / VW, g = get_global_id(0), G = get_global_size(0);
  vec_t acc[UNROLL];
  for (int u = 0; u < UNROLL; ++u) acc[u] = (vec_t)(-0.0);
#if STRIDED
  long i = g;
  for (; i + (UNROLL - 1) * G < nv; i += UNROLL * G)
    for (int u = 0; u < UNROLL; ++u) acc[u] += TERM(i + u * G);
  for (; i < nv; i += G) acc[0] += TERM(i);
#else
  long i = nv * g / G;
  const long end = nv * (g + 1) / G;
  for (; i + UNROLL <= end; i += UNROLL)
    for (int u = 0; u < UNROLL; ++u) acc[u] += TERM(i + u);
  for (; i < end; ++i) acc[0] += TERM(i);
#endif
  for (int w = UNROLL / 2; w > 0; w /= 2)
    for (int u = 0; u < w; ++u) acc[u] += acc[u + w];
  double s = HSUM(acc[0]);
  for (long t = nv * VW + g; t < n; t += G) s += SCALAR(t);
  s = group_sum(s, sh);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = s;
}

__kernel void plain_stage2(__global const double* partial, int count, __global double* result) {
  __local double sh[LS];
  double s = -0.0;
  for (int i = get_local_id(0); i < count; i += LS) s += partial[i];
  s = group_sum(s, sh);
  if (get_local_id(0) == 0) result[0] = s;
}
