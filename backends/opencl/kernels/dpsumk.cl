/* dpsumk / dpdotk on OpenCL (backends/opencl/dpsumk_cl.cpp launches them): the operations of the
 * serial definitions in families/sum_dot/dpsum.hpp (same tree pairs, same lanes, same order), with
 * the per-element steps of core/numerics/dpsum.h, so results are bitwise those of the cpu
 * backend. Compile-time macros: KC (levels), DOT, DEKKER; LS (the work-group size, a power of
 * two); for the tree kernel PLAIN and SRC (0 in place, 1 copy of x, 2 DPDot's TwoProducts).
 */
// offline-check: -DKC=2 -DDOT=0 -DDEKKER=0 -DLS=256 -DPLAIN=0 -DSRC=0
// offline-check: -DKC=3 -DDOT=1 -DDEKKER=0 -DLS=256 -DPLAIN=0 -DSRC=2
// offline-check: -DKC=4 -DDOT=1 -DDEKKER=1 -DLS=128 -DPLAIN=0 -DSRC=2
// offline-check: -DKC=2 -DDOT=0 -DDEKKER=0 -DLS=256 -DPLAIN=1 -DSRC=0
// offline-check: -DKC=8 -DDOT=0 -DDEKKER=0 -DLS=64 -DPLAIN=0 -DSRC=1
#include "core/numerics/numerics.h"
#include "core/numerics/dpsum.h"

/* ---- fused: one lane per work-item, KC levels (core/numerics/dpsum.h) ---- */
inline void kf_elem(double* a, double x, double y) {
#if DOT
  accsum_kf_dot_elem(a, KC, x, y, DEKKER, 0);
#else
  accsum_kf_sum_elem(a, KC, x, 0);
#endif
}

// The work-group's lane tree (lanes l and l + w, w = 1, 2, ... < active) in local memory
// sh[k * LS + l]; the root state goes to out[k * ngroups + group].
inline void group_merge(double* a, int active, __local double* sh, __global double* out) {
  const int l = get_local_id(0);
  for (int k = 0; k < KC; ++k) sh[k * LS + l] = a[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = 1; w < active; w *= 2) {
    if ((l & (2 * w - 1)) == 0) {
      double b[KC];
      for (int k = 0; k < KC; ++k) {
        a[k] = sh[k * LS + l];
        b[k] = sh[k * LS + l + w];
      }
      accsum_kf_merge(a, b, KC, 0);
      for (int k = 0; k < KC; ++k) sh[k * LS + l] = a[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    for (int k = 0; k < KC; ++k) out[k * get_num_groups(0) + get_group_id(0)] = sh[k * LS];
}

__kernel void dp_fused(__global const double* x, __global const double* y, long n, long G, __global double* out,
                       __local double* sh) {
  double a[KC];
  accsum_kf_clear(a, KC);
  const long g = get_global_id(0);
  if (g < G) {
    const long groups = n / 2;
    long j = g;
    for (; j < groups; j += G) {
      kf_elem(a, x[2 * j], DOT ? y[2 * j] : 0.0);
      kf_elem(a, x[2 * j + 1], DOT ? y[2 * j + 1] : 0.0);
    }
    if ((n & 1) && j == groups) kf_elem(a, x[n - 1], DOT ? y[n - 1] : 0.0);
  }
  group_merge(a, G < LS ? (int)G : LS, sh, out);
}

__kernel void dp_merge(__global const double* in, long count, __global double* out, __local double* sh) {
  double a[KC];
  const long i = get_global_id(0);
  for (int k = 0; k < KC; ++k) a[k] = i < count ? in[k * count + i] : -0.0;
  group_merge(a, count < LS ? (int)count : LS, sh, out);
}

/* ---- tree: levels w = 1 .. 2 LS of a DPSum/DPRed pass over terms p[i * stride], i < N ---- */
inline void tree_node(double* a, double* b) { accsum_dp_node(a, b, PLAIN); }

__kernel void dp_tree(__global const double* x, __global const double* y, __global double* p, long N, long stride,
                      __global double* top, int top_index, __local double* sh) {
  const int t = get_local_id(0);
  const long i0 = get_group_id(0) * (4 * (long)LS) + 4 * (long)t;
  double v[4];
#if SRC == 2
  for (int q = 0; q < 2; ++q) {
    const long e = i0 / 2 + q;
    if (e < N / 2) {
#if DEKKER
      accsum_two_prod_dekker(x[e], y[e], &v[2 * q], &v[2 * q + 1]);
#else
      accsum_two_prod_fma(x[e], y[e], &v[2 * q], &v[2 * q + 1]);
#endif
    } else {
      v[2 * q] = v[2 * q + 1] = -0.0;
    }
  }
#else
  for (int q = 0; q < 4; ++q) v[q] = i0 + q < N ? (SRC == 1 ? x[i0 + q] : p[(i0 + q) * stride]) : -0.0;
  tree_node(&v[0], &v[1]);
  tree_node(&v[2], &v[3]);
#endif
  tree_node(&v[0], &v[2]);
  sh[t] = v[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = 1; w < LS; w *= 2) {
    if ((t & (2 * w - 1)) == 0) {
      double a = sh[t], b = sh[t + w];
      tree_node(&a, &b);
      sh[t] = a;
      sh[t + w] = b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  v[0] = sh[t];
#if PLAIN
  if (t == 0) {
    p[i0 * stride] = v[0];
    if (top_index >= 0) top[top_index] = v[0];
  }
#else
  for (int q = 0; q < 4; ++q)
    if (i0 + q < N) p[(i0 + q) * stride] = v[q];
  if (t == 0 && top_index >= 0) top[top_index] = v[0];
#endif
}
