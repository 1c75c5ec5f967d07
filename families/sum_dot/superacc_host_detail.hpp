#pragma once
// The pieces the sum and the dot kernels of families/sum_dot/superacc_host.cpp and superacc_host_dot.cpp
// share: the chunk table (level 2), the narrow-block extraction, the error-bounded lanes, the AVX2
// expansions (level 1) and the dispatch on the configuration. Internal to those two files (an
// anonymous namespace: each gets its own copy, inlined as before).
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "core/numerics/fpe.hpp"
#include "core/simd/eft_avx2.hpp"
#include "families/sum_dot/superacc_host.hpp"

namespace accsum::cpu {
namespace {

constexpr int64_t kBlock = 1024;  // terms per block: a special slot stays below 2^63
// Interleaved tables give fewer store-to-load chains when many terms share a slot, but each
// adds 32 KiB that must stay in L1 at range 1e300. Narrow data (range 1, where slots were hot)
// now takes the extraction path, so one table is enough.
constexpr int kTables = 1;
constexpr uint64_t kImplicit = uint64_t(1) << 52;
// Software prefetch this many terms (8 KiB) ahead, one cache line per 8 terms, inside the
// loop: a steady stream of requests keeps enough misses in flight to reach the streaming
// bandwidth of one core (a burst per block did not; measured on the 2-core VM).
constexpr int64_t kPrefetchAhead = 1024;

// Level 2: one uint64 slot per (sign, biased exponent). The padding staggers consecutive
// tables of an array by one cache line: the same slot of two tables is then not 4 KiB
// apart, so a load from one table is not falsely held behind a store to another (4K aliasing).
struct ChunkTable {
  alignas(64) uint64_t slot[4096];
  uint64_t pad[8];
  void clear() { std::memset(slot, 0, sizeof slot); }
  bool touched_special() const { return slot[0] | slot[0x800] | slot[0x7FF] | slot[0xFFF]; }
  void clear_special() { slot[0] = slot[0x800] = slot[0x7FF] = slot[0xFFF] = 0; }
};

// Moves v * 2^(E - 1075) (sign from idx) into the superaccumulator: v < 2^64 is cut into a
// 53-bit and an 11-bit part and placed like two significands.
template <class SA>
void flush_slot(SA& acc, uint64_t v, unsigned idx) {
  int pos = static_cast<int>(idx & 0x7FF) - 1 + (-1074 - SA::kLsbExp);
  int64_t neg = (idx >> 11) ? -1 : 0;
  uint64_t parts[2] = {v & ((uint64_t(1) << 53) - 1), v >> 53};
  for (int h = 0; h < 2; ++h) {
    if (!parts[h]) continue;
    int i;
    uint64_t u0, u1, u2;
    split_mantissa(parts[h], pos + 53 * h, i, u0, u1, u2);
    acc.add_pieces(i, (static_cast<int64_t>(u0) ^ neg) - neg, (static_cast<int64_t>(u1) ^ neg) - neg,
                   (static_cast<int64_t>(u2) ^ neg) - neg);
  }
}

// Adds a double's significand to its slot (any bits: specials land in the special slots).
template <class SA>
inline void table_add(ChunkTable& t, uint64_t bits, SA& acc) {
  unsigned idx = static_cast<unsigned>(bits >> 52);
  uint64_t c = t.slot[idx] + ((bits & kMantissaMask) | kImplicit);
  if (__builtin_expect(static_cast<int64_t>(c) < 0, 0)) {
    flush_slot(acc, c, idx);
    c = 0;
  }
  t.slot[idx] = c;
}

template <class SA>
void drain(ChunkTable& t, SA& acc) {
  for (unsigned j = 0; j < 4096; ++j)
    if (t.slot[j]) flush_slot(acc, t.slot[j], j);
}

inline bool special_bits(uint64_t bits) {
  unsigned e = (bits >> 52) & 0x7FF;
  return e == 0 || e == 0x7FF;
}

inline void prefetch_block(const double* p, int64_t count) {
  for (int64_t i = 0; i < count; i += 8) _mm_prefetch(reinterpret_cast<const char*>(p + i), _MM_HINT_T0);
}

// ---- sum, fpe = 0: the chunk tables only ----

// Adds x[s..e) to the tables, term i to table i % kTables (kTables divides 8), 8 terms per
// step: one prefetch per cache line of x.
template <bool kPrefetch, class SA>
inline void tables_add_range(ChunkTable* t, const double* x, int64_t s, int64_t e, SA& acc) {
  int64_t i = s;
  for (; i + 8 <= e; i += 8) {
    if (kPrefetch) _mm_prefetch(reinterpret_cast<const char*>(x + i + kPrefetchAhead), _MM_HINT_T0);
    for (int k = 0; k < 8; ++k) table_add(t[k % kTables], double_bits(x[i + k]), acc);
  }
  for (; i < e; ++i) table_add(t[0], double_bits(x[i]), acc);
}

using v4d = __m256d;

// ---- sum, fpe = 0, narrow blocks: exact extraction ----
// ExtractScalar (Rump, Ogita, Oishi, "Accurate floating-point summation part I: faithful
// rounding", SISC 31(1), 2008, Alg. 3.2), with the shift sigma = 1.5 * 2^k of Demmel and Nguyen's
// binned summation: for |x| <= 2^(k-1), q = fl(fl(sigma + x) - sigma) is x rounded to a multiple
// of 2^(k-52) and r = fl(x - q) = x - q exactly, |r| <= 2^(k-53). A block has at most
// 2^kLogBlock terms, all normal, 2^emin <= |x| < 2^(Emax+1). With k = Emax + 1 + kHeadBits every
// partial sum of the q's is a multiple of 2^(k-52) below 2^(k-1), and every partial sum of the r's
// a multiple of 2^(emin-52) of at most 2^(Emax + 2 kHeadBits - 53) <= 2^emin when the block spans
// at most kNarrowSpan = 53 - 2 kHeadBits binades: both sums are exact, the block's sum is T1 + T2.
constexpr int kLogBlock = 10;
static_assert(kBlock <= (int64_t(1) << kLogBlock), "the extraction's headroom covers one block");
constexpr int kHeadBits = kLogBlock + 1;
constexpr int kNarrowSpan = 53 - 2 * kHeadBits;
// The largest biased exponent of max|x| for which sigma (k <= 1023) and sigma + x are finite.
constexpr unsigned kNarrowMaxExp = 1023 + 1023 - 1 - kHeadBits;
// After a block that is not narrow, this many blocks go straight to the tables (a heuristic).
constexpr int kWideSkip = 8;

// The biased exponents of the largest and smallest |x| of a block (zeros give 0, NaN 2047), 8
// terms at a time: 32-bit max/min of the upper halves order |x| by exponent.
struct ExponentSpan {
  const __m256i abs_mask = _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll);
  __m256i hi = _mm256_setzero_si256(), lo = _mm256_set1_epi32(-1);
  inline void add8(const double* x) {
    __m256i a = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), abs_mask);
    __m256i b = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 4)), abs_mask);
    hi = _mm256_max_epu32(hi, _mm256_max_epu32(a, b));
    lo = _mm256_min_epu32(lo, _mm256_min_epu32(a, b));
  }
  inline void add4(v4d v) {  // 4 computed values (a dot's products)
    __m256i a = _mm256_and_si256(_mm256_castpd_si256(v), abs_mask);
    hi = _mm256_max_epu32(hi, a);
    lo = _mm256_min_epu32(lo, a);
  }
  // Takes the last `count` (< 8 or any) terms one by one and gives the exponents.
  void finish(const double* x, int64_t count, unsigned& emax, unsigned& emin) const {
    alignas(32) uint32_t h[8], l[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
    uint32_t top = 0, bottom = 0xFFFFFFFFu;
    for (int k = 1; k < 8; k += 2) {
      top = std::max(top, h[k]);
      bottom = std::min(bottom, l[k]);
    }
    for (int64_t i = 0; i < count; ++i) {
      uint32_t u = static_cast<uint32_t>((double_bits(x[i]) << 1) >> 33);
      top = std::max(top, u);
      bottom = std::min(bottom, u);
    }
    emax = top >> 20;
    emin = bottom >> 20;
  }
};

