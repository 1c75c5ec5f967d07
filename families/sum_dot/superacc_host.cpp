// Correctly rounded, reproducible sum and dot on one core (Collange, Defour, Graillat, Iakymchuk, "Numerical
// reproducibility for the parallel reduction on multi- and many-core architectures", 2015): the host kernels the cpu,
// cpu-mt, mpi and opencl backends share (their registrations: backends/cpu/superacc_entries_cpu.cpp and the others).
//
// Levels of Collange et al. 2015 on a CPU core:
//   level 1 (fpe = 2..8): SIMD floating-point expansions (Alg. 2), 8 interleaved expansions in
//            two AVX2 vectors to break the TwoSum dependency chain; residues go to level 2.
//   level 2: an exponent-indexed chunk table (the idea of Neal's xsum "large accumulator"):
//            slot [sign|biased exponent] (the top 12 bits of a double) holds the integer sum
//            of the 53-bit significands of the terms with that sign and exponent. One integer
//            add per term, no shifts, no carries; a slot is moved to the superaccumulator when
//            it passes 2^63, so it never overflows (2^63 + 2^53 < 2^64).
//   level 3: the Superacc of core/numerics/superacc.hpp (exact, carry-save), then merge and round.
// Terms that the table cannot hold (zeros, subnormals, infinities, NaN: biased exponent 0 or
// 2047) land in four "special" slots; a block that touched one is re-scanned and those terms
// are added to the superaccumulator one by one.
//   level 2' (fpe = 0, a block whose terms span few binades, e.g. dynamic range 1): every term is
//            cut exactly at one fixed boundary and both pieces are summed exactly in AVX2
//            registers, two doubles per block to the superaccumulator (narrow_block_sum_scan below).
// Error-bounded mode (fpe = 0, what the registered kernels try first; the mergeable states stay exact): every block of
// a sum and of a dot goes through double-word (Sum2) lanes in AVX2 registers first, 4-7 vector additions per term and
// no table access; the lanes go to the table once per block (below SuperaccConfig::small_n terms: straight to the
// superaccumulator, no table), and the kernel rounds when the proven bound decides the rounding, else accumulates
// again exactly (front_block below). A block the lanes refuse (NaN, infinities, huge terms) takes the exact path.
#include "families/sum_dot/superacc_host.hpp"

#include <memory>
#include <string>
#include <vector>

#include "families/sum_dot/superacc_host_detail.hpp"

