#pragma once
// The fpe-sum / fpe-dot step of families/sum_dot/fpe_sum.hpp, a <- Renormalize(Algorithm1(a, y)), with R fixed
// at compile time and written once for any lane type: a double (a GPU thread, a CPU core's
// leftovers) or a SIMD vector of lanes (backends/cpu_mt). Every array index is a compile-time
// constant, so the state stays in registers.
//
// Same values as the readable definition (fpe::add_safe + fpe::renormalize), up to the sign of
// zero terms (which no later nonzero value depends on, and which fpe_acc_finish decides anew):
//  - Algorithm 1 (Collange, Joldes, Muller, Popescu, ASAP 2016) with y = (y_0 .. y_{YK-1}, 0, ..)
//    inserts many operands that are exact zeros known at compile time (y's tail, the errors of
//    lanes not yet reached). A 2Sum with a zero operand returns the other operand and a zero
//    error, so SafePlan decides per (insertion, lane) whether the 2Sum is needed, is a move, or
//    is nothing; what is left is the readable definition's arithmetic on the other operands.
//  - Renormalize's VecSumErrBranch (Joldes, Marty, Muller, Popescu, IEEE TC 2016, Alg. 7) starts
//    with 2Sum(v_0, v_1) on the output of VecSum's last 2Sum: the identity, left out. Its output
//    index j depends on the data; out[l] is chosen by a compare with the constant l instead.
// On non-finite data the two may differ in which NaN or infinity they hold; the registry's IEEE
// rule (core/frame/ieee_special.hpp) replaces any non-finite result.
#include <type_traits>

#include "core/numerics/eft.hpp"
#include "base/hd.hpp"

