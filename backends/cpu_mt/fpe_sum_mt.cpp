// fpe-sum / fpe-dot on all cores: the lanes of families/sum_dot/fpe_sum.hpp, each lane's steps in order, then
// the lane tree, its low levels per thread. The same operations as the serial definition, so the
// bits do not depend on the thread count.
//
// Vectorised: the step of core/numerics/fpe_step.hpp (R fixed, zero operations left out; R = 2: the
// step with Fast2Sum where it is exact, core/numerics/fpe_step_r2.hpp) runs on AVX2 vectors whose 4
// slots are 4 lanes. Lane g takes the 16-byte groups g, g + G, ..., so Q adjacent lanes read 2Q
// contiguous doubles per round: a thread walks a tile of lanes through the data, the rounds that
// fill one step (P elements a lane) at a time, each round of the tile one contiguous run, the next
// step's runs (G lanes on) prefetched: the hardware prefetchers stop at page boundaries and would
// restart on every 4 KiB page of a run. The tree's merges go 4 pairs to a vector. Elements past the
// last full step, and inputs with fewer than Q lanes, take the same step on scalars.
#include <immintrin.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/frame/parallel.hpp"
#include "core/numerics/fpe_step.hpp"
#include "core/numerics/fpe_step_r2.hpp"
#include "families/sum_dot/fpe_sum.hpp"
#include "core/frame/registry.hpp"
#include "core/simd/eft_avx2.hpp"

