// The dot kernels of the correctly rounded host dot product (Collange, Defour, Graillat, Iakymchuk 2015): exact
// products (TwoProductFMA) and their errors through the levels of families/sum_dot/superacc_host.cpp.
#include <memory>

#include "families/sum_dot/superacc_host.hpp"
#include "families/sum_dot/superacc_host_detail.hpp"

namespace accsum::cpu {
namespace {

// ---- dot, fpe = 0, narrow blocks: exact extraction of the products and of their errors ----
// Let p = fl(x y) be normal with |p| >= 2^-968 for every pair of a block, pmin <= E(p) <= pmax
// (E the exponent). Then e = fma(x, y, -p) = x y - p exactly, and e is a multiple of
// 2^(E(x)+E(y)-104) >= 2^(pmin-105) (x y and p are; |x y| < 2^(E(x)+E(y)+2)) with |e| <= 2^(pmax-53).
// The p's are summed as a narrow block of terms (NarrowSums with k = pmax + 1 + kHeadBits); the
// e's with k_e = pmax - 53 + 1 + kHeadBits: their q's are multiples of 2^(k_e-52) whose partial
// sums stay below 2^(k_e-1), their r's multiples of 2^(pmin-105) below 2^(k_e-53) each, whose
// partial sums stay below 2^(pmax-84+1) <= 2^(pmin-105+53) when pmax - pmin <= kNarrowSpan. So
// the block's exact dot is the sum of four doubles.
constexpr unsigned kDotMinExp = 1023 - 968;  // biased exponent of 2^-968
constexpr int kFmaErrorShift = 53;           // |e| <= 2^(E(p) - 53)

// The exponent span of the products of x[0, len) and y[0, len); kPrefetch: a prefetch per cache
// line kPrefetchAhead ahead.
// Out of line, like narrow_dot_block: inlined into dot_vec next to the wide path, the narrow (range 1) dot ran about
// 4% slower (code layout; thread CPU time, n = 2^24).
template <bool kPrefetch>
__attribute__((noinline)) void product_span(const double* x, const double* y, int64_t len, unsigned& emax,
                                            unsigned& emin) {
  ExponentSpan sp;
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    if (kPrefetch) {
      _mm_prefetch(reinterpret_cast<const char*>(x + i + kPrefetchAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(y + i + kPrefetchAhead), _MM_HINT_T0);
    }
    sp.add4(_mm256_mul_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
    sp.add4(_mm256_mul_pd(_mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4)));
  }
  for (; i + 4 <= len; i += 4) sp.add4(_mm256_mul_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  const int64_t left = len - i;
  if (left > 0) {  // the last < 4 products, padded with a repeat of the first of them
    alignas(32) double rest[4];
    for (int64_t k = 0; k < 4; ++k) rest[k] = x[i + (k < left ? k : 0)] * y[i + (k < left ? k : 0)];
    sp.add4(_mm256_load_pd(rest));
  }
  sp.finish(x, 0, emax, emin);
}

inline bool narrow_products(unsigned emax, unsigned emin) { return narrow(emax, emin) && emin >= kDotMinExp; }

__attribute__((noinline)) void narrow_dot_block(const double* x, const double* y, int64_t len, unsigned emax,
                                                SuperaccDot& acc) {
  NarrowSums ps(emax), es(emax - kFmaErrorShift);
  int64_t i = 0;
  for (; i + 4 * NarrowSums::U <= len; i += 4 * NarrowSums::U)
    for (int u = 0; u < NarrowSums::U; ++u) {
      const v4d xv = _mm256_loadu_pd(x + i + 4 * u), yv = _mm256_loadu_pd(y + i + 4 * u);
      const v4d p = _mm256_mul_pd(xv, yv);
      ps.add4(u, p);
      es.add4(u, _mm256_fmsub_pd(xv, yv, p));  // TwoProductFMA: one rounding, exact here
    }
  alignas(32) double pr[4 * NarrowSums::U], er[4 * NarrowSums::U];
  const int64_t left = len - i;
  for (int64_t k = 0; k < left; ++k) {
    pr[k] = x[i + k] * y[i + k];
    er[k] = std::fma(x[i + k], y[i + k], -pr[k]);
  }
  ps.finish(pr, left, acc);
  es.finish(er, left, acc);
}

// ---- dot, fpe = 0, wide blocks: products and their errors straight into the chunk table ----
// Let x = mx 2^ex, y = my 2^ey (mx, my < 2^53 integers), p = RN(x y) with 2^-916 <= |p| < 2^970. Then x y <
// 2^(ex+ey+106), so E(p) <= ex + ey + 106; x y - p is a multiple of 2^(ex+ey) (or zero, when x y fits in 53 bits) of at
// most 2^(E(p)-53) <= 2^53 units of 2^(ex+ey). So e = fma(x, y, -p) = x y - p exactly (TwoProductFMA) and e is zero or
// normal (|e| >= 2^(E(p)-106) >= 2^-1022): both p and e go to their exponents' slots like a sum's terms. A zero error
// lands in a zero slot (0 or 0x800), which then holds junk (2^52 per zero) and is cleared after every chunk of
// pairs (2 kDotChunk values: the junk stays at most 2^61, below the flush threshold 2^63). Other products (zeros,
// specials, extremes) are added exactly by SuperaccDot::add_product.
constexpr double kDotTableMin = 0x1p-916;
constexpr int64_t kDotChunk = 256;  // pairs per round trip through the buffer (a multiple of 8; 4 KiB)

template <bool kPrefetch>
void wide_dot_block(const double* x, const double* y, int64_t len, ChunkTable& t, SuperaccDot& acc,
                    int64_t& fast_terms) {
  const v4d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const v4d max_in = _mm256_set1_pd(kFpeMaxInput), low = _mm256_set1_pd(kDotTableMin);
  alignas(32) double buf[2 * kDotChunk];  // per 4 pairs: 4 products, then their 4 errors
  int64_t i = 0;
  for (int64_t m; (m = std::min(kDotChunk, (len - i) & ~int64_t(7))) > 0; i += m) {
    for (int64_t j = 0; j < m; j += 8) {
      const int64_t k = i + j;
      if (kPrefetch) {
        _mm_prefetch(reinterpret_cast<const char*>(x + k + kPrefetchAhead), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(y + k + kPrefetchAhead), _MM_HINT_T0);
      }
      v4d p[2], err[2], ok[2];
      int okm = 0;
      for (int v = 0; v < 2; ++v) {
        const v4d av = _mm256_loadu_pd(x + k + 4 * v), bv = _mm256_loadu_pd(y + k + 4 * v);
        p[v] = _mm256_mul_pd(av, bv);
        err[v] = _mm256_fmsub_pd(av, bv, p[v]);  // exact for the lanes in range
        const v4d ap = _mm256_and_pd(p[v], abs_mask);
        ok[v] = _mm256_and_pd(_mm256_cmp_pd(ap, max_in, _CMP_LT_OQ), _mm256_cmp_pd(ap, low, _CMP_GE_OQ));
        okm |= _mm256_movemask_pd(ok[v]) << (4 * v);
      }
      if (__builtin_expect(okm != 0xFF, 0)) {
        for (int l = 0; l < 8; ++l)
          if (!((okm >> l) & 1)) acc.add_product(x[k + l], y[k + l]);
        for (int v = 0; v < 2; ++v) {  // +0 in the lanes just added: the zero slot
          p[v] = _mm256_and_pd(p[v], ok[v]);
          err[v] = _mm256_and_pd(err[v], ok[v]);
        }
      }
      fast_terms += __builtin_popcount(okm);
      for (int v = 0; v < 2; ++v) {
        _mm256_store_pd(buf + 2 * (j + 4 * v), p[v]);
        _mm256_store_pd(buf + 2 * (j + 4 * v) + 4, err[v]);
      }
    }
    for (int64_t j = 0; j < 2 * m; j += 8)
      for (int k = 0; k < 8; ++k) table_add(t, double_bits(buf[j + k]), acc);
    t.slot[0] = t.slot[0x800] = 0;  // zero errors and masked lanes: nothing to add
  }
  for (; i < len; ++i) acc.add_product(x[i], y[i]);  // the last < 8 pairs
}

// Four lanes of a dot's bounded sum: Sum2Lanes for the products p = fl(x y), and e the plain float sum of their
// TwoProductFMA errors.
struct DotLanes {
  Sum2Lanes p;
  v4d e = _mm256_setzero_pd();
  inline void add(v4d x, v4d y, v4d abs_mask) {
    const v4d prod = _mm256_mul_pd(x, y);
    e = _mm256_add_pd(e, _mm256_fmsub_pd(x, y, prod));
    p.add(prod, abs_mask);
  }
  inline bool in_range() const { return p.in_range(); }
  template <class Table>
  inline void flush(Table& t, SuperaccDot& acc, v4d& abs_total) const {
    p.flush(t, acc, abs_total);
    residue_to_table(t, e, acc);
  }
};

// ---- dot: TwoProductFMA; fpe = 0: narrow blocks by extraction, wide ones by the table; fpe = N: products and errors
// through the expansions, residues into the table ----
// A product p = RN(a*b) with 2^-968 <= |p| < 2^970 has an exact error e = fma(a, b, -p): the
// exact product has at most 106 bits, so its lowest bit is >= 2^-1074. Other products (zeros,
// specials, extremes) are added exactly as integers by SuperaccDot::add_product.
// bound: as for sum_tables (fpe = 0 only), but every block tries the lanes first.
template <int N, bool kEarlyExit>
void dot_vec(const double* x, const double* y, int64_t n, SuperaccDot& acc, double* bound) {
  constexpr int V = 2;
  v4d abs_total[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  int64_t front_pairs = 0;
  std::unique_ptr<ChunkTable> table(new ChunkTable);
  table->clear();
  v4d a[V][N > 0 ? N : 1];
  for (auto& row : a)
    for (auto& c : row) c = _mm256_setzero_pd();
  const v4d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const v4d max_in = _mm256_set1_pd(kFpeMaxInput), low = _mm256_set1_pd(0x1p-968), zero = _mm256_setzero_pd();
  int64_t fast_terms = 0, since_flush = 0;
  auto to_table = [&](v4d r) { residue_to_table(*table, r, acc); };
  auto through_fpe = [&](int v, v4d xv) { through_expansion<N, kEarlyExit>(a[v], xv, to_table); };
  int64_t i = 0;
  int skip = 0;
  for (int64_t s = 0; s < n; s += kBlock) {
    int64_t e = std::min(n, s + kBlock);
    // fpe = 0: one prefetch per cache line of x and y inside the loops, kPrefetchAhead ahead (a
    // burst per block stalls on full miss buffers); the expansions are slow enough for bursts.
    const bool ahead = N == 0 && e + kPrefetchAhead <= n;
    if (N > 0 && e < n) {
      prefetch_block(x + e, std::min(kBlock, n - e));
      prefetch_block(y + e, std::min(kBlock, n - e));
    }
    if (N == 0) {
      // With a bound every block goes through the lanes first: they take narrow blocks faster than the extraction.
      if (bound) {
        const bool ok = ahead ? front_block<true, DotLanes>(e - s, *table, acc, abs_total, x + s, y + s)
                              : front_block<false, DotLanes>(e - s, *table, acc, abs_total, x + s, y + s);
        if (ok) {
          fast_terms += e - s;
          front_pairs += e - s;
          continue;
        }
      }
      if (skip == 0) {
        unsigned emax, emin;
        if (ahead)
          product_span<true>(x + s, y + s, e - s, emax, emin);
        else
          product_span<false>(x + s, y + s, e - s, emax, emin);
        if (narrow_products(emax, emin)) {
          narrow_dot_block(x + s, y + s, e - s, emax, acc);
          fast_terms += e - s;  // all products nonzero
          continue;
        }
        skip = kWideSkip;
      } else {
        --skip;
      }
      if (ahead)
        wide_dot_block<true>(x + s, y + s, e - s, *table, acc, fast_terms);
      else
        wide_dot_block<false>(x + s, y + s, e - s, *table, acc, fast_terms);
      continue;
    }
    for (i = s; i + 4 * V <= e; i += 4 * V) {
      for (int v = 0; v < V; ++v) {
        v4d av = _mm256_loadu_pd(x + i + 4 * v), bv = _mm256_loadu_pd(y + i + 4 * v);
        v4d p = _mm256_mul_pd(av, bv);
        v4d ap = _mm256_and_pd(p, abs_mask);
        v4d ok = _mm256_and_pd(_mm256_cmp_pd(ap, max_in, _CMP_LT_OQ), _mm256_cmp_pd(ap, low, _CMP_GE_OQ));
        int okm = _mm256_movemask_pd(ok);
        if (__builtin_expect(okm != 0xF, 0)) {
          for (int l = 0; l < 4; ++l)
            if (!((okm >> l) & 1)) acc.add_product(x[i + 4 * v + l], y[i + 4 * v + l]);
          av = _mm256_and_pd(av, ok);  // 0 * 0: the lane adds nothing
          bv = _mm256_and_pd(bv, ok);
          p = _mm256_and_pd(p, ok);
        }
        fast_terms += __builtin_popcount(okm);
        v4d err = _mm256_fmadd_pd(av, bv, _mm256_sub_pd(zero, p));  // exact: TwoProductFMA
        through_fpe(v, p);
        through_fpe(v, err);
      }
    }
    for (; i < e; ++i) acc.add_product(x[i], y[i]);
    since_flush += 2 * (e - s);
    if (since_flush >= kFpeMaxAccumulations) {
      flush_expansions(a, acc);
      since_flush = 0;
    }
  }
  flush_expansions(a, acc);
  drain(*table, acc);
  acc.not_neg_zero_count += fast_terms;
  if (bound) *bound += front_bound(abs_total, 2) + static_cast<double>(front_pairs) * kSubnormalSpacing;
}

}  // namespace

void superacc_dot_accumulate(const double* x, const double* y, int64_t n, const SuperaccConfig& cfg, SuperaccDot& acc,
                             double* bound) {
  if (n < cfg.small_n) {  // within a bound: the lanes straight into acc; else every product exactly
    if (bound) {
      NoTable direct;
      v4d abs_total[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
      int64_t front_pairs = 0;
      for (int64_t s = 0; s < n; s += kBlock) {
        const int64_t e = std::min(n, s + kBlock);
        if (front_block<false, DotLanes>(e - s, direct, acc, abs_total, x + s, y + s))
          front_pairs += e - s;
        else
          for (int64_t i = s; i < e; ++i) acc.add_product(x[i], y[i]);
      }
      *bound += front_bound(abs_total, 2) + static_cast<double>(front_pairs) * kSubnormalSpacing;
      return;
    }
    for (int64_t i = 0; i < n; ++i) acc.add_product(x[i], y[i]);
    return;
  }
  with_config(
      cfg, "superacc-dot",
      [&](auto fpe, auto early_exit) {
        dot_vec<decltype(fpe)::value, decltype(early_exit)::value>(x, y, n, acc,
                                                                   decltype(fpe)::value == 0 ? bound : nullptr);
      },
      FpeSizes{});
}

}  // namespace accsum::cpu
