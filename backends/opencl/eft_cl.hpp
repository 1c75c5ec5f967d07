#pragma once
// OpenCL C prelude every accsum kernel source starts with: fp64 on, contraction off, and the
// error-free transforms of core/eft.hpp in OpenCL C (same formulas, seed 000 §2).
namespace accsum::opencl {
inline const char* eft_prelude = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
inline void two_sum(double a, double b, double* s, double* e) {
  double t = a + b; double v = t - a;
  *e = (a - (t - v)) + (b - v); *s = t;
}
inline void fast_two_sum(double a, double b, double* s, double* e) {
  double t = a + b; *e = b - (t - a); *s = t;
}
inline void split(double a, double* hi, double* lo) {
  double c = 134217729.0 * a; double h = c - (c - a); *hi = h; *lo = a - h;
}
inline void two_prod_dekker(double a, double b, double* p, double* e) {
  double q = a * b, a1, a2, b1, b2;
  split(a, &a1, &a2); split(b, &b1, &b2);
  *e = a2 * b2 - (((q - a1 * b1) - a2 * b1) - a1 * b2); *p = q;
}
inline void two_prod_fma(double a, double b, double* p, double* e) {
  double q = a * b; *e = fma(a, b, -q); *p = q;
}
)CLC";
}  // namespace accsum::opencl