namespace accsum::cpu_mt {
namespace {

using fpe_step::ScalarOps;

// Where a subtraction off the chain from one element's a0 to the next's is issued (core/simd/eft_avx2.hpp).
using simd::SubOnAdders;
using simd::SubOnFma;

// Four lanes of the step in one AVX2 register (Knuth's 2Sum: no comparison); the same values
// whichever unit Off takes the off-chain subtractions to.
template <class Off>
struct AvxOpsOf {
  using V = __m256d;
  using M = __m256d;
  using J = __m256d;  // the output index, held as a small double
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static void two_sum(V a, V b, V& s, V& e) { simd::two_sum<Off>(a, b, s, e); }
  static void fast_two_sum(V a, V b, V& s, V& e) {
    const V t = _mm256_add_pd(a, b);
    e = Off::sub(b, _mm256_sub_pd(t, a));
    s = t;
  }
  static V zero() { return _mm256_setzero_pd(); }
  static M nonzero(V v) { return _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_UQ); }
  static V select(M m, V a, V b) { return _mm256_blendv_pd(b, a, m); }
  static M both(M a, M b) { return _mm256_and_pd(a, b); }
  static J j0() { return _mm256_setzero_pd(); }
  static M jeq(J j, int l) { return _mm256_cmp_pd(j, _mm256_set1_pd(l), _CMP_EQ_OQ); }
  static J jinc(J j, M m) { return _mm256_add_pd(j, _mm256_and_pd(m, _mm256_set1_pd(1.0))); }
};
using AvxOps = AvxOpsOf<SubOnAdders>;
using AvxSplitOps = AvxOpsOf<SubOnFma>;

constexpr int kVecLanes = 4;
constexpr int kVecs = 4;                        // vectors of lanes in flight: independent step chains
constexpr int kBlockLanes = kVecs * kVecLanes;  // Q
// Lanes of a tile: their states (128 KiB) stay in L2 between rounds; a tile's round is a run of
// 256 KiB / R.
template <int R>
constexpr int64_t kTileLanes = (int64_t(128) << 10) / (R * 8);

// P, the elements a step takes, and the rounds (2 elements of each lane) that fill one step.
template <int R, bool Dot>
constexpr int kBatch = fpe_acc_batch(R, Dot);
template <int R, bool Dot>
constexpr int kRoundsPerStep = kBatch<R, Dot> >= kFusedVec ? kBatch<R, Dot> / kFusedVec : 1;

// Lane g's elements from group j on (where a batch starts) with the unrolled step on scalars.
template <int R, bool Dot>
void scalar_lane(double* a, const double* x, const double* y, int64_t n, int64_t G, int64_t j) {
  constexpr int K = kBatch<R, Dot> * (Dot ? 2 : 1);  // terms a step takes
  fpe_acc_lane_by(a, R, x, Dot ? y : nullptr, n, G, j,
                  [](double* acc, const double* v, int) { fpe_step::step<R, K, ScalarOps>(acc, v); });
}

// One round's 2 elements of 4 lanes from p[0 .. 8): k0 = (l0 k0, l2 k0, l1 k0, l3 k0), k1 the
// same for each lane's second element. The slots hold lanes (0, 2, 1, 3).
inline void round_elems(const double* p, __m256d& k0, __m256d& k1) {
  const __m256d v0 = _mm256_loadu_pd(p), v1 = _mm256_loadu_pd(p + 4);
  k0 = _mm256_unpacklo_pd(v0, v1);
  k1 = _mm256_unpackhi_pd(v0, v1);
}

// P elements (a sum) or products (a dot) into 4 lanes, in order.
template <int R, bool Dot>
inline void vec_step(__m256d* a, const __m256d* xv, const __m256d* yv) {
  constexpr int P = kBatch<R, Dot>;
  if constexpr (Dot) {
    __m256d v[2 * P];
    for (int e = 0; e < P; ++e) {
      v[2 * e] = _mm256_mul_pd(xv[e], yv[e]);
      v[2 * e + 1] = _mm256_fmsub_pd(xv[e], yv[e], v[2 * e]);  // 2MultFMA: fma(x, y, -h), one rounding
    }
    if constexpr (R == 2)
      fpe_step::step2_dot<AvxSplitOps>(a, v[0], v[1]);
    else
      fpe_step::step<R, 2 * P, AvxOps>(a, v);
  } else if constexpr (R == 2) {
    fpe_step::step2_sum<AvxSplitOps>(a, xv[0]);
  } else {
    fpe_step::step<R, P, AvxOps>(a, xv);
  }
}

constexpr int kSlotLane[kVecLanes] = {0, 2, 1, 3};
constexpr int64_t kLineDoubles = 8;  // a 64-byte cache line

// Lanes [g, g + blocks * Q) (a tile) over every full run of kRoundsPerStep rounds, then their
// remaining elements through the step on scalars; states to st[lane * R]. A round of the tile is one contiguous
// run of memory, the tile's states stay in L2 between rounds, each block of Q lanes in registers
// while it takes its elements, kVecs independent step chains side by side. The next rounds' runs
// are prefetched one block at a time.
template <int R, bool Dot>
void lane_tile(const double* x, const double* y, int64_t n, int64_t G, int64_t g, int64_t blocks, double* st) {
  constexpr int RB = kRoundsPerStep<R, Dot>, E = kFusedVec * RB, P = kBatch<R, Dot>;  // E elements a lane
  // Owned without a template (operator new[] aligns __m256d since C++17): as a template argument,
  // __m256d would lose its vector attributes (GCC's -Wignored-attributes).
  struct Lanes {
    explicit Lanes(int64_t n) : p(new __m256d[n]) {}
    ~Lanes() { delete[] p; }
    Lanes(const Lanes&) = delete;
    Lanes& operator=(const Lanes&) = delete;
    __m256d* p;
  } lanes(blocks * kVecs * R);
  __m256d* state = lanes.p;
  for (int64_t k = 0; k < blocks * kVecs * R; ++k) state[k] = _mm256_setzero_pd();
  const int64_t width = kFusedVec * kBlockLanes * blocks;  // doubles of the tile per round
  const int64_t stride = kFusedVec * G, step = RB * stride;
  int64_t base = kFusedVec * g;
  for (; base + step - stride + width <= n; base += step) {
    const bool prefetch = base + 2 * step - stride + width <= n;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t off = base + b * kFusedVec * kBlockLanes;
      if (prefetch)
        for (int r = 0; r < RB; ++r)
          for (int64_t c = 0; c < kFusedVec * kBlockLanes; c += kLineDoubles) {
            _mm_prefetch(reinterpret_cast<const char*>(x + off + step + r * stride + c), _MM_HINT_T0);
            if (Dot) _mm_prefetch(reinterpret_cast<const char*>(y + off + step + r * stride + c), _MM_HINT_T0);
          }
      __m256d a[kVecs][R], xk[kVecs][E], yk[kVecs][E];
      __m256d* sb = &state[b * kVecs * R];
      for (int u = 0; u < kVecs; ++u) {
        for (int l = 0; l < R; ++l) a[u][l] = sb[u * R + l];
        for (int r = 0; r < RB; ++r) {
          const int64_t o = off + r * stride + u * kFusedVec * kVecLanes;
          round_elems(x + o, xk[u][2 * r], xk[u][2 * r + 1]);
          if (Dot) round_elems(y + o, yk[u][2 * r], yk[u][2 * r + 1]);
        }
      }
      for (int e = 0; e < E; e += P)
        for (int u = 0; u < kVecs; ++u) vec_step<R, Dot>(a[u], xk[u] + e, yk[u] + e);
      for (int u = 0; u < kVecs; ++u)
        for (int l = 0; l < R; ++l) sb[u * R + l] = a[u][l];
    }
  }
  for (int64_t v = 0; v < blocks * kVecs; ++v)
    for (int l = 0; l < R; ++l) {
      alignas(32) double t[kVecLanes];
      _mm256_store_pd(t, state[v * R + l]);
      for (int s = 0; s < kVecLanes; ++s) st[(g + v * kVecLanes + kSlotLane[s]) * R + l] = t[s];
    }
  const int64_t j = base / kFusedVec;  // the first group not taken, where a batch starts
  for (int64_t q = 0; q < blocks * kBlockLanes; ++q) scalar_lane<R, Dot>(st + (g + q) * R, x, y, n, G, j + q);
}

