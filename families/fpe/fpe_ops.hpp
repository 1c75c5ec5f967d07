#pragma once
// Arithmetic on R-term floating-point expansions (R <= 32): the readable definitions of the
// `fpe` family's algorithms. An expansion u_0, ..., u_{R-1} is ulp-nonoverlapping when, after
// removing its zeros, |u_i| <= ulp(u_{i-1}) (Collange, Joldes, Muller, Popescu, "Parallel
// floating-point expansions for extended-precision GPU computations", ASAP 2016, Def. II.2).
//
// The data-parallel algorithms of that paper work on vectors of R lanes (one term per lane, a
// GPU warp or a SIMD register); they are written here exactly as vector operations on arrays
// `v[0..R)`: every lane-wise operation is a loop over the lanes, every shuffle a shift, every
// warp vote an any(). The CUDA and cpu-mt versions must reproduce these bits.
//
// EFTs are exact without overflow (core/numerics/eft.hpp); the proofs also use |err| <= 2^-p |result|,
// which holds for additions at every magnitude and for products that do not underflow.
#include <cstdint>

#include "core/numerics/eft.hpp"
#include "base/hd.hpp"

namespace accsum::fpe {

constexpr int kMaxR = 32;

ACCSUM_HD bool valid_r(int R) { return R == 2 || R == 4 || R == 8 || R == 16 || R == 32; }

// The lane operations of the algorithms below, for lanes of one double each. The algorithms
// take them as a parameter L (L::V the lane type; L::two_sum, L::add lane-wise; L::zero), so
// that the same text also runs on SIMD vectors holding that lane of several expansions
// (backends/cpu_mt/fpe_simd.hpp). RC > 0 fixes R at compile time (the lanes then live in
// registers); RC == 0 takes R at run time.
struct DoubleLanes {
  using V = double;
  ACCSUM_HD static V zero() { return 0.0; }
  ACCSUM_HD static void two_sum(V a, V b, V& s, V& e) { accsum::two_sum(a, b, s, e); }
  ACCSUM_HD static V add(V a, V b) { return a + b; }
};
template <int RC>
constexpr int lanes_capacity() {
  return RC > 0 ? RC : kMaxR;
}

// e' <- (in, e_0, ..., e_{R-2}): the vector shifted one lane up ("shift right" in the paper),
// lane 0 receiving `in`; e_{R-1} leaves the vector (truncation).
template <class L = DoubleLanes>
ACCSUM_HD void shift_up(const typename L::V* e, typename L::V in, typename L::V* out, int R) {
  for (int l = R - 1; l > 0; --l) out[l] = e[l - 1];
  out[0] = in;
}

ACCSUM_HD bool any_nonzero(const double* v, int R) {
  bool any = false;
  for (int l = 0; l < R; ++l) any = any || (v[l] != 0.0);  // NaN != 0: a NaN counts as nonzero
  return any;
}

// The R-2 error-propagation steps with zero inserted, then the last step as a plain addition:
// the common tail of add_safe and add_fast.
template <int RC = 0, class L = DoubleLanes>
ACCSUM_HD void settle(typename L::V* s, typename L::V* e, int R_rt) {
  const int R = RC > 0 ? RC : R_rt;
  typename L::V ep[lanes_capacity<RC>()];
  for (int i = 1; i <= R - 2; ++i) {
    shift_up<L>(e, L::zero(), ep, R);
    for (int l = 0; l < R; ++l) L::two_sum(s[l], ep[l], s[l], e[l]);
  }
  shift_up<L>(e, L::zero(), ep, R);
  for (int l = 0; l < R; ++l) s[l] = L::add(s[l], ep[l]);
}

// Algorithm 1 (safe data-parallel addition), Collange et al. 2016, Sec. III:
//   (s, e) <- 2Sum((x_0, 0, ..), (y_0, 0, ..));
//   for i = 1 .. R-1: insert x_i below the shifted errors, 2Sum; the same with y_i;
//   R-2 more steps inserting 0; a last step with a plain addition.
// (The listing's "for i <- 1 to R" inserts the R-1 remaining terms x_1..x_{R-1}; the text says the
// errors then travel "another R-1 steps", the last one without EFT, which is lines 10-15.)
template <int RC = 0, class L = DoubleLanes>
ACCSUM_HD void add_safe(const typename L::V* x, const typename L::V* y, typename L::V* s, int R_rt) {
  const int R = RC > 0 ? RC : R_rt;
  typename L::V e[lanes_capacity<RC>()], ep[lanes_capacity<RC>()];
  for (int l = 0; l < R; ++l) L::two_sum(l == 0 ? x[0] : L::zero(), l == 0 ? y[0] : L::zero(), s[l], e[l]);
  for (int i = 1; i < R; ++i) {
    shift_up<L>(e, x[i], ep, R);
    for (int l = 0; l < R; ++l) L::two_sum(s[l], ep[l], s[l], e[l]);
    shift_up<L>(e, y[i], ep, R);
    for (int l = 0; l < R; ++l) L::two_sum(s[l], ep[l], s[l], e[l]);
  }
  settle<RC, L>(s, e, R);
}

// The fast relaxed addition (Collange et al. 2016, Sec. III, Fig. 5). The paper gives it as a
// figure only: "at most R-1 steps ... the last step using only simple addition ... performs best
// when FP expansions of the same sign and close magnitudes are added ... does not ensure the
// correct result when cancellation occurs". Our reading of Fig. 5 (R = 4):
//   (s, e) <- 2Sum(x, y)                       lane-wise: term i of x with term i of y;
//   R-2 steps  e' <- (0, e_0, .., e_{R-2}); (s, e) <- 2Sum(s, e')   errors climb one lane;
//   1 step     s <- s + (0, e_0, .., e_{R-2})                      plain addition.
// R-1 error-propagation steps are exactly what carries an error born in lane 0 down to lane R-1.
// No renormalisation: after cancellation (x_0 + y_0 = 0) lane 0 holds 0 and the result is not an
// ulp-nonoverlapping expansion, and its error is not bounded relative to the sum. No bound is
// proven in the paper; none is claimed here.
template <int RC = 0, class L = DoubleLanes>
ACCSUM_HD void add_fast(const typename L::V* x, const typename L::V* y, typename L::V* s, int R_rt) {
  const int R = RC > 0 ? RC : R_rt;
  typename L::V e[lanes_capacity<RC>()];
  for (int l = 0; l < R; ++l) L::two_sum(x[l], y[l], s[l], e[l]);
  settle<RC, L>(s, e, R);
}

// Error propagation loop of Algorithm 2 (lines 9-12 / 13-16): while any lane of e is nonzero,
// (s, e) <- 2Sum(s, e) and e moves one lane up, lane 0 receiving 0. With finite values lane
// k of e is zero after k+1 rounds, so the loop ends within R rounds; the cap R only matters for
// NaN (NaN != 0 would loop forever) and does not change finite results.
ACCSUM_HD void propagate(double* s, double* e, int R) {
  double t[kMaxR];
  for (int round = 0; round < R && any_nonzero(e, R); ++round) {
    for (int l = 0; l < R; ++l) two_sum(s[l], e[l], s[l], e[l]);
    shift_up(e, 0.0, t, R);
    for (int l = 0; l < R; ++l) e[l] = t[l];
  }
}

// Renormalisation of an R-term vector into an expansion, error-free: VecSum from the bottom
// (Ogita, Rump, Oishi 2005, Alg. 4.3) then VecSumErrBranch (Joldes, Marty, Muller, Popescu,
// "Arithmetic algorithms for extended precision using floating-point expansions", IEEE TC 2016,
// Alg. 7), with 2Sum in place of Fast2Sum so that every step is an EFT whatever the order of the
// input. VecSumErrBranch emits a term only when the carried error is nonzero, so R terms in give
// at most R terms out: nothing is dropped and the value is unchanged exactly.
ACCSUM_HD void renormalize(double* v, int n_in, double* out, int R) {
  // v: n_in terms (modified); out: R terms.
  for (int i = n_in - 2; i >= 0; --i) two_sum(v[i], v[i + 1], v[i], v[i + 1]);
  double eps = v[0];
  int j = 0;
  for (int l = 0; l < R; ++l) out[l] = 0.0;
  for (int i = 1; i < n_in; ++i) {
    double r, err;
    two_sum(eps, v[i], r, err);
    if (err != 0.0) {
      out[j] = r;
      if (j == R - 1) return;  // n_in > R only: the remaining terms are truncated
      ++j;
      eps = err;
    } else {
      eps = r;
    }
  }
  out[j] = eps;
}

// Algorithm 2 (data-parallel multiplication), Collange et al. 2016, Sec. IV, as the CUDA code of
// Fig. 7: for i = 0..R-2, lane l adds x_l * y_i (2MultFMA) to the partial result of order i+l,
// the order-i term leaves as pi_i, and the product and 2Sum errors are propagated to the next
// lanes; the last row uses plain products and additions. renorm: renormalise pi at the end (the
// paper's remedy for |pi_i| < |pi_j|, i < j, after cancellation); it is error-free here.
ACCSUM_HD void mul(const double* x, const double* y, double* pi, int R, bool renorm) {
  double s[kMaxR], e[kMaxR], ep[kMaxR], r[kMaxR], t[kMaxR];
  for (int l = 0; l < R; ++l) s[l] = r[l] = 0.0;
  for (int i = 0; i < R - 1; ++i) {
    const double yi = y[i];  // broadcast
    for (int l = 0; l < R; ++l) {
      double p;
      two_prod_fma(x[l], yi, p, e[l]);
      two_sum(s[l], p, s[l], ep[l]);
    }
    r[i] = s[0];
    for (int l = 0; l < R - 1; ++l) s[l] = s[l + 1];  // shift down
    s[R - 1] = 0.0;
    propagate(s, e, R);
    propagate(s, ep, R);
  }
  const double ylast = y[R - 1];
  for (int l = 0; l < R; ++l) s[l] = s[l] + x[l] * ylast;
  r[R - 1] = s[0];
  if (renorm) {
    for (int l = 0; l < R; ++l) t[l] = r[l];
    renormalize(t, R, pi, R);
  } else {
    for (int l = 0; l < R; ++l) pi[l] = r[l];
  }
}

// ---- sequential baselines, one expansion per thread, in the style of CAMPARY (Joldes et al.,
// IEEE TC 2016): merge or form the terms, then renormalise with VecSum + VecSumErrBranch.

// Addition: merge x and y by decreasing magnitude (each is already ordered; zeros last), then
// renormalise the 2R terms to R.
ACCSUM_HD void seq_add(const double* x, const double* y, double* s, int R) {
  double t[2 * kMaxR];
  int i = 0, j = 0, k = 0;
  auto mag = [](double v) { return v < 0 ? -v : v; };
  // Zeros (interleaved) sort to the end: compare magnitudes treating 0 as smallest.
  while (i < R && j < R) t[k++] = mag(x[i]) >= mag(y[j]) ? x[i++] : y[j++];
  while (i < R) t[k++] = x[i++];
  while (j < R) t[k++] = y[j++];
  renormalize(t, 2 * R, s, R);
}

// Multiplication: the products x_i y_j of order i + j <= R-1 with 2MultFMA (product of order k,
// error of order k+1), the products of order R plainly, listed by order, then renormalised to R.
ACCSUM_HD void seq_mul(const double* x, const double* y, double* pi, int R) {
  double t[kMaxR * (kMaxR + 1) + kMaxR + 1];
  double prev[kMaxR], cur[kMaxR];
  int m = 0, n_prev = 0;
  for (int k = 0; k <= R; ++k) {
    int n_cur = 0;
    for (int i = 0; i <= k; ++i) {
      const int j = k - i;
      if (i >= R || j >= R) continue;
      if (k < R) {
        double p;
        two_prod_fma(x[i], y[j], p, cur[n_cur++]);
        t[m++] = p;
      } else {
        t[m++] = x[i] * y[j];
      }
    }
    for (int q = 0; q < n_prev; ++q) t[m++] = prev[q];  // errors of order k
    for (int q = 0; q < n_cur; ++q) prev[q] = cur[q];
    n_prev = n_cur;
  }
  renormalize(t, m, pi, R);
}

}  // namespace accsum::fpe