inline void exponent_span(const double* x, int64_t len, unsigned& emax, unsigned& emin) {
  ExponentSpan sp;
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    _mm_prefetch(reinterpret_cast<const char*>(x + i + kPrefetchAhead), _MM_HINT_T0);
    sp.add8(x + i);
  }
  sp.finish(x + i, len - i, emax, emin);
}

inline bool narrow(unsigned emax, unsigned emin) {
  return emin != 0 && emax - emin <= static_cast<unsigned>(kNarrowSpan) && emax <= kNarrowMaxExp;
}

// The extraction sums T1 (the q's) and T2 (the r's) of a narrow block, 16 terms at a time in
// 4 x 2 independent AVX2 accumulators (the adds' latency is hidden).
struct NarrowSums {
  static constexpr int U = 4;
  double s;
  v4d sig, t1[U], t2[U];
  explicit NarrowSums(unsigned emax) : s(std::ldexp(1.5, static_cast<int>(emax) - 1023 + 1 + kHeadBits)) {
    sig = _mm256_set1_pd(s);
    for (int u = 0; u < U; ++u) t1[u] = t2[u] = _mm256_setzero_pd();
  }
  inline void add16(const double* x) {
    for (int u = 0; u < U; ++u) {
      v4d v = _mm256_loadu_pd(x + 4 * u);
      v4d q = _mm256_sub_pd(_mm256_add_pd(sig, v), sig);
      t1[u] = _mm256_add_pd(t1[u], q);
      t2[u] = _mm256_add_pd(t2[u], _mm256_sub_pd(v, q));
    }
  }
  inline void add4(int u, v4d v) {
    v4d q = _mm256_sub_pd(_mm256_add_pd(sig, v), sig);
    t1[u] = _mm256_add_pd(t1[u], q);
    t2[u] = _mm256_add_pd(t2[u], _mm256_sub_pd(v, q));
  }
  // Adds the last `count` terms one by one and both sums to acc.
  template <class SA>
  void finish(const double* x, int64_t count, SA& acc) const {
    alignas(32) double l1[4], l2[4];
    _mm256_store_pd(l1, _mm256_add_pd(_mm256_add_pd(t1[0], t1[1]), _mm256_add_pd(t1[2], t1[3])));
    _mm256_store_pd(l2, _mm256_add_pd(_mm256_add_pd(t2[0], t2[1]), _mm256_add_pd(t2[2], t2[3])));
    double T1 = (l1[0] + l1[1]) + (l1[2] + l1[3]), T2 = (l2[0] + l2[1]) + (l2[2] + l2[3]);
    for (int64_t i = 0; i < count; ++i) {
      double q = (s + x[i]) - s;
      T1 += q;
      T2 += x[i] - q;
    }
    acc.add(T1);
    acc.add(T2);
  }
};

