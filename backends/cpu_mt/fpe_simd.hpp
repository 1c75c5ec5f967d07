#pragma once
// The data-parallel expansion algorithms of core/fpe_ops.hpp on SIMD lanes (Collange, Joldes,
// Muller, Popescu, ASAP 2016, Sec. III: "the same scheme" fits explicit SIMD such as AVX). W
// expansions are held structure-of-arrays, term l of expansion w in v[l][w], and every lane-wise
// operation of the serial definition becomes a loop over w that the compiler vectorises; the
// shifts move whole rows. Each expansion sees exactly the operations of the serial definition,
// so the bits are the cpu backend's. Algorithm 2's data-dependent error loops run while any
// expansion of the block still has a nonzero error, the others masked (left unchanged).
#include <cstdint>

#include "core/eft.hpp"
#include "core/fpe_ops.hpp"

namespace accsum::fpe_simd {

constexpr int kW = 8;  // expansions per block: two AVX2 registers per term

template <int R>
struct Block {
  double v[R][kW];
};

// Pairs [0, count) of x (R terms each, pair-major) into the block, zeros past count.
template <int R>
void load(const double* x, int64_t count, Block<R>& b) {
  for (int w = 0; w < kW; ++w)
    for (int l = 0; l < R; ++l) b.v[l][w] = w < count ? x[w * R + l] : 0.0;
}

template <int R>
void store(const Block<R>& b, int64_t count, double* out) {
  for (int w = 0; w < count && w < kW; ++w)
    for (int l = 0; l < R; ++l) out[w * R + l] = b.v[l][w];
}

// (s, e) <- 2Sum(s, ep) on every lane of every expansion.
template <int R>
inline void two_sum_rows(Block<R>& s, const Block<R>& ep, Block<R>& e) {
  for (int l = 0; l < R; ++l)
    for (int w = 0; w < kW; ++w) two_sum(s.v[l][w], ep.v[l][w], s.v[l][w], e.v[l][w]);
}

// out <- (in, e_0, .., e_{R-2}) for every expansion (fpe::shift_up).
template <int R>
inline void shift_up(const Block<R>& e, const double* in, Block<R>& out) {
  for (int l = R - 1; l > 0; --l)
    for (int w = 0; w < kW; ++w) out.v[l][w] = e.v[l - 1][w];
  for (int w = 0; w < kW; ++w) out.v[0][w] = in[w];
}

// The R-2 error-propagation steps with zero inserted, then the last step as a plain addition
// (the common tail of fpe::add_safe and fpe::add_fast).
template <int R>
inline void settle(Block<R>& s, Block<R>& e) {
  const double zero[kW] = {};
  Block<R> ep;
  for (int i = 1; i <= R - 2; ++i) {
    shift_up(e, zero, ep);
    two_sum_rows(s, ep, e);
  }
  shift_up(e, zero, ep);
  for (int l = 0; l < R; ++l)
    for (int w = 0; w < kW; ++w) s.v[l][w] = s.v[l][w] + ep.v[l][w];
}

// fpe::add_safe (Algorithm 1) on a block.
template <int R>
void add_safe(const Block<R>& x, const Block<R>& y, Block<R>& s) {
  Block<R> e, ep;
  for (int l = 0; l < R; ++l)
    for (int w = 0; w < kW; ++w)
      two_sum(l == 0 ? x.v[0][w] : 0.0, l == 0 ? y.v[0][w] : 0.0, s.v[l][w], e.v[l][w]);
  for (int i = 1; i < R; ++i) {
    shift_up(e, x.v[i], ep);
    two_sum_rows(s, ep, e);
    shift_up(e, y.v[i], ep);
    two_sum_rows(s, ep, e);
  }
  settle(s, e);
}

// fpe::add_fast (our reading of Fig. 5) on a block.
template <int R>
void add_fast(const Block<R>& x, const Block<R>& y, Block<R>& s) {
  Block<R> e;
  for (int l = 0; l < R; ++l)
    for (int w = 0; w < kW; ++w) two_sum(x.v[l][w], y.v[l][w], s.v[l][w], e.v[l][w]);
  settle(s, e);
}

// fpe::propagate on a block: a round applies to the expansions whose e is still nonzero (NaN
// counts), at most R rounds, as in the serial loop.
template <int R>
inline void propagate(Block<R>& s, Block<R>& e) {
  for (int round = 0; round < R; ++round) {
    bool active[kW];
    bool any = false;
    for (int w = 0; w < kW; ++w) {
      bool a = false;
      for (int l = 0; l < R; ++l) a = a || (e.v[l][w] != 0.0);
      active[w] = a;
      any = any || a;
    }
    if (!any) return;
    for (int l = 0; l < R; ++l)
      for (int w = 0; w < kW; ++w) {
        double ns, ne;
        two_sum(s.v[l][w], e.v[l][w], ns, ne);
        s.v[l][w] = active[w] ? ns : s.v[l][w];
        e.v[l][w] = active[w] ? ne : e.v[l][w];
      }
    for (int l = R - 1; l > 0; --l)
      for (int w = 0; w < kW; ++w) e.v[l][w] = active[w] ? e.v[l - 1][w] : e.v[l][w];
    for (int w = 0; w < kW; ++w) e.v[0][w] = active[w] ? 0.0 : e.v[0][w];
  }
}

// fpe::mul (Algorithm 2) on a block; the optional renormalisation runs per expansion.
template <int R>
void mul(const Block<R>& x, const Block<R>& y, Block<R>& pi, bool renorm) {
  Block<R> s{}, e, ep, r{};
  for (int i = 0; i < R - 1; ++i) {
    for (int l = 0; l < R; ++l)
      for (int w = 0; w < kW; ++w) {
        double p;
        two_prod_fma(x.v[l][w], y.v[i][w], p, e.v[l][w]);
        two_sum(s.v[l][w], p, s.v[l][w], ep.v[l][w]);
      }
    for (int w = 0; w < kW; ++w) r.v[i][w] = s.v[0][w];
    for (int l = 0; l < R - 1; ++l)
      for (int w = 0; w < kW; ++w) s.v[l][w] = s.v[l + 1][w];
    for (int w = 0; w < kW; ++w) s.v[R - 1][w] = 0.0;
    propagate(s, e);
    propagate(s, ep);
  }
  for (int l = 0; l < R; ++l)
    for (int w = 0; w < kW; ++w) s.v[l][w] = s.v[l][w] + x.v[l][w] * y.v[R - 1][w];
  for (int w = 0; w < kW; ++w) r.v[R - 1][w] = s.v[0][w];
  if (!renorm) {
    pi = r;
    return;
  }
  for (int w = 0; w < kW; ++w) {
    double t[R], out[R];
    for (int l = 0; l < R; ++l) t[l] = r.v[l][w];
    fpe::renormalize(t, R, out, R);
    for (int l = 0; l < R; ++l) pi.v[l][w] = out[l];
  }
}

// A batch of pairs through a block operation: kW pairs at a time, the last block padded.
template <int R, void (*Op)(const Block<R>&, const Block<R>&, Block<R>&)>
void batch(const double* x, const double* y, double* out, int64_t count) {
  for (int64_t k = 0; k < count; k += kW) {
    Block<R> bx, by, bs;
    const int64_t m = count - k;
    load(x + k * R, m, bx);
    load(y + k * R, m, by);
    Op(bx, by, bs);
    store(bs, m, out + k * R);
  }
}

template <int R>
void mul_plain(const Block<R>& x, const Block<R>& y, Block<R>& p) { mul(x, y, p, false); }
template <int R>
void mul_renorm(const Block<R>& x, const Block<R>& y, Block<R>& p) { mul(x, y, p, true); }

}  // namespace accsum::fpe_simd