// Levels w_lo <= w < w_hi of the pairwise tree over st[0 .. count lanes): pair (p, p + w) for
// p = 0, 2w, ...; 4 pairs to a vector, the rest as scalars.
template <int R>
void merge_levels(double* st, int64_t count, int64_t w_lo, int64_t w_hi) {
  for (int64_t w = w_lo; w < count && w < w_hi; w *= 2) {
    int64_t p = 0;
    for (; p + (kVecLanes - 1) * 2 * w + w < count; p += kVecLanes * 2 * w) {
      __m256d a[R], b[R];
      for (int l = 0; l < R; ++l) {
        auto at = [&](int64_t lane) { return st[lane * R + l]; };
        a[l] = _mm256_set_pd(at(p + 6 * w), at(p + 4 * w), at(p + 2 * w), at(p));
        b[l] = _mm256_set_pd(at(p + 7 * w), at(p + 5 * w), at(p + 3 * w), at(p + w));
      }
      fpe_step::step<R, R, AvxOps>(a, b);
      for (int l = 0; l < R; ++l) {
        alignas(32) double t[kVecLanes];
        _mm256_store_pd(t, a[l]);
        for (int s = 0; s < kVecLanes; ++s) st[(p + 2 * w * s) * R + l] = t[s];
      }
    }
    for (; p + w < count; p += 2 * w) fpe_step::step<R, R, ScalarOps>(st + p * R, st + (p + w) * R);
  }
}