// Adds x[0, len) exactly to acc (the block is narrow with largest biased exponent emax) and, in
// the same loop, takes the exponent span of the next block nx[0, nlen): the next block streams in
// from memory while this one (in L1 since its own scan) is summed, so loads stay in flight the
// whole time instead of only during the scans (measured: the scan's loads stalled).
// Prefetches stay below nx + nlen + ahead_ok.
void narrow_block_sum_scan(const double* x, int64_t len, unsigned emax, Superacc& acc, const double* nx, int64_t nlen,
                           int64_t ahead_ok, unsigned& nemax, unsigned& nemin) {
  NarrowSums ns(emax);
  ExponentSpan sp;
  const int64_t both = std::min(len, nlen) & ~int64_t(15);
  const bool prefetch = nlen + ahead_ok >= both + kPrefetchAhead;
  int64_t i = 0;
  for (; i < both; i += 16) {
    if (prefetch) {
      _mm_prefetch(reinterpret_cast<const char*>(nx + i + kPrefetchAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(nx + i + 8 + kPrefetchAhead), _MM_HINT_T0);
    }
    ns.add16(x + i);
    sp.add8(nx + i);
    sp.add8(nx + i + 8);
  }
  int64_t j = i;
  for (; j + 16 <= len; j += 16) ns.add16(x + j);
  ns.finish(x + j, len - j, acc);
  for (j = i; j + 8 <= nlen; j += 8) sp.add8(nx + j);
  sp.finish(nx + j, nlen - j, nemax, nemin);
}

// Adds the four lanes of a vector of finite values to the table without data-dependent
// branches: a zero lane adds 0 to its slot; only a subnormal (rare) takes the exact slow path.
template <class SA>
inline void residue_to_table(ChunkTable& t, v4d r, SA& acc) {
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_castpd_si256(r));
  for (uint64_t b : lanes) {
    uint64_t mag = b << 1;
    if (__builtin_expect((mag >> 53) == 0 && mag != 0, 0)) {
      acc.add(bits_double(b));  // subnormal
      continue;
    }
    unsigned idx = static_cast<unsigned>(b >> 52);
    uint64_t c = t.slot[idx] + (mag ? (b & kMantissaMask) | kImplicit : 0);
    if (__builtin_expect(static_cast<int64_t>(c) < 0, 0)) {
      flush_slot(acc, c, idx);
      c = 0;
    }
    t.slot[idx] = c;
  }
}

