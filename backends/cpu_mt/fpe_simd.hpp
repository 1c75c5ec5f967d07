#pragma once
// The data-parallel expansion algorithms of families/fpe/fpe_ops.hpp on SIMD lanes (Collange, Joldes,
// Muller, Popescu, ASAP 2016, Sec. III: "the same scheme" fits explicit SIMD such as AVX). W
// expansions are held structure-of-arrays, term l of expansion w in v[l][w], and every lane-wise
// operation of the serial definition becomes one operation on a vector of W doubles; the shifts
// move whole rows. Each expansion sees exactly the operations of the serial definition,
// so the bits are the cpu backend's: Algorithm 1 and the fast addition are fpe_ops.hpp's own
// text (instantiated for SIMD lanes). Algorithm 2's data-dependent error loops run while any
// expansion of the block still has a nonzero error, the others masked (left unchanged).
#include <immintrin.h>

#include <cstdint>

#include "core/simd/eft_avx2.hpp"
#include "families/fpe/fpe_ops.hpp"

namespace accsum::fpe_simd {

constexpr int kW = 4;  // expansions per block: one AVX2 register per term (the build targets x86-64-v3)

// W doubles, one per expansion (GCC/Clang vector extensions: element-wise IEEE operations, the
// comparisons give masks of 0 / -1 and mask ? a : b selects lane by lane; the same type as
// AVX's __m256d).
typedef double Lanes __attribute__((vector_size(8 * kW)));
typedef int64_t Mask __attribute__((vector_size(8 * kW)));

template <int R>
struct Block {
  Lanes v[R];
};

// Pairs [0, count) of x (R terms each, pair-major) into the block, zeros past count.
template <int R>
void load(const double* x, int64_t count, Block<R>& b) {
  for (int l = 0; l < R; ++l) {
    Lanes row = {};
    for (int w = 0; w < kW && w < count; ++w) row[w] = x[w * R + l];
    b.v[l] = row;
  }
}

template <int R>
void store(const Block<R>& b, int64_t count, double* out) {
  for (int w = 0; w < count && w < kW; ++w)
    for (int l = 0; l < R; ++l) out[w * R + l] = b.v[l][w];
}

// TwoSum on every lane (core/simd/eft_avx2.hpp; Lanes is AVX's __m256d).
inline void two_sum(Lanes a, Lanes b, Lanes& s, Lanes& e) { simd::two_sum(a, b, s, e); }

// TwoProductFMA (ORO Alg. 3.5) on every lane.
inline void two_prod_fma(Lanes a, Lanes b, Lanes& p, Lanes& e) {
  p = a * b;
  e = _mm256_fmsub_pd(a, b, p);
}

// The lane operations of families/fpe/fpe_ops.hpp's algorithms on vectors of lanes: add_safe
// and add_fast below are those very definitions, instantiated for Lanes with R fixed.
struct SimdLanes {
  using V = Lanes;
  static V zero() { return Lanes{}; }
  static void two_sum(V a, V b, V& s, V& e) { fpe_simd::two_sum(a, b, s, e); }
  static V add(V a, V b) { return a + b; }
};

// fpe::add_safe (Algorithm 1) on a block.
template <int R>
void add_safe(const Block<R>& x, const Block<R>& y, Block<R>& s) {
  fpe::add_safe<R, SimdLanes>(x.v, y.v, s.v, R);
}

// fpe::add_fast (our reading of Fig. 5) on a block.
template <int R>
void add_fast(const Block<R>& x, const Block<R>& y, Block<R>& s) {
  fpe::add_fast<R, SimdLanes>(x.v, y.v, s.v, R);
}

// Algorithm 2's error loops run per expansion (data-dependent round counts), so fpe::propagate
// and fpe::mul are restated here with masks: a vector re-statement of the serial definition,
// tested bit for bit against it (tests/families/test_fpe.cpp: cpu-mt equals cpu on every algorithm).

// fpe::propagate on a block: a round applies to the expansions whose e is still nonzero (NaN
// counts), at most R rounds, as in the serial loop.
template <int R>
inline void propagate(Block<R>& s, Block<R>& e) {
  const Lanes zero = {};
  for (int round = 0; round < R; ++round) {
    Mask active = {};
    for (int l = 0; l < R; ++l) active |= e.v[l] != zero;
    if (_mm256_movemask_pd(reinterpret_cast<Lanes>(active)) == 0) return;
    for (int l = 0; l < R; ++l) {
      Lanes ns, ne;
      two_sum(s.v[l], e.v[l], ns, ne);
      s.v[l] = active ? ns : s.v[l];
      e.v[l] = active ? ne : e.v[l];
    }
    for (int l = R - 1; l > 0; --l) e.v[l] = active ? e.v[l - 1] : e.v[l];
    e.v[0] = active ? zero : e.v[0];
  }
}

// fpe::mul (Algorithm 2) on a block; the optional renormalisation runs per expansion.
template <int R>
void mul(const Block<R>& x, const Block<R>& y, Block<R>& pi, bool renorm) {
  Block<R> s{}, e, ep, r{};
  for (int i = 0; i < R - 1; ++i) {
    for (int l = 0; l < R; ++l) {
      Lanes p;
      two_prod_fma(x.v[l], y.v[i], p, e.v[l]);
      two_sum(s.v[l], p, s.v[l], ep.v[l]);
    }
    r.v[i] = s.v[0];
    for (int l = 0; l < R - 1; ++l) s.v[l] = s.v[l + 1];
    s.v[R - 1] = Lanes{};
    propagate(s, e);
    propagate(s, ep);
  }
  for (int l = 0; l < R; ++l) s.v[l] = s.v[l] + x.v[l] * y.v[R - 1];
  r.v[R - 1] = s.v[0];
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
void mul_plain(const Block<R>& x, const Block<R>& y, Block<R>& p) {
  mul(x, y, p, false);
}
template <int R>
void mul_renorm(const Block<R>& x, const Block<R>& y, Block<R>& p) {
  mul(x, y, p, true);
}

}  // namespace accsum::fpe_simd
