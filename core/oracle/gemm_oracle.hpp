#pragma once
// The exact oracles of the gemm (float) and dgemm (double) families. Every product of two floats is exact in binary64;
// the entry alpha * sum_k a_ik b_kj + beta * c_ij is accumulated exactly in a superaccumulator
// (core/numerics/superacc.hpp; alpha*a*b enters as the exact pair TwoProduct(alpha*a, b)) and rounded
// ONCE, directly to float (rounding to double first and then to float would be a double
// rounding: the double is used only when it is not a float midpoint, else the sign of the exact
// remainder decides). Also the paper's "gold standard" (Badin et al. 2011, Sec. 3.1): float
// products summed in double.
// dgemm: every product of two doubles is exact in the dot superaccumulator (SuperaccDot, products
// down to 2^-2148); alpha*a enters as the exact pair TwoProduct(alpha, a) = h + l (exact while
// |h| >= 2^-969 and finite), so alpha*a*b = h*b + l*b; beta*c is one exact product. The exact
// entry is rounded once to double by the superaccumulator. An entry where a TwoProduct would not
// be exact is summed by MPFR instead (each term exact at 160 bits, mpfr_sum at the precision the
// terms' exponent range needs, then mpfr_get_d: one rounding, subnormals included).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/oracle/oracle.hpp"
#include "core/numerics/superacc.hpp"
#include "base/vocabulary.hpp"

namespace accsum {

template <class F>
struct GemmExactOf {
  int64_t rows = 0, cols = 0, inner = 0;
  std::vector<int64_t> columns;  // the judged columns: all, or an even sample for huge products
  // Per judged entry, column-major over `columns` (entry (i, t) at i + t*rows):
  std::vector<F> ref;            // RN_F(exact), with IEEE results for NaN / infinities
  std::vector<double> hi, lo;    // exact = hi + lo + (below 2^-53 |lo|): hi = RN(exact), lo = RN(exact - hi)
  std::vector<double> mass;      // sum_k |alpha a_ik b_kj| + |beta c_ij| (rounded)
  std::vector<double> gold;      // float: alpha * (sum_k fl32(a_ik b_kj) in double) + beta c_ij, in double
  std::vector<uint8_t> special;  // the exact IEEE result is NaN or an infinity
};
using GemmExact = GemmExactOf<float>;

// The exact value of a superaccumulator rounded once to float; hi, lo as in GemmExact.
float superacc_to_float(const Superacc& acc, double* hi, double* lo);

// Products above which only a sample of columns is judged (a multiple of 2^30 products).
constexpr double kGemmOracleBudget = 0x1p32;

template <class F = float>
ExactValue exact_gemm(const Dataset& d);

// Metrics of a column-major M x N result (see families/gemm/gemm.cpp for the definitions; errors in
// ulps of F).
template <class F = float>
Metrics measure_gemm(const Result& r, const ExactValue& ref);

}  // namespace accsum