// Where front_block's lanes go instead of a table for a short input (below SuperaccConfig::small_n): each
// lane value straight into the superaccumulator (exact too), since clearing and draining a table's 4096
// slots would cost more than such a sum.
struct NoTable {};
template <class SA>
inline void residue_to_table(NoTable&, v4d r, SA& acc) {
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, r);
  for (double v : lanes) acc.add(v);
}

// ---- error-bounded mode: blocks through double-word accumulators in registers ----
// Sum2 of Ogita, Rump, Oishi ("Accurate sum and dot product", SISC 26(6), 2005, Alg. 4.4) in AVX2 lanes: lane l keeps
// s_l, the float sum of its terms, and c_l, the float sum of TwoSum's (Knuth) errors. With m terms in a lane and no
// overflow, |s_l + c_l - sum x| <= gamma_{m-1}^2 sum |x| (the proof of their Prop. 4.5, before its last rounding;
// additions that underflow are exact, so no underflow term). A dot lane also sums the TwoProductFMA errors e plainly:
// |E_l - sum e| <= gamma_{m-1} sum |e| <= gamma_{m-1} u sum |p|. At the end of a block every lane's s, c (and E) go
// into the chunk table exactly, and a_l = fl(sum |term|) into the bound. A block whose a_l is not below 2^960 (NaN,
// infinities, huge terms: then no partial sum can overflow) goes to the exact path instead, nothing of it added. The
// lanes start from zero in every block: m <= kBlock / (terms per step) = 128 (8 lanes, for a sum and a dot alike).
// gamma_127^2 + gamma_127 u < 2^-92.01; fl(sum a) underestimates the true sum by at most a factor (1 - u)^k, k < 2^40
// additions (the threads' bounds add with k <= 2^10 more): 2^-91 covers it with a factor 2 to spare. A bound leaves
// the rounding open with a chance of about bound / ulp of the result, i.e. 2^-38 times the condition number
// sum |x| / |sum x|: the kernels then accumulate exactly (a second pass).
constexpr int kLaneTerms = 128;
constexpr double kBoundScale = 0x1p-91;
constexpr double kFrontMaxLaneAbs = 0x1p960;
// A dot's pair whose product or error underflows errs by |x y - p - e| <= 2^-1075, half this spacing.
constexpr double kSubnormalSpacing = 0x1p-1074;

// Four lanes of Sum2 (Ogita, Rump, Oishi 2005, Alg. 4.4): s the float sum, c the float sum of TwoSum's (Knuth) errors,
// a the float sum of |term|. The kernels keep their lanes in named variables (an array of them stayed in memory).
struct Sum2Lanes {
  v4d s = _mm256_setzero_pd(), c = _mm256_setzero_pd(), a = _mm256_setzero_pd();
  // Two of TwoSum's subtractions, the error's sum and the |term| sum run on the FMA units as fnmadd(b, 1, a) = a - b
  // and fmadd(b, 1, a) = a + b (the same single rounding): four operations on the adders, four on the FMA units.
  inline void add(v4d x, v4d abs_mask) {
    const v4d one = _mm256_set1_pd(1.0);
    a = _mm256_fmadd_pd(_mm256_and_pd(x, abs_mask), one, a);
    const v4d sum = _mm256_add_pd(s, x);
    const v4d z = _mm256_sub_pd(sum, s);
    c = _mm256_fmadd_pd(_mm256_add_pd(_mm256_sub_pd(s, _mm256_fnmadd_pd(z, one, sum)), _mm256_fnmadd_pd(z, one, x)),
                        one, c);
    s = sum;
  }
  // Whether every lane's sum of |term| is below kFrontMaxLaneAbs (NaN: not below).
  inline bool in_range() const {
    return _mm256_movemask_pd(_mm256_cmp_pd(a, _mm256_set1_pd(kFrontMaxLaneAbs), _CMP_LT_OQ)) == 0xF;
  }
  // s and c into the table (or NoTable: the accumulator) exactly; a into the bound's total.
  template <class Table, class SA>
  inline void flush(Table& t, SA& acc, v4d& abs_total) const {
    residue_to_table(t, s, acc);
    residue_to_table(t, c, acc);
    abs_total = _mm256_add_pd(abs_total, a);
  }
};

