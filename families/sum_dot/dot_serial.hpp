#pragma once
// The serial dot products: the readable definitions the faster versions are tested against.
// Special values and the sign of zero follow the plain dot (see families/sum_dot/sum_serial.hpp): an inf or
// NaN input makes the error terms NaN (fma(inf, 1, -inf)), so the compensated result defers to
// the plain dot whenever that is not finite or is -0.
//
// Domain of DotK (ORO 2005 §5): no overflow anywhere, and exact TwoProducts. A product that
// overflows is outside it (the plain dot is then +-inf and is returned). Dekker's Split also
// overflows, into NaN, when |x_i| or |y_i| exceeds DBL_MAX / (2^27 + 1) (about 2^996) although
// the product may be finite: DotK with twoprod=dekker returns that NaN rather than hide it. Both
// TwoProducts are exact when e_a + e_b >= -970 (the exponents of a and b: then a*b - p is a
// multiple of 2^-1074 and fits), roughly |x_i y_i| >= 2^-969; below that the error term loses
// bits, and the bound in families/sum_dot/sum_bounds.hpp adds a few smallest subnormals per product for it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/numerics/eft.hpp"
#include "families/sum_dot/sum_serial.hpp"

namespace accsum {

// How DotK forms the exact product a*b = p + e.
enum class TwoProd { fma, dekker };

inline TwoProd two_prod_from_name(const std::string& name) { return name == "dekker" ? TwoProd::dekker : TwoProd::fma; }

ACCSUM_HD void two_prod(TwoProd how, double a, double b, double& p, double& e) {
  if (how == TwoProd::fma)
    two_prod_fma(a, b, p, e);
  else
    two_prod_dekker(a, b, p, e);
}

// Recursive dot product, left to right: ((x_0 y_0 + x_1 y_1) + x_2 y_2) + ... The empty dot is +0.
inline double dot_naive(const double* x, const double* y, int64_t n) {
  if (n <= 0) return 0.0;
  double s = x[0] * y[0];
  for (int64_t i = 1; i < n; ++i) s += x[i] * y[i];
  return s;
}

// ---- DotK (Ogita, Rump, Oishi 2005, Alg. 5.10; Suzuki, "Parallel algorithms for accurate summation and dot product on
// the GPU") ---- TwoProduct splits each x_i y_i into h + r_i; a TwoSum cascade adds up the h's, leaving its errors in
// r_{n+1..2n-1} and the plain dot in r_{2n}; then SumK(r, K-1) over the 2n terms, whose exact sum is x.y. The readable
// definition, on a vector of 2n terms, K >= 2.
inline double dot_k_reference(const double* x, const double* y, int64_t n, int K, TwoProd how) {
  if (n <= 0) return 0.0;
  std::vector<double> r(2 * n);
  double p, h;
  two_prod(how, x[0], y[0], p, r[0]);  // [p, r_1] = TwoProduct(x_1, y_1)
  for (int64_t i = 1; i < n; ++i) {
    two_prod(how, x[i], y[i], h, r[i]);  // [h, r_i] = TwoProduct(x_i, y_i)
    two_sum(p, h, p, r[n + i - 1]);      // [p, r_{n+i-1}] = TwoSum(p, h)
  }
  r[2 * n - 1] = p;                              // r_{2n} = p
  return ieee_fixup(sum_k_passes(r, K - 2), p);  // SumK(r, K-1): K-2 VecSum passes; p is the plain dot
}

// DotK without the 2n-vector, bitwise identical to dot_k_reference: the terms r_1..r_2n are fed
// in their order into a SumK stream (families/sum_dot/sum_serial.hpp), reading the input twice: first the
// product errors r_1..r_n, then the cascade's errors r_{n+1}..r_{2n-1} (its products p = fl(x_i
// y_i) recomputed: the same bits) and r_{2n}.
inline double dot_k(const double* x, const double* y, int64_t n, int K, TwoProd how) {
  if (K < 2 || K - 2 > SumKStream::kMaxPasses) throw std::invalid_argument("dot_k: K out of [2, 66]");
  if (n <= 0) return 0.0;
  SumKStream st(K - 2);
  for (int64_t i = 0; i < n; ++i) {
    double h, e;
    two_prod(how, x[i], y[i], h, e);
    st.add(e);
  }
  double p = x[0] * y[0];
  for (int64_t i = 1; i < n; ++i) {
    double e;
    two_sum(p, x[i] * y[i], p, e);
    st.add(e);
  }
  st.add(p);
  return ieee_fixup(st.finish(), p);
}

}  // namespace accsum