namespace accsum::fpe_step {

// ---- compile-time loops ----
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <int B, int E, class F>
ACCSUM_HD void static_for(F&& f) {
  if constexpr (B < E) {
    f(std::integral_constant<int, B>{});
    static_for<B + 1, E>(f);
  }
}

// ---- Algorithm 1's plan: which 2Sums have no known-zero operand ----
enum Op : unsigned char { kNothing, kMove, kTwoSum };

template <int R, int YK>
struct SafePlan {
  static constexpr int kInserts = 2 * (R - 1) + (R - 2);  // x_i and y_i for i = 1..R-1, then R-2 zeros
  Op insert[kInserts][R];                                 // lane l at insertion k: s_l, e_l <- 2Sum(s_l, ep_l)
  Op last[R];                                             // s_l <- s_l + ep_l (kTwoSum here means the plain addition)
};

// Insertion k's operand for lane 0: x_{1+k/2} (k even), y_{1+k/2} (k odd), then zeros.
constexpr bool insert_is_zero(int R, int YK, int k) { return k >= 2 * (R - 1) || (k % 2 == 1 && 1 + k / 2 >= YK); }

template <int R, int YK>
constexpr SafePlan<R, YK> safe_plan() {
  static_assert(R >= 2 && YK >= 1 && YK <= R, "an R-term expansion plus YK leading terms");
  SafePlan<R, YK> p{};
  bool sz[R] = {}, ez[R] = {};                       // known zero (x and y_0 .. y_{YK-1} are data: not known)
  for (int l = 1; l < R; ++l) sz[l] = ez[l] = true;  // lanes 1.. start with 2Sum(0, 0)
  auto apply = [&](bool in_zero, Op* ops, bool last) {
    bool epz[R] = {};
    epz[0] = in_zero;
    for (int l = 1; l < R; ++l) epz[l] = ez[l - 1];
    for (int l = 0; l < R; ++l) {
      if (epz[l]) {
        ops[l] = kNothing;
        ez[l] = true;
      } else if (sz[l]) {
        ops[l] = kMove;
        sz[l] = false;
        ez[l] = true;
      } else {
        ops[l] = kTwoSum;
        ez[l] = last;  // the plain addition leaves no error
      }
    }
  };
  for (int k = 0; k < SafePlan<R, YK>::kInserts; ++k) apply(insert_is_zero(R, YK, k), p.insert[k], false);
  apply(true, p.last, true);
  return p;
}

template <int R, int YK>
struct PlanOf {
  static constexpr SafePlan<R, YK> value = safe_plan<R, YK>();
};

// ---- lane operations ----
// Ops::V the lane type; Ops::M a mask or bool; Ops::J an output index per lane. Required:
// two_sum, add, zero, nonzero (NaN counts as nonzero, as `!= 0`), select(m, a, b) = m ? a : b,
// both(m, m), j0, jeq(j, l), jinc(j, m).
struct ScalarOps {
  using V = double;
  using M = bool;
  using J = int;
  ACCSUM_HD static void two_sum(V a, V b, V& s, V& e) { accsum::two_sum(a, b, s, e); }
  ACCSUM_HD static V add(V a, V b) {
    V s, e;
    accsum::two_sum(a, b, s, e);  // the sum only: e is dead code
    return s;
  }
  ACCSUM_HD static V zero() { return 0.0; }
  ACCSUM_HD static M nonzero(V v) { return v != 0.0; }
  ACCSUM_HD static V select(M m, V a, V b) { return m ? a : b; }
  ACCSUM_HD static M both(M a, M b) { return a && b; }
  ACCSUM_HD static J j0() { return 0; }
  ACCSUM_HD static M jeq(J j, int l) { return j == l; }
  ACCSUM_HD static J jinc(J j, M m) { return j + (m ? 1 : 0); }
};

// The same with the 2Sum of 3 additions and a comparison (the exact error is unique, so the
// values are those of 2Sum on finite data): what keeps a GPU thread's FP64 work low.
struct ScalarOrderedOps : ScalarOps {
  ACCSUM_HD static void two_sum(V a, V b, V& s, V& e) {
    s = ACCSUM_ADD(a, b);
    const bool a_big = fabs(a) >= fabs(b);
    const double hi = a_big ? a : b, lo = a_big ? b : a;
    e = ACCSUM_SUB(lo, ACCSUM_SUB(s, hi));
  }
  ACCSUM_HD static V add(V a, V b) { return ACCSUM_ADD(a, b); }
};

// ---- the step ----

// s <- Algorithm1(x, (y_0 .. y_{YK-1}, 0, .., 0)): R terms each (x and s may alias).
template <int R, int YK, class O>
ACCSUM_HD void add_safe(const typename O::V* x, const typename O::V* y, typename O::V* s) {
  using V = typename O::V;
  V e[R], x_rest[R];
  static_for<1, R>([&](auto l) { x_rest[l] = x[l]; });  // before s overwrites an aliased x
  O::two_sum(x[0], y[0], s[0], e[0]);
  static_for<1, R>([&](auto l) { s[l] = e[l] = O::zero(); });
  static_for<0, SafePlan<R, YK>::kInserts>([&](auto k_c) {
    constexpr int k = decltype(k_c)::value;
    constexpr int i = 1 + k / 2;
    V in = O::zero();
    if constexpr (insert_is_zero(R, YK, k))
      (void)in;
    else if constexpr (k % 2 == 0)
      in = x_rest[i];
    else
      in = y[i];
    // Lanes in decreasing order: lane l reads e_{l-1} before lane l-1 replaces it.
    static_for<0, R>([&](auto i_c) {
      constexpr int l = R - 1 - decltype(i_c)::value;
      constexpr Op op = PlanOf<R, YK>::value.insert[k][l];
      if constexpr (op == kTwoSum) {
        if constexpr (l == 0)
          O::two_sum(s[0], in, s[0], e[0]);
        else
          O::two_sum(s[l], e[l - 1], s[l], e[l]);
      } else if constexpr (op == kMove) {
        if constexpr (l == 0)
          s[0] = in;
        else
          s[l] = e[l - 1];
        e[l] = O::zero();
      } else {
        e[l] = O::zero();
      }
    });
  });
  static_for<1, R>([&](auto l_c) {  // the last step: plain additions of e_{l-1} (lane 0 adds 0)
    constexpr int l = R - decltype(l_c)::value;
    constexpr Op op = PlanOf<R, YK>::value.last[l];
    if constexpr (op == kTwoSum)
      s[l] = O::add(s[l], e[l - 1]);
    else if constexpr (op == kMove)
      s[l] = e[l - 1];
  });
}

// out <- Renormalize(v) for R terms in and out (v is overwritten).
template <int R, class O>
ACCSUM_HD void renormalize(typename O::V* v, typename O::V* out) {
  using V = typename O::V;
  using M = typename O::M;
  static_for<0, R - 1>([&](auto c) {  // VecSum from the bottom
    constexpr int i = R - 2 - decltype(c)::value;
    O::two_sum(v[i], v[i + 1], v[i], v[i + 1]);
  });
  if constexpr (R == 2) {
    // The only branch step is the identity: out = (v_0, v_1) (v_1 is an exact zero when not emitted).
    out[0] = v[0];
    out[1] = v[1];
  } else {
    M emit = O::nonzero(v[1]);  // step i = 1: r = v_0, err = v_1
    out[0] = O::select(emit, v[0], O::zero());
    V eps = O::select(emit, v[1], v[0]);
    typename O::J j = O::jinc(O::j0(), emit);
    static_for<1, R>([&](auto l) { out[l] = O::zero(); });
    static_for<2, R>([&](auto i_c) {
      constexpr int i = decltype(i_c)::value;
      V r, err;
      O::two_sum(eps, v[i], r, err);
      const M m = O::nonzero(err);
      static_for<0, i>([&](auto l) { out[l] = O::select(O::both(m, O::jeq(j, l)), r, out[l]); });
      eps = O::select(m, err, r);
      j = O::jinc(j, m);
    });
    static_for<0, R>([&](auto l) { out[l] = O::select(O::jeq(j, l), eps, out[l]); });
  }
}

// a <- Renormalize(Algorithm1(a, (y_0 .. y_{YK-1}, 0, ..))): an element (YK = 1: x_i; YK = 2:
// the exact product h + t) or, with YK = R, the merge of two lanes.
template <int R, int YK, class O>
ACCSUM_HD void step(typename O::V* a, const typename O::V* y) {
  typename O::V s[R];
  add_safe<R, YK, O>(a, y, s);
  renormalize<R, O>(s, a);
}

}  // namespace accsum::fpe_step