// Adds a block of len terms (a sum: one stream; a dot: x and y, len pairs) to the table within a bound through two
// sets of lanes (Sum2Lanes, DotLanes): returns false (nothing added) when the block needs the exact path; else the
// lanes are in the table and the sum of |term| is added to abs_total. A step takes 8 terms (one cache line of each
// stream); the last < 8 are padded with zeros. (16 lanes of a sum were 11% slower: their 12 vectors no longer fit the
// registers beside the temporaries, and a block flushes twice as many.)
template <bool kPrefetch, class Lanes, class Table, class SA, class... Streams>
bool front_block(int64_t len, Table& t, SA& acc, v4d* abs_total, const Streams*... xs) {
  constexpr int kStep = 8;
  static_assert(kBlock / kStep <= kLaneTerms, "the bound's lane length");
  struct alignas(32) Padded {
    double v[kStep] = {};
  };
  const v4d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  Lanes l0, l1;
  int64_t i = 0;
  for (; i + kStep <= len; i += kStep) {
    if (kPrefetch) (_mm_prefetch(reinterpret_cast<const char*>(xs + i + kPrefetchAhead), _MM_HINT_T0), ...);
    l0.add(_mm256_loadu_pd(xs + i)..., abs_mask);
    l1.add(_mm256_loadu_pd(xs + i + 4)..., abs_mask);
  }
  if (i < len) {
    auto padded = [&](const double* x) {
      Padded r;
      std::copy(x + i, x + len, r.v);
      return r;
    };
    l0.add(_mm256_load_pd(padded(xs).v)..., abs_mask);
    l1.add(_mm256_load_pd(padded(xs).v + 4)..., abs_mask);
  }
  if (!(l0.in_range() && l1.in_range())) return false;
  l0.flush(t, acc, abs_total[0]);
  l1.flush(t, acc, abs_total[1]);
  return true;
}

// The bound of the lanes' sums from the total of |term| per lane.
inline double front_bound(const v4d* abs_total, int vectors) {
  v4d t = _mm256_setzero_pd();
  for (int v = 0; v < vectors; ++v) t = _mm256_add_pd(t, abs_total[v]);
  alignas(32) double l[4];
  _mm256_store_pd(l, t);
  const double total = (l[0] + l[1]) + (l[2] + l[3]);
  // The product, if it underflows, errs by less than half the subnormal spacing: one more makes it a bound.
  return total > 0 ? total * kBoundScale + kSubnormalSpacing : 0.0;
}

// ---- sum, fpe = N: AVX2 expansions (Alg. 2), residues into the chunk table ----

// Level 1 (Collange et al. 2015, Alg. 2) in 4 lanes: x through the expansion a[0..N) by TwoSum
// (Knuth); a residue left in some lane goes to `residue` (level 2). kEarlyExit: stop once every
// lane's residue is zero.
template <int N, bool kEarlyExit, class ResidueFn>
inline void through_expansion(v4d* a, v4d x, const ResidueFn& residue) {
  const v4d zero = _mm256_setzero_pd();
  for (int j = 0; j < N; ++j) {
    simd::two_sum(a[j], x, a[j], x);
    if (kEarlyExit && _mm256_movemask_pd(_mm256_cmp_pd(x, zero, _CMP_NEQ_UQ)) == 0) return;
  }
  if (_mm256_movemask_pd(_mm256_cmp_pd(x, zero, _CMP_NEQ_UQ))) residue(x);
}

// Level 1 -> 2: adds every nonzero term of the expansions to acc exactly and zeroes them
// (the end of the data, and before the expansions' inputs could exceed their precondition).
template <class SA, int V, int M>
void flush_expansions(v4d (&a)[V][M], SA& acc) {
  for (auto& row : a)
    for (auto& c : row) {
      alignas(32) double lanes[4];
      _mm256_store_pd(lanes, c);
      for (double l : lanes)
        if (l != 0.0) acc.add(l);
      c = _mm256_setzero_pd();
    }
}

// The expansion sizes of level 1 with a kernel (the fpe parameter's choices).
using FpeSizes = std::integer_sequence<int, 0, 2, 3, 4, 6, 8>;

// Calls run(fpe, early_exit) with the configured expansion size and early exit as compile-time
// constants (std::integral_constant), or throws UsageError for a size without a kernel.
template <class Run, int... Sizes>
void with_config(const SuperaccConfig& cfg, const char* algo, const Run& run, std::integer_sequence<int, Sizes...>) {
  auto with_exit = [&](auto fpe) {
    if (cfg.early_exit)
      run(fpe, std::true_type{});
    else
      run(fpe, std::false_type{});
    return true;
  };
  if (!((cfg.fpe == Sizes && with_exit(std::integral_constant<int, Sizes>{})) || ...))
    throw UsageError(std::string(algo) + ": fpe=" + std::to_string(cfg.fpe) + " not supported (0, 2, 3, 4, 6, 8)");
}

}  // namespace
}  // namespace accsum::cpu