template <int R, bool Dot>
double fpe_acc_mt(const double* x, const double* y, int64_t n, int threads) {
  const int64_t G = fused_lanes(n);
  std::vector<double> st(G * R, 0.0);
  const int T = static_cast<int>(std::min<int64_t>(std::max(1, threads), G));
  if (G >= kBlockLanes) {
    const int64_t blocks = G / kBlockLanes, tile_blocks = kTileLanes<R> / kBlockLanes;
    parallel_chunks(blocks, static_cast<int>(std::min<int64_t>(T, blocks)), [&](int, int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; b += tile_blocks)
        lane_tile<R, Dot>(x, y, n, G, b * kBlockLanes, std::min(tile_blocks, b1 - b), st.data());
    });
  } else {
    for (int64_t g = 0; g < G; ++g) scalar_lane<R, Dot>(&st[g * R], x, y, n, G, g);
  }
  const int64_t P = pow2_floor(T), sub = G / P;
  parallel_chunks(P, static_cast<int>(P), [&](int, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) merge_levels<R>(&st[b * sub * R], sub, 1, sub);
  });
  merge_levels<R>(st.data(), G, sub, G);
  return fpe_acc_finish(st.data(), R, x, y, n);
}

// R = 16, 32: the readable step (as the serial definition), lanes split among the threads.
template <int R>
double fpe_acc_mt_generic(const double* x, const double* y, int64_t n, int threads) {
  const int64_t G = fused_lanes(n);
  std::vector<double> st(G * R, 0.0);
  const int T = static_cast<int>(std::min<int64_t>(std::max(1, threads), G));
  parallel_chunks(G, T, [&](int, int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) fpe_acc_lane(&st[g * R], R, x, y, n, G, g);
  });
  const int64_t P = pow2_floor(T), sub = G / P;
  parallel_chunks(P, static_cast<int>(P), [&](int, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fpe_acc_merge_lanes(&st[b * sub * R], sub, R);
  });
  fpe_acc_merge_lanes(st.data(), G, R, sub);
  return fpe_acc_finish(st.data(), R, x, y, n);
}

double fpe_acc_mt(const double* x, const double* y, int64_t n, int R, int threads) {
  if (n <= 0) return 0.0;
  const bool dot = y != nullptr;
  switch (R) {
    case 2:
      return dot ? fpe_acc_mt<2, true>(x, y, n, threads) : fpe_acc_mt<2, false>(x, y, n, threads);
    case 4:
      return dot ? fpe_acc_mt<4, true>(x, y, n, threads) : fpe_acc_mt<4, false>(x, y, n, threads);
    case 8:
      return dot ? fpe_acc_mt<8, true>(x, y, n, threads) : fpe_acc_mt<8, false>(x, y, n, threads);
    case 16:
      return fpe_acc_mt_generic<16>(x, y, n, threads);
    default:
      return fpe_acc_mt_generic<32>(x, y, n, threads);
  }
}

class FpeAccMtKernel : public ScalarKernel {
 public:
  FpeAccMtKernel(const Problem& pb, const Params& p, bool dot)
      : pb_(pb), R_(fpe_acc_r(p)), dot_(dot), threads_(threads_of(p)) {}
  double run() override { return fpe_acc_mt(pb_.x, dot_ ? pb_.y : nullptr, pb_.n, R_, threads_); }

 private:
  Problem pb_;
  int R_;
  bool dot_;
  int threads_;
};

AlgoEntry entry(bool dot, const char* summary) {
  AlgoEntry e = fpe_acc_entry(dot, "cpu-mt", summary);
  auto ps = e.params;
  ps.push_back(threads_param());
  return e.with_params(ps)
      .maker([dot](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
        return std::make_unique<FpeAccMtKernel>(p, prm, dot);
      })
      .shapes(thread_variants);
}

Registrar reg_sum(entry(false, "R-term expansion accumulator on all cores, AVX2 (same bits as cpu)"));
Registrar reg_dot(entry(true,
                        "R-term expansion accumulator of the exact products on all cores, AVX2 (same bits as cpu)"));

}  // namespace
}  // namespace accsum::cpu_mt
