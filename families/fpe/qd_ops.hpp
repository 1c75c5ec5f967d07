#pragma once
// Double-double and quad-double addition and multiplication as described by Hida, Li, Bailey,
// "Algorithms for quad-double precision floating point arithmetic", ARITH-15 2001 (Sec. 3-5):
// the fast ("sloppy", Cray-style) variants that the QD library uses by default. Written from
// the paper's descriptions for device code (the cuda backend's fpe-qd-add / fpe-qd-mul); the
// cpu backend calls the QD library itself, and the tests hold these to its bits.
//
// Two-Prod is 2MultFMA here and Dekker's product in QD: both give the exact error of a*b when
// nothing underflows or overflows, so the bits agree on the fpe family's domain.
#include <limits>

#include "core/numerics/eft.hpp"
#include "base/hd.hpp"

namespace accsum::qd {

// Three-Sum (Hida et al., Sec. 4.2): (a, b, c) <- a + b + c as three terms, error-free.
ACCSUM_HD void three_sum(double& a, double& b, double& c) {
  double t1, t2, t3;
  two_sum(a, b, t1, t2);
  two_sum(c, t1, a, t3);
  two_sum(t2, t3, b, c);
}

// Three-Sum-2: the same with the last error folded into b by a plain addition.
ACCSUM_HD void three_sum2(double& a, double& b, double c) {
  double t1, t2, t3;
  two_sum(a, b, t1, t2);
  two_sum(c, t1, a, t3);
  b = t2 + t3;
}

// Renormalisation of five overlapping terms into a quad-double (Hida et al., Sec. 3, the
// Renormalize algorithm): Quick-Two-Sum from the bottom, then from the top, emitting a term
// whenever the error is nonzero (a zero error stays in the next slot, its sign included); once
// the fourth term is being formed, the remaining error is dropped.
// A leading infinity is returned as it is.
ACCSUM_HD void renorm(const double c_in[5], double out[4]) {
  double c[5] = {c_in[0], c_in[1], c_in[2], c_in[3], c_in[4]};
  for (int i = 0; i < 4; ++i) out[i] = c[i];
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (c[0] == inf || c[0] == -inf) return;
  double s = c[4];
  for (int i = 3; i >= 1; --i) fast_two_sum(c[i], s, s, c[i + 1]);
  fast_two_sum(c[0], s, c[0], c[1]);
  for (int i = 0; i < 4; ++i) out[i] = 0.0;
  s = c[0];
  int k = 0;
  for (int i = 1; i <= 4; ++i) {
    double e;
    fast_two_sum(s, c[i], s, e);
    if (k == 3) break;  // the last slot: its error is dropped
    out[k + 1] = e;
    if (e != 0.0) {
      out[k++] = s;
      s = e;
    }
  }
  out[k] = s;
}

// Double-double addition (sloppy): TwoSum of the leading terms, the trailing terms added to its
// error, then Quick-Two-Sum.
ACCSUM_HD void dd_add(const double* a, const double* b, double* s) {
  double e;
  two_sum(a[0], b[0], s[0], e);
  e = e + (a[1] + b[1]);
  fast_two_sum(s[0], e, s[0], s[1]);
}

// Double-double multiplication: Two-Prod of the leading terms, the cross products added to its
// error, then Quick-Two-Sum.
ACCSUM_HD void dd_mul(const double* a, const double* b, double* p) {
  double e;
  two_prod_fma(a[0], b[0], p[0], e);
  e = e + (a[0] * b[1] + a[1] * b[0]);
  fast_two_sum(p[0], e, p[0], p[1]);
}

// Quad-double addition (Hida et al., Sec. 4.2, the first, Cray-style algorithm): TwoSum term by
// term, the errors merged into the next terms with Two-Sum, Three-Sum and Three-Sum-2, the rest
// added plainly, then renormalised.
ACCSUM_HD void qd_add(const double* a, const double* b, double* out) {
  double s[4], t[4];
  for (int i = 0; i < 4; ++i) two_sum(a[i], b[i], s[i], t[i]);
  two_sum(s[1], t[0], s[1], t[0]);
  three_sum(s[2], t[0], t[1]);
  three_sum2(s[3], t[0], t[2]);
  t[0] = t[0] + t[1] + t[3];
  const double c[5] = {s[0], s[1], s[2], s[3], t[0]};
  renorm(c, out);
}

// Quad-double multiplication (Hida et al., Sec. 5.2, the fast variant): the products of order
// 0, 1, 2 with Two-Prod, accumulated with Three-Sum and Six-Three-Sum; the order-3 products and
// the order-2 errors added plainly; order 4 neglected; then renormalised.
ACCSUM_HD void qd_mul(const double* a, const double* b, double* out) {
  double p[6], q[6];
  two_prod_fma(a[0], b[0], p[0], q[0]);
  two_prod_fma(a[0], b[1], p[1], q[1]);
  two_prod_fma(a[1], b[0], p[2], q[2]);
  two_prod_fma(a[0], b[2], p[3], q[3]);
  two_prod_fma(a[1], b[1], p[4], q[4]);
  two_prod_fma(a[2], b[0], p[5], q[5]);
  // Order 1: p1 + p2 + q0 -> (p1, p2, q0).
  three_sum(p[1], p[2], q[0]);
  // Order 2, Six-Three-Sum of p2, q1, q2, p3, p4, p5 -> (s0, s1, s2).
  three_sum(p[2], q[1], q[2]);
  three_sum(p[3], p[4], p[5]);
  double s0, s1, s2, t0, t1;
  two_sum(p[2], p[3], s0, t0);
  two_sum(q[1], p[4], s1, t1);
  s2 = q[2] + p[5];
  two_sum(s1, t0, s1, t0);
  s2 = s2 + (t0 + t1);
  // Order 3, plainly.
  s1 = s1 + (a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0] + q[0] + q[3] + q[4] + q[5]);
  const double c[5] = {p[0], p[1], s0, s1, s2};
  renorm(c, out);
}

// R-term expansions through QD: double-double for R = 2, quad-double for R = 4; for R >= 8 the
// leading four terms of each input as a quad-double, the result's other terms zero (QD has no
// longer type).
ACCSUM_HD void add(const double* x, const double* y, double* s, int R) {
  if (R == 2) return dd_add(x, y, s);
  qd_add(x, y, s);
  for (int i = 4; i < R; ++i) s[i] = 0.0;
}

ACCSUM_HD void mul(const double* x, const double* y, double* p, int R) {
  if (R == 2) return dd_mul(x, y, p);
  qd_mul(x, y, p);
  for (int i = 4; i < R; ++i) p[i] = 0.0;
}

}  // namespace accsum::qd