namespace accsum::cpu {
namespace {

// bound: null for the exact sum; else every block tries the lanes (front_block) first and *bound is added to.
void sum_tables(const double* x, int64_t n, Superacc& acc, double* bound) {
  std::unique_ptr<ChunkTable[]> tables(new ChunkTable[kTables]);  // cleared below, once
  for (int k = 0; k < kTables; ++k) tables[k].clear();
  ChunkTable* t = tables.get();
  v4d abs_total[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  int64_t fast_terms = 0;
  int skip = 0;
  bool scanned = false;  // emax, emin already hold this block's span (from the previous narrow block)
  unsigned emax = 0, emin = 0;
  for (int64_t s = 0; s < n; s += kBlock) {
    int64_t e = std::min(n, s + kBlock);
    // With a bound every block goes through the lanes first: they take narrow blocks faster than the extraction too
    // (10^7 standard normal or U[1,2) terms on one core of the 2-core VM: 4.6 and 3.0 ms against 11.6 and 12.4 ms).
    if (bound) {
      const bool ok = e + kPrefetchAhead <= n ? front_block<true, Sum2Lanes>(e - s, t[0], acc, abs_total, x + s)
                                              : front_block<false, Sum2Lanes>(e - s, t[0], acc, abs_total, x + s);
      if (ok) {
        fast_terms += e - s;
        scanned = false;
        continue;
      }
    }
    if (skip == 0) {
      if (!scanned) exponent_span(x + s, e - s, emax, emin);
      scanned = false;
      if (narrow(emax, emin)) {
        const int64_t ne = std::min(n, e + kBlock);
        narrow_block_sum_scan(x + s, e - s, emax, acc, x + e, ne - e, n - ne, emax, emin);
        scanned = true;
        fast_terms += e - s;  // all nonzero
        continue;
      }
      skip = kWideSkip;
    } else {
      --skip;
    }
    if (e + kPrefetchAhead <= n)
      tables_add_range<true>(t, x, s, e, acc);  // prefetches stay inside x
    else
      tables_add_range<false>(t, x, s, e, acc);
    fast_terms += e - s;
    bool special = false;
    for (int k = 0; k < kTables; ++k) special |= t[k].touched_special();
    if (special) {
      // Redo the block's special terms exactly: the fast loop only marked their slots.
      for (int k = 0; k < kTables; ++k) t[k].clear_special();
      for (int64_t j = s; j < e; ++j)
        if (special_bits(double_bits(x[j]))) {
          acc.add(x[j]);
          --fast_terms;
        }
    }
  }
  for (int k = 0; k < kTables; ++k) drain(tables[k], acc);
  acc.not_neg_zero_count += fast_terms;  // finite nonzero terms: decide the sign of a zero sum
  if (bound) *bound += front_bound(abs_total, 2);
}

template <int N, bool kEarlyExit>
void sum_fpe(const double* x, int64_t n, Superacc& acc) {
  constexpr int V = 2;  // vectors of 4 lanes: 8 independent expansions
  std::unique_ptr<ChunkTable> table(new ChunkTable);
  table->clear();
  v4d a[V][N];
  for (auto& row : a)
    for (auto& c : row) c = _mm256_setzero_pd();
  const v4d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const v4d max_in = _mm256_set1_pd(kFpeMaxInput), zero = _mm256_setzero_pd();
  bool fed = false;
  int64_t since_flush = 0;
  auto residue = [&](v4d r) { residue_to_table(*table, r, acc); };
  int64_t i = 0;
  for (int64_t s = 0; s < n; s += kBlock) {
    int64_t e = std::min(n, s + kBlock);
    if (e < n) prefetch_block(x + e, std::min(kBlock, n - e));
    for (i = s; i + 4 * V <= e; i += 4 * V) {
      for (int v = 0; v < V; ++v) {
        v4d xv = _mm256_loadu_pd(x + i + 4 * v);
        v4d ax = _mm256_and_pd(xv, abs_mask);
        // fpe_accepts lane by lane: 0 < |x| < 2^970 (NaN fails).
        v4d ok = _mm256_and_pd(_mm256_cmp_pd(ax, max_in, _CMP_LT_OQ), _mm256_cmp_pd(ax, zero, _CMP_GT_OQ));
        int okm = _mm256_movemask_pd(ok);
        if (__builtin_expect(okm != 0xF, 0)) {
          for (int l = 0; l < 4; ++l)
            if (!((okm >> l) & 1)) acc.add(x[i + 4 * v + l]);
          xv = _mm256_and_pd(xv, ok);  // TwoSum with +0 leaves an expansion unchanged
        }
        fed |= okm != 0;
        through_expansion<N, kEarlyExit>(a[v], xv, residue);
      }
    }
    for (; i < e; ++i) acc.add(x[i]);  // the last < 8 terms of the data
    since_flush += e - s;
    if (since_flush >= kFpeMaxAccumulations) {  // keeps the expansion far from overflow
      flush_expansions(a, acc);
      since_flush = 0;
    }
  }
  flush_expansions(a, acc);
  drain(*table, acc);
  if (fed) acc.add(0.0);  // nonzero terms went through: an exact zero sum is +0
}

}  // namespace

void superacc_sum_accumulate(const double* x, int64_t n, const SuperaccConfig& cfg, Superacc& acc, double* bound) {
  if (n < cfg.small_n) {  // within a bound: the lanes straight into acc; else every term exactly
    if (bound) {
      NoTable direct;
      v4d abs_total[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
      for (int64_t s = 0; s < n; s += kBlock) {
        const int64_t e = std::min(n, s + kBlock);
        if (!front_block<false, Sum2Lanes>(e - s, direct, acc, abs_total, x + s))
          for (int64_t i = s; i < e; ++i) acc.add(x[i]);  // NaN, infinities or huge terms: exactly
      }
      *bound += front_bound(abs_total, 2);
      return;
    }
    for (int64_t i = 0; i < n; ++i) acc.add(x[i]);
    return;
  }
  with_config(
      cfg, "superacc",
      [&](auto fpe, auto early_exit) {
        if constexpr (decltype(fpe)::value == 0)
          sum_tables(x, n, acc, bound);
        else
          sum_fpe<decltype(fpe)::value, decltype(early_exit)::value>(x, n, acc);
      },
      FpeSizes{});
}

std::vector<ParamSpec> superacc_params(int default_fpe, int default_early_exit) {
  return {ParamSpec{"fpe",
                    "floating-point expansion size of level 1 (0 = superaccumulator only)",
                    true,
                    0,
                    8,
                    {"0", "2", "3", "4", "6", "8"},
                    std::to_string(default_fpe)},
          ParamSpec{"early_exit",
                    "stop the expansion update once the error is zero (1) or not (0)",
                    true,
                    0,
                    1,
                    {"0", "1"},
                    std::to_string(default_early_exit)}};
}

SuperaccConfig superacc_config(const Params& p) {
  return SuperaccConfig{static_cast<int>(param_int(p, "fpe")), param_int(p, "early_exit") != 0};
}

}  // namespace accsum::cpu
