// The CUDA correctly rounded sum and dot (backends/cuda/superacc_cuda.cu) against the exact
// MPFR oracle.
//
// SuperaccCudaModel* run everywhere (CI has no GPU): a host model of the kernel's numerics built
// from the same ACCSUM_HD pieces (core/numerics/superacc_lanes.h: the lane digit split, normalization, the
// carry-free warp sum of unnormalized lanes, re-cut into core's digits, the dot slow path, the
// record merge, the flags, the carry functions and the window rounding), fed the way the kernel
// feeds them: per-lane expansions whose term 0 starts at -0, residues compacted per warp,
// private accumulators, block records, one device-level merge and the warp's parallel-prefix
// rounding (emulated lane by lane), checked against core's round().
//
// SuperaccCuda* need a CUDA device and skip with a notice without one: every distribution and
// expansion size, edge cases, small sizes and tile / grid boundaries, lanes full of pending
// pieces, contention (every lane flushing into the same digits, every product into one block's
// shared digits), launch shapes, the cpu backend, and n > 2^31.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/thread/superacc_lanes.cuh"
#include "core/numerics/eft.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "core/numerics/superacc.hpp"
#include "datasets/dataset.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using test::same_bits;
using namespace accsum::cuda;

double hexd(const char* s) { return std::strtod(s, nullptr); }

ExactValue exact_of(const std::vector<double>& x, const std::vector<double>& y) {
  return y.empty() ? exact_sum(x.data(), static_cast<int64_t>(x.size()))
                   : exact_dot(x.data(), y.data(), static_cast<int64_t>(x.size()));
}

// ---------------------------------------------------------------------------------------------
// Host emulation of level 5 on one warp (device/superacc_finish.cuh: warp_normalize, warp_round),
// step by step as the device runs it: v[r][lane] is the register of lane `lane` holding digit
// lane + 32 r, and a shuffle reads another lane's register.
template <int D, int RW>
void emulate_warp_normalize(int64_t (&v)[RW][32]) {
  const int64_t mask = static_cast<int64_t>(kDigitMask);
  for (int pass = 0; pass < 2; ++pass) {
    int64_t c[RW][32], below[RW][32];
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) {
        const bool low = lane + 32 * r < D - 1;
        c[r][lane] = low ? v[r][lane] >> kSuperaccDigitBits : 0;
        if (low) v[r][lane] &= mask;
      }
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) below[r][lane] = c[r][(lane + 31) & 31];
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) v[r][lane] += lane > 0 ? below[r][lane] : (r > 0 ? below[r - 1][lane] : 0);
  }
  int row_carry = 0;
  for (int r = 0; r < RW; ++r) {
    unsigned f[32], g[32];
    for (int lane = 0; lane < 32; ++lane)
      f[lane] = lane + 32 * r < D - 1 ? carry_fn(v[r][lane]) : kCarryIdentity;
    for (int off = 1; off < 32; off <<= 1) {
      for (int lane = 0; lane < 32; ++lane) g[lane] = lane >= off ? f[lane - off] : f[lane];  // __shfl_up_sync
      for (int lane = 0; lane < 32; ++lane)
        if (lane >= off) f[lane] = carry_compose(f[lane], g[lane]);
    }
    for (int lane = 0; lane < 32; ++lane) {
      const int d = lane + 32 * r;
      const int carry = lane > 0 ? carry_apply(f[lane - 1], row_carry) : row_carry;
      if (d < D - 1) v[r][lane] = (v[r][lane] + carry) & mask;
      else if (d == D - 1) v[r][lane] += carry;
    }
    row_carry = carry_apply(f[31], row_carry);
  }
}

template <class R>
double emulate_warp_round(const int64_t* digit, unsigned flags, int64_t n) {
  constexpr int D = R::kDigits, RW = (D + 31) / 32;
  int64_t v[RW][32];
  for (int r = 0; r < RW; ++r)
    for (int lane = 0; lane < 32; ++lane) v[r][lane] = lane + 32 * r < D ? digit[lane + 32 * r] : 0;
  emulate_warp_normalize<D>(v);
  const bool negative = v[(D - 1) / 32][(D - 1) % 32] < 0;
  if (negative) {
    for (auto& row : v)
      for (int64_t& x : row) x = -x;
    emulate_warp_normalize<D>(v);
  }
  int k = -1;
  for (int r = RW - 1; r >= 0; --r) {
    unsigned m = 0;
    for (int lane = 0; lane < 32; ++lane) m |= (v[r][lane] != 0 ? 1u : 0u) << lane;
    if (k < 0 && m) k = 32 * r + 31 - __builtin_clz(m);
  }
  bool sticky = false;
  for (int r = 0; r < RW; ++r)
    for (int lane = 0; lane < 32; ++lane) sticky |= lane + 32 * r < k - 2 && v[r][lane] != 0;
  auto at = [&](int d) { return d >= 0 ? v[d / 32][d % 32] : int64_t(0); };
  return round_window<R::kLsbExp>(flags, n, negative, k, at(k), at(k - 1), at(k - 2), sticky);
}

// ---------------------------------------------------------------------------------------------
// Host model of the kernel (levels 1-5), warp-synchronous like the device: each step feeds one
// term to each of the 32 lanes of a warp, then pushes the lanes' residues to the warp's ring.
template <bool DOT>
class KernelModel {
 public:
  using Record = std::conditional_t<DOT, SuperaccDot, Superacc>;
  KernelModel(int fpe, int blocks, int warps_per_block) : fpe_(fpe), blocks_(blocks), warps_(warps_per_block) {}

  double run(const std::vector<double>& x, const std::vector<double>& y) {
    const int64_t n = static_cast<int64_t>(x.size());
    const int lanes_per_block = 32 * warps_;
    std::vector<Record> records(blocks_);
    for (int b = 0; b < blocks_; ++b) {
      Record& rec = records[b];
      rec.clear();
      unsigned block_flags = 0;
      std::vector<int64_t> block_digits(kLaneDigits, 0);
      for (int w = 0; w < warps_; ++w) {
        Warp warp(fpe_);
        // Terms of this warp: element i goes to global lane i mod (all lanes), like a grid stride.
        const int64_t total_lanes = static_cast<int64_t>(blocks_) * lanes_per_block;
        const int64_t first = static_cast<int64_t>(b) * lanes_per_block + 32 * w;
        for (int64_t base = first; base < n; base += total_lanes) {
          double terms[32][2];
          bool has[32][2];
          for (int l = 0; l < 32; ++l) {
            const int64_t i = base + l;
            has[l][0] = has[l][1] = false;
            terms[l][0] = terms[l][1] = -0.0;
            if (i >= n) continue;
            if (!DOT) {
              feed_sum(warp.lanes[l], x[i], terms[l][0], has[l][0]);
            } else {
              feed_dot(warp.lanes[l], x[i], y[i], rec, terms[l][0], terms[l][1], has[l][0]);
              has[l][1] = has[l][0];
            }
          }
          // Expansion step for every lane (p at term 0; e at term 1), then compaction.
          for (int t = 0; t < (DOT ? 2 : 1); ++t) {
            double residue[32];
            for (int l = 0; l < 32; ++l) residue[l] = warp.lanes[l].expansion_add(terms[l][t], t == 1);
            for (int l = 0; l < 32; ++l) warp.push(residue[l]);
          }
        }
        warp.finish();
        for (int l = 0; l < 32; ++l) block_flags |= warp.lanes[l].flags;
        // The warp's carry-free reduction of its unnormalized lanes (warp_reduce_lane_digits).
        LaneSum rows[kLaneDigits];
        for (int d = 0; d < kLaneDigits; ++d) {
          uint64_t total = 0;
          int high = 0;
          for (int l = 0; l < 32; ++l) {
            total += static_cast<uint64_t>(warp.lanes[l].digit[d]);
            high += static_cast<int>(warp.lanes[l].digit[d] >> kLaneDigitBits);
          }
          rows[d] = lane_sum_from_total(total, high);
        }
        for (int d = 0; d < kLaneDigits; ++d)
          block_digits[d] += merged_digit<kLaneDigits, kLaneDigitBits>(d, rows[d], d > 0 ? &rows[d - 1] : nullptr);
      }
      for (int d = 0; d < kLaneDigits; ++d) add_int64_at(rec, block_digits[d], lane_digit_pos<Record::kLsbExp>(d));
      set_flags(rec, block_flags, 0);
    }
    // Level 4-5: the finishing kernel's merge and core's rounding.
    constexpr int D = Record::kDigits;
    std::vector<DigitSum> sums(D);
    unsigned flags = 0;
    for (auto& r : records) {
      for (int d = 0; d < D; ++d) sums[d].add(r.digit[d]);
      flags |= record_flags(r);
    }
    Record acc;
    acc.clear();
    for (int d = 0; d < D; ++d) acc.digit[d] = merged_digit<D>(d, sums[d], d > 0 ? &sums[d - 1] : nullptr);
    const double got = emulate_warp_round<Record>(acc.digit, flags, n);
    set_flags(acc, flags, n);
    if (!test::same_bits(got, acc.round())) ADD_FAILURE() << "warp rounding differs from core's round()";
    return got;
  }

  int64_t slow_terms = 0, flush_rounds = 0;

 private:
  struct Lane {
    std::vector<double> a;
    int64_t digit[kLaneDigits] = {};
    int pending = 0;
    unsigned flags = 0;
    explicit Lane(int fpe) : a(fpe > 0 ? fpe : 1, 0.0) { a[0] = -0.0; }
    void add(double r) {
      if (pending == kLaneMaxPending) normalize();
      ++pending;
      int k;
      if (lane_fast_ok(r)) {
        int64_t lo, hi;
        lane_split_fast(r, k, lo, hi);
        digit[k] += lo;
        digit[k + 1] += hi;
      } else {
        int64_t p0, p1, p2;
        lane_split_exact(r, k, p0, p1, p2);
        digit[k] += p0;
        digit[k + 1] += p1;
        digit[k + 2] += p2;
      }
    }
    void normalize() {
      lane_normalize(digit, 1);
      pending = 0;
    }
    // Alg. 2 from term `start`; with fpe = 0 the term goes straight to the digits.
    double expansion_add(double v, bool second) {
      if (a.size() == 1 && fpe0) {
        if (!second) a[0] = a[0] + v;  // zero-sign tracking only
        add(v);
        return 0.0;
      }
      for (size_t i = second ? 1 : 0; i < a.size(); ++i) two_sum(a[i], v, a[i], v);
      return v;
    }
    bool fpe0 = false;
  };
  struct Warp {
    std::vector<Lane> lanes;
    std::deque<double> ring;
    explicit Warp(int fpe) : lanes(32, Lane(fpe)) {
      for (auto& l : lanes) l.fpe0 = fpe == 0;
    }
    void push(double r) {
      if (r == 0.0) return;
      ring.push_back(r);
      if (ring.size() >= 32) {
        for (int l = 0; l < 32; ++l) lanes[l].add(ring[l]);
        ring.erase(ring.begin(), ring.begin() + 32);
      }
    }
    void finish() {
      for (size_t l = 0; l < ring.size(); ++l) lanes[l].add(ring[l]);
      ring.clear();
      for (auto& lane : lanes) {
        if (!lane.fpe0)
          for (double v : lane.a) lane.add(v);
        if (double_bits(lane.a[0]) != (uint64_t(1) << 63)) lane.flags |= kFlagNotNegZero;
      }  // left unnormalized, pending pieces and all, as on the device
    }
  };

  void feed_sum(Lane& lane, double v, double& term, bool& has) {
    const uint32_t h = static_cast<uint32_t>(double_bits(v) >> 32) & 0x7FFFFFFFu;
    const uint32_t slow_hi = fpe_ > 0 ? kSumSlowHi : 0x7FF00000u;
    if (h >= slow_hi) {
      ++slow_terms;
      if (h >= 0x7FF00000u) {
        lane.flags |= sum_special_flags(v);
      } else {
        lane.add(v);
        lane.flags |= kFlagNotNegZero;
      }
      return;
    }
    term = v;
    has = true;
  }
  void feed_dot(Lane& lane, double a, double b, Record& rec, double& p, double& e, bool& has) {
    double prod, err;
    two_prod_fma(a, b, prod, err);
    const uint32_t h = static_cast<uint32_t>(double_bits(prod) >> 32) & 0x7FFFFFFFu;
    if (!dot_fast_range(h)) {
      ++slow_terms;
      lane.flags |= dot_slow_terms(a, b, [&rec](int idx, int64_t v) { rec.digit[idx] += v; });
      return;
    }
    p = prod;
    e = err;
    has = true;
  }

  int fpe_, blocks_, warps_;
};

template <bool DOT>
double model(const std::vector<double>& x, const std::vector<double>& y, int fpe, int blocks = 3, int warps = 2) {
  KernelModel<DOT> m(fpe, blocks, warps);
  return m.run(x, y);
}

const int kFpes[] = {0, 2, 3, 4, 6, 8};

// Rebuilds x from lane pieces through core's accumulator and rounding.
double reassemble(int k, const std::vector<int64_t>& pieces) {
  Superacc acc;
  acc.clear();
  for (size_t j = 0; j < pieces.size(); ++j) add_int64_at(acc, pieces[j], lane_digit_pos<-1074>(k + static_cast<int>(j)));
  acc.not_neg_zero_count = 1;
  return acc.round();
}

TEST(SuperaccCudaModel, LaneSplitsReassembleEveryDouble) {
  std::mt19937_64 rng(4);
  int fast = 0;
  for (int i = 0; i < 300000; ++i) {
    double x = test::random_bits_double(rng);
    if (i % 4 == 0) x = std::ldexp(x, -static_cast<int>(rng() % 1100));  // many tiny ones too
    if (!std::isfinite(x)) continue;
    const double want = x == 0 ? 0.0 : x;
    int k;
    int64_t p0, p1, p2;
    lane_split_exact(x, k, p0, p1, p2);
    ASSERT_TRUE(p0 >= 0 && p0 < (int64_t(1) << 50) && p1 >= 0 && p1 < (int64_t(1) << 50) && p2 >= -4 && p2 <= 3);
    ASSERT_TRUE(k >= 0 && k + 2 < kLaneDigits);
    ASSERT_TRUE(same_bits(reassemble(k, {p0, p1, p2}), want)) << std::hexfloat << x;
    if (!lane_fast_ok(x)) {
      ASSERT_LT(std::fabs(x), 0x1p-972);
      continue;
    }
    ++fast;
    int64_t lo, hi;
    lane_split_fast(x, k, lo, hi);
    ASSERT_LE(std::llabs(lo), int64_t(1) << 50);
    ASSERT_LE(std::llabs(hi), int64_t(1) << 52);
    ASSERT_TRUE(k >= 1 && k + 1 < kLaneDigits);
    ASSERT_TRUE(same_bits(reassemble(k, {lo, hi}), want)) << std::hexfloat << x;
  }
  EXPECT_GT(fast, 150000);
  // Ties of the FP64 cut (q exactly halfway between integers) and the extremes.
  for (double x : {DBL_MAX, -DBL_MAX, 0x1p-972, -0x1p-972, hexd("0x1.fffffffffffffp-923"), 3.0, 0x1p52, hexd("0x1.fffffffffffffp+1000"), hexd("0x1.0000000000001p-972"), 0x1p970, 1.5, -2.5,
                   hexd("0x1.8p-923"), hexd("0x1.fffffffffffffp+49"), hexd("-0x1.0000000000001p+51")}) {
    int k;
    int64_t lo, hi;
    ASSERT_TRUE(lane_fast_ok(x));
    lane_split_fast(x, k, lo, hi);
    ASSERT_TRUE(same_bits(reassemble(k, {lo, hi}), x)) << std::hexfloat << x;
  }
  // Headroom: kLaneMaxPending pieces of the largest size on a normalized digit stay in int64.
  static_assert((int64_t(1) << 50) + static_cast<__int128>(kLaneMaxPending) * (int64_t(1) << 52) <
                    (static_cast<__int128>(1) << 63),
                "lane digit headroom");
}

TEST(SuperaccCudaModel, DivisionByFiftyIsExact) {
  for (uint32_t p = 0; p < (1u << 20); ++p) ASSERT_EQ(div50(p), p / 50u) << p;
}

TEST(SuperaccCudaModel, Int64PiecesCoverTheWholeRange) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    int64_t v = static_cast<int64_t>(rng());
    if (i % 3 == 0) v >>= rng() % 64;
    int s = static_cast<int>(rng() % 32);
    int64_t p0, p1, p2;
    int64_pieces(v, s, p0, p1, p2);
    __int128 want = static_cast<__int128>(v) * (static_cast<__int128>(1) << s);
    // products, not shifts: << of a negative value is undefined before C++20 (UBSan)
    __int128 got = p0 + static_cast<__int128>(p1) * (static_cast<__int128>(1) << 32) +
                   static_cast<__int128>(p2) * (static_cast<__int128>(1) << 64);
    ASSERT_TRUE(got == want) << v << " << " << s;
    ASSERT_LT(std::llabs(p1), int64_t(1) << 33);
  }
}

TEST(SuperaccCudaModel, DotFastRangeKeepsTheProductErrorExact) {
  // Every product that takes the fast path has an exactly representable TwoProductFMA error:
  // check p + e against the oracle's exact product on products near both ends of the window.
  std::mt19937_64 rng(6);
  int fast = 0;
  for (int i = 0; i < 100000; ++i) {
    int ea = static_cast<int>(rng() % 2100) - 1074, eb = -1000 - ea + static_cast<int>(rng() % 2000);
    double a = std::ldexp(1.0 + static_cast<double>(rng() >> 11) * 0x1p-53, ea);
    double b = std::ldexp(1.0 + static_cast<double>(rng() >> 11) * 0x1p-53, eb);
    if (!std::isfinite(a) || !std::isfinite(b) || a == 0 || b == 0) continue;
    double p, e;
    two_prod_fma(a, b, p, e);
    if (!dot_fast_range(static_cast<uint32_t>(double_bits(p) >> 32) & 0x7FFFFFFFu)) continue;
    ++fast;
    std::vector<double> xs = {p, e}, one = {a}, two = {b};
    ExactValue sum_pe = exact_sum(xs.data(), 2), prod = exact_dot(one.data(), two.data(), 1);
    ASSERT_EQ(sum_pe.decimal, prod.decimal) << std::hexfloat << a << " * " << b;
  }
  EXPECT_GT(fast, 1000);
}

std::vector<GenSpec> model_specs(const std::string& family) {
  std::vector<GenSpec> specs;
  const double ranges[] = {1, 1e10, 1e50, 1e100, 1e300};
  const double conds[] = {1e3, 1e30, 1e100, 1e300};
  const int64_t sizes[] = {1, 2, 3, 33, 1000, 5001};
  uint64_t seed = 1;
  for (const auto& dist : dist_names()) {
    for (int64_t n : sizes) {
      GenSpec s;
      s.dist = dist;
      s.family = family;
      s.n = n;
      s.seed = seed++;
      s.range = ranges[seed % 5];
      s.cond = conds[seed % 4];
      if (dist == "ties" && n < 2) continue;
      specs.push_back(s);
    }
  }
  return specs;
}

TEST(SuperaccCudaModel, SumsAllDistributionsAllExpansionSizes) {
  int cases = 0;
  for (const GenSpec& s : model_specs("sum")) {
    Dataset d = generate(s);
    const double want = exact_of(d.x, {}).rounded;
    for (int fpe : kFpes) {
      double got = model<false>(d.x, {}, fpe);
      ASSERT_TRUE(same_bits(got, want)) << s.dist << " n=" << s.n << " seed=" << s.seed << " fpe=" << fpe << ": "
                                        << hex_double(got) << " vs " << hex_double(want);
      ++cases;
    }
  }
  EXPECT_GT(cases, 200);
}

TEST(SuperaccCudaModel, DotsAllDistributionsAllExpansionSizes) {
  for (const GenSpec& s : model_specs("dot")) {
    Dataset d = generate(s);
    const double want = exact_of(d.x, d.y).rounded;
    for (int fpe : kFpes) {
      double got = model<true>(d.x, d.y, fpe);
      ASSERT_TRUE(same_bits(got, want)) << s.dist << " n=" << s.n << " seed=" << s.seed << " fpe=" << fpe << ": "
                                        << hex_double(got) << " vs " << hex_double(want);
    }
  }
}

TEST(SuperaccCudaModel, LargerInputsEveryRange) {
  for (double range : {1.0, 1e10, 1e50, 1e100, 1e300}) {
    for (const char* family : {"sum", "dot"}) {
      GenSpec s;
      s.dist = "loguniform";
      s.family = family;
      s.n = 60001;
      s.range = range;
      s.seed = 77;
      Dataset d = generate(s);
      const double want = exact_of(d.x, d.y).rounded;
      for (int fpe : {0, 2, 8}) {
        const double got = d.y.empty() ? model<false>(d.x, d.y, fpe, 2, 4) : model<true>(d.x, d.y, fpe, 2, 4);
        ASSERT_TRUE(same_bits(got, want)) << family << " range=" << range << " fpe=" << fpe;
      }
    }
  }
}

TEST(SuperaccCudaModel, RandomTermsAtBothEndsOfTheRange) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::vector<double> x = test::random_terms(rng, 1 + rng() % 300);
    std::vector<double> y = test::random_terms(rng, x.size());
    const double want_sum = exact_of(x, {}).rounded, want_dot = exact_of(x, y).rounded;
    const int fpe = kFpes[round % 6];
    ASSERT_TRUE(same_bits(model<false>(x, {}, fpe, 2, 1), want_sum)) << test::dump(x);
    ASSERT_TRUE(same_bits(model<true>(x, y, fpe, 2, 1), want_dot)) << test::dump(x) << " . " << test::dump(y);
  }
}

TEST(SuperaccCudaModel, SignedZerosAndSpecials) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> cases = {
      {},         {-0.0},         {-0.0, -0.0, -0.0}, {-0.0, 0.0},  {1.0, -1.0},          {0x1p980, -0x1p980},
      {inf},      {-inf, 1.0},    {inf, -inf},        {nan, 1.0},   {DBL_MAX, DBL_MAX},   {DBL_MAX, DBL_MAX, -DBL_MAX},
      {1.0, 0x1p-53}, {1.0, 0x1p-53, 0x1p-1074}, {0x1p-1074, -0x1p-1073, 0x1p-1074, 0x1p-1074}};
  for (const auto& x : cases) {
    const double want = exact_of(x, {}).rounded;
    for (int fpe : kFpes) EXPECT_TRUE(same_bits(model<false>(x, {}, fpe), want)) << test::dump(x) << " fpe=" << fpe;
  }
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> dots = {
      {{-0.0}, {1.0}},           {{0.0}, {-1.0}},        {{0.0, -0.0}, {-1.0, 1.0}}, {{inf}, {0.0}},
      {{inf}, {-2.0}},           {{0x1p600, -0x1p600, 1.0}, {0x1p600, 0x1p600, 0x1p-60}},
      {{0x1p-600, 0x1p-600}, {0x1p-500, -0x1p-500}}, {{0x1p-600}, {0x1.8p-500}}, {{nan}, {0.0}}};
  for (const auto& [x, y] : dots) {
    const double want = exact_of(x, y).rounded;
    for (int fpe : kFpes)
      EXPECT_TRUE(same_bits(model<true>(x, y, fpe), want)) << test::dump(x) << " . " << test::dump(y) << " fpe=" << fpe;
  }
}

TEST(SuperaccCudaModel, FloodOfOneValueNeedsManyNormalizations) {
  // 32 lanes * 3000 copies of a full-significand value near the fast-path limit: every step
  // leaves residues, so lanes absorb far more than kLaneMaxPending pieces between merges.
  const double v = hexd("0x1.fffffffffffffp+969");
  std::vector<double> x(200000, v);
  x.push_back(0x1p970);  // and a slow-path term
  const double want = exact_of(x, {}).rounded;
  KernelModel<false> m(2, 1, 1);
  EXPECT_TRUE(same_bits(m.run(x, {}), want));
  EXPECT_EQ(m.slow_terms, 1);
}

// Digit vectors that exercise carries: random values below 2^53 (merged record digits), values
// on the carry boundaries, and long runs that a single carry or borrow must cross.
std::vector<int64_t> carry_test_digits(std::mt19937_64& rng, int D) {
  const int64_t w = int64_t(1) << 32;
  const int64_t edge[] = {0, 1, -1, w - 1, w, w + 1, -w, w - 2, 2 * w - 1, -(w - 1)};
  std::vector<int64_t> v(D);
  const int kind = static_cast<int>(rng() % 5);
  for (int d = 0; d < D; ++d) {
    const int64_t r = static_cast<int64_t>(rng() >> 11) * ((rng() & 1) ? 1 : -1);  // |r| < 2^53
    switch (kind) {
      case 0: v[d] = r; break;
      case 1: v[d] = edge[rng() % 10]; break;
      case 2: v[d] = (rng() % 4) ? w - 1 : r % w; break;  // runs of 2^32 - 1
      case 3: v[d] = (rng() % 4) ? 0 : r % 4; break;      // runs of zeros
      default: v[d] = (rng() % 3) ? edge[rng() % 10] : r >> (rng() % 50); break;
    }
  }
  if (kind >= 2 && rng() % 2) v[rng() % 3] = (rng() & 1) ? -1 : w;  // a borrow or a carry at the bottom
  if (rng() % 4 == 0) v[D - 1] = 0;
  return v;
}

template <int D>
void check_warp_normalize(std::mt19937_64& rng, int rounds) {
  constexpr int RW = (D + 31) / 32;
  for (int i = 0; i < rounds; ++i) {
    std::vector<int64_t> want = carry_test_digits(rng, D);
    int64_t v[RW][32];
    for (int d = 0; d < 32 * RW; ++d) v[d / 32][d % 32] = d < D ? want[d] : 0;
    accsum_normalize(want.data(), D);
    emulate_warp_normalize<D>(v);
    for (int d = 0; d < 32 * RW; ++d) ASSERT_EQ(v[d / 32][d % 32], d < D ? want[d] : 0) << "D=" << D << " digit " << d;
  }
}

TEST(SuperaccCudaModel, WarpCarryPrefixMatchesSequentialNormalization) {
  // The carry functions compose as functions do (associativity is what the prefix relies on).
  for (int64_t a : {int64_t(-1), int64_t(0), int64_t(5), (int64_t(1) << 32) - 1, int64_t(1) << 32})
    for (int64_t b : {int64_t(-1), int64_t(0), (int64_t(1) << 32) - 1, int64_t(1) << 32})
      for (int c = -1; c <= 1; ++c) {
        const int sequential = static_cast<int>((b + ((a + c) >> 32)) >> 32);
        ASSERT_EQ(carry_apply(carry_compose(carry_fn(b), carry_fn(a)), c), sequential) << a << " " << b << " " << c;
        ASSERT_EQ(carry_apply(carry_compose(kCarryIdentity, carry_fn(a)), c), carry_apply(carry_fn(a), c));
      }
  std::mt19937_64 rng(12);
  check_warp_normalize<kSumDigits>(rng, 20000);
  check_warp_normalize<kDotDigits>(rng, 20000);
}

// Unnormalized representations of meaningful values: core's accumulator of some terms, then
// 2^32 units moved between neighbouring digits at random (the value does not change).
template <class R>
void scramble(R& acc, std::mt19937_64& rng) {
  for (int d = 0; d + 1 < R::kDigits; ++d) {
    const int64_t t = static_cast<int64_t>(rng() % (1u << 20)) - (1 << 19);
    acc.digit[d] += t * (int64_t(1) << 32);
    acc.digit[d + 1] -= t;
  }
}

TEST(SuperaccCudaModel, WarpRoundingMatchesCoreRounding) {
  std::mt19937_64 rng(13);
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<double> x = test::random_terms(rng, 1 + rng() % 6);
    if (i % 7 == 0) x = {1.0, 0x1p-53 * ((i & 8) ? 1 : -1), 0x1p-1074 * ((i & 16) ? 1 : 0)};  // ties and near-ties
    if (i % 11 == 0) x = {DBL_MAX, hexd("0x1p970"), -0x1p918 * static_cast<double>(i % 3)};  // overflow by rounding
    if (i % 13 == 0) x = {0x1p-1074 * static_cast<double>(i % 5), -0x1p-1060};  // subnormal results
    Superacc s;
    SuperaccDot t;
    s.clear();
    t.clear();
    for (size_t j = 0; j < x.size(); ++j) {
      s.add(x[j]);
      t.add_product(x[j], x[(j + 1) % x.size()]);
    }
    const bool scrambled = i % 2 == 0;
    if (scrambled) {
      scramble(s, rng);
      scramble(t, rng);
    }
    for (unsigned flags : {0u, kFlagNotNegZero, kFlagNan, kFlagPosInf, kFlagNegInf | kFlagNotNegZero}) {
      if (flags != kFlagNotNegZero && i % 50) continue;
      const int64_t n = i % 3 == 0 ? 0 : 5;
      const double got_s = emulate_warp_round<Superacc>(s.digit, flags, n);
      const double got_t = emulate_warp_round<SuperaccDot>(t.digit, flags, n);
      set_flags(s, flags, n);
      set_flags(t, flags, n);
      ASSERT_TRUE(same_bits(got_s, s.round())) << test::dump(x) << " flags=" << flags;
      ASSERT_TRUE(same_bits(got_t, t.round())) << test::dump(x) << " flags=" << flags;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20000);
  // Digits of any size below 2^53 (merged records), both signs.
  for (int i = 0; i < 5000; ++i) {
    Superacc s;
    s.clear();
    std::vector<int64_t> d = carry_test_digits(rng, kSumDigits);
    for (int j = 0; j < kSumDigits; ++j) s.digit[j] = j < kSumDigits - 3 ? d[j] : d[j] % 1000;
    const double got = emulate_warp_round<Superacc>(s.digit, kFlagNotNegZero, 1);
    set_flags(s, kFlagNotNegZero, 1);
    ASSERT_TRUE(same_bits(got, s.round())) << i;
  }
}

// A warp's lanes full of pending pieces (kLaneMaxPending of up to 2^52 on a normalized digit)
// summed by LaneSum / merged_digit as warp_reduce_lane_digits does: the same value as adding
// every lane's digits one by one to core's accumulator.
TEST(SuperaccCudaModel, WarpSumOfUnnormalizedLanesIsExact) {
  std::mt19937_64 rng(14);
  for (int round = 0; round < 300; ++round) {
    int64_t lanes[32][kLaneDigits];
    for (auto& lane : lanes) {
      for (int d = 0; d < kLaneDigits; ++d) {
        const int64_t normalized = static_cast<int64_t>(rng() & static_cast<uint64_t>(kLaneDigitMask));
        const int64_t pieces = (round % 3 == 0) ? kLaneMaxPending : static_cast<int64_t>(rng() % (kLaneMaxPending + 1));
        const int64_t piece = (static_cast<int64_t>(1) << 52) - static_cast<int64_t>(rng() % 1000);
        const int sign = (round % 3 == 1) ? 1 : (round % 3 == 2) ? -1 : ((rng() & 1) ? 1 : -1);
        lane[d] = normalized + sign * pieces * piece;
      }
      lane[kLaneDigits - 1] = static_cast<int64_t>(rng() % (uint64_t(1) << 33)) - (int64_t(1) << 32);
    }
    Superacc got, want;
    got.clear();
    want.clear();
    LaneSum rows[kLaneDigits] = {};
    for (int d = 0; d < kLaneDigits; ++d) {
      uint64_t total = 0;
      int high = 0;
      for (auto& lane : lanes) {
        rows[d].add(lane[d]);
        total += static_cast<uint64_t>(lane[d]);
        high += static_cast<int>(lane[d] >> kLaneDigitBits);
        add_int64_at(want, lane[d], lane_digit_pos<kSumLsb>(d));
      }
      const LaneSum fast = lane_sum_from_total(total, high);
      ASSERT_TRUE(fast.low == rows[d].low && fast.high == rows[d].high) << "digit " << d;
    }
    for (int d = 0; d < kLaneDigits; ++d) {
      const int64_t v = merged_digit<kLaneDigits, kLaneDigitBits>(d, rows[d], d > 0 ? &rows[d - 1] : nullptr);
      ASSERT_LT(std::llabs(v), int64_t(1) << 56);
      add_int64_at(got, v, lane_digit_pos<kSumLsb>(d));
    }
    got.normalize();
    want.normalize();
    for (int d = 0; d < kSumDigits; ++d) ASSERT_EQ(got.digit[d], want.digit[d]) << "round " << round << " digit " << d;
  }
}

// ---------------------------------------------------------------------------------------------
// On the GPU.

bool cuda_present() {
  const BackendInfo* b = registry().backend("cuda");
  return b && b->available && b->available();
}
#define REQUIRE_CUDA()                                                                                  \
  do {                                                                                                  \
    if (!cuda_present()) GTEST_SKIP() << "no CUDA device here: SuperaccCuda tests run on the GPU machine"; \
    require_backend("cuda");                                                                            \
  } while (0)

double run_cuda(const std::string& algo, const std::vector<double>& x, const std::vector<double>& y,
                const Params& user) {
  const AlgoEntry* e = registry().find(algo, "cuda");
  if (!e) throw std::runtime_error(algo + " is not registered on cuda");
  Problem p = Problem::vectors(x.data(), y.empty() ? nullptr : y.data(), static_cast<int64_t>(x.size()), next_dataset_id());
  auto k = e->make(p, registry().resolve_params(*e, user));
  return k->run_scalar();
}
double run_cuda(const std::string& algo, const Dataset& d, const Params& user) {
  const AlgoEntry* e = registry().find(algo, "cuda");
  if (!e) throw std::runtime_error(algo + " is not registered on cuda");
  auto k = e->make(d.problem(), registry().resolve_params(*e, user));
  return k->run_scalar();
}

std::vector<Params> all_configs() {
  std::vector<Params> v;
  for (int fpe : kFpes)
    for (int ee : {0, 1})
      for (int adaptive : {0, 1}) {
        if (fpe == 0 && (ee || adaptive)) continue;
        v.push_back(Params{{"fpe", std::to_string(fpe)},
                           {"early_exit", std::to_string(ee)},
                           {"adaptive", std::to_string(adaptive)}});
      }
  return v;
}

TEST(SuperaccCuda, RegisteredWithTheirPromise) {
  if (!registry().backend("cuda")) GTEST_SKIP() << "built without the CUDA backend";
  for (const char* algo : {"superacc", "superacc-dot"}) {
    const AlgoEntry* e = registry().find(algo, "cuda");
    ASSERT_NE(e, nullptr) << algo;
    EXPECT_EQ(e->guarantee, Guarantee::correctly_rounded);
    EXPECT_TRUE(e->reproducible);
    ASSERT_TRUE(e->shape_variants);
    EXPECT_GE(e->shape_variants(registry().resolve_params(*e, {})).size(), 2u);
    EXPECT_THROW(registry().resolve_params(*e, {{"fpe", "5"}}), UsageError);
    EXPECT_THROW(registry().resolve_params(*e, {{"block", "100"}}), UsageError);
  }
}

TEST(SuperaccCuda, GeneratedSumsAllDistributionsAllConfigs) {
  REQUIRE_CUDA();
  const int64_t sizes[] = {1, 2, 3, 31, 1000, 4097, 65537, (1 << 20) + 5};
  const double ranges[] = {1, 1e10, 1e50, 1e100, 1e300};
  const double conds[] = {1e3, 1e16, 1e50, 1e300};
  uint64_t seed = 100;
  int cases = 0;
  for (const auto& dist : dist_names())
    for (int64_t n : sizes) {
      if (dist == "ties" && n < 2) continue;
      GenSpec s;
      s.dist = dist;
      s.n = n;
      s.seed = ++seed;
      s.range = ranges[seed % 5];
      s.cond = conds[seed % 4];
      Dataset d = generate(s);
      const double want = exact_of(d.x, {}).rounded;
      for (const Params& p : all_configs()) {
        const double got = run_cuda("superacc", d, p);
        ASSERT_TRUE(same_bits(got, want)) << dist << " n=" << n << " seed=" << s.seed << " fpe=" << p.at("fpe")
                                          << " ee=" << p.at("early_exit") << ": " << hex_double(got) << " vs "
                                          << hex_double(want);
        ++cases;
      }
    }
  EXPECT_GT(cases, 500);
}

TEST(SuperaccCuda, GeneratedDotsAllDistributionsAllConfigs) {
  REQUIRE_CUDA();
  const int64_t sizes[] = {1, 2, 3, 1000, 65537, (1 << 19) + 3};
  const double ranges[] = {1, 1e10, 1e50, 1e100, 1e300};
  const double conds[] = {1e3, 1e16, 1e50, 1e300};
  uint64_t seed = 300;
  for (const auto& dist : dist_names())
    for (int64_t n : sizes) {
      if (dist == "ties" && n < 2) continue;
      GenSpec s;
      s.dist = dist;
      s.family = "dot";
      s.n = n;
      s.seed = ++seed;
      s.range = ranges[seed % 5];
      s.cond = conds[seed % 4];
      Dataset d = generate(s);
      const double want = exact_of(d.x, d.y).rounded;
      for (const Params& p : all_configs()) {
        const double got = run_cuda("superacc-dot", d, p);
        ASSERT_TRUE(same_bits(got, want)) << dist << " n=" << n << " seed=" << s.seed << " fpe=" << p.at("fpe")
                                          << " ee=" << p.at("early_exit") << ": " << hex_double(got) << " vs "
                                          << hex_double(want);
      }
    }
}

TEST(SuperaccCuda, EdgeCases) {
  REQUIRE_CUDA();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> sums = {
      {},         {-0.0},         {-0.0, -0.0, -0.0}, {-0.0, 0.0},  {1.0, -1.0},          {0x1p980, -0x1p980},
      {inf},      {-inf, 1.0},    {inf, -inf},        {nan, 1.0},   {DBL_MAX, DBL_MAX},   {DBL_MAX, DBL_MAX, -DBL_MAX},
      {1.0, 0x1p-53}, {1.0, 0x1p-53, 0x1p-1074}, {0x1p-1074}, {-DBL_MIN}};
  for (const auto& x : sums) {
    const double want = exact_of(x, {}).rounded;
    for (const Params& p : all_configs())
      EXPECT_TRUE(same_bits(run_cuda("superacc", x, {}, p), want)) << test::dump(x) << " fpe=" << p.at("fpe");
  }
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> dots = {
      {{}, {}},
      {{-0.0}, {1.0}},
      {{0.0}, {-1.0}},
      {{-0.0, 0.0}, {1.0, -1.0}},
      {{0.0, -0.0}, {-1.0, 1.0}},
      {{inf}, {0.0}},
      {{inf}, {-2.0}},
      {{0x1p600, -0x1p600, 1.0}, {0x1p600, 0x1p600, 0x1p-60}},
      {{0x1p-600, 0x1p-600}, {0x1p-500, -0x1p-500}},
      {{0x1p-600, 1.0}, {0x1.8p-500, 0x1p-1074}},
      {{DBL_MAX, 2.0}, {2.0, -DBL_MAX}},
      {{nan}, {0.0}}};
  for (const auto& [x, y] : dots) {
    const double want = exact_of(x, y).rounded;
    for (const Params& p : all_configs())
      EXPECT_TRUE(same_bits(run_cuda("superacc-dot", x, y, p), want))
          << test::dump(x) << " . " << test::dump(y) << " fpe=" << p.at("fpe");
  }
}

TEST(SuperaccCuda, RandomTermsAtBothEndsOfTheRange) {
  REQUIRE_CUDA();
  std::mt19937_64 rng(8);
  for (int round = 0; round < 120; ++round) {
    std::vector<double> x = test::random_terms(rng, 1 + rng() % 5000);
    std::vector<double> y = test::random_terms(rng, x.size());
    const Params p = all_configs()[round % all_configs().size()];
    EXPECT_TRUE(same_bits(run_cuda("superacc", x, {}, p), exact_of(x, {}).rounded)) << test::dump(x);
    EXPECT_TRUE(same_bits(run_cuda("superacc-dot", x, y, p), exact_of(x, y).rounded)) << test::dump(x);
  }
}

// Contention: data that make every lane flush into the same digits at the same time, and every
// slow-path product of a block hit the same shared digits.
TEST(SuperaccCuda, ContentionOnTheSameDigits) {
  REQUIRE_CUDA();
  const int64_t n = (int64_t(1) << 22) + 7;
  const std::vector<std::vector<double>> sums = {
      std::vector<double>(n, hexd("0x1.fffffffffffffp+969")),  // residues on every step
      std::vector<double>(n, 0x1p970),                          // all slow path
      std::vector<double>(n, hexd("0x1.0000000000001p-1022")),
      std::vector<double>(n, 0x1p-1074),
  };
  for (const auto& x : sums) {
    const double want = exact_of(x, {}).rounded;
    for (const Params& p : all_configs())
      ASSERT_TRUE(same_bits(run_cuda("superacc", x, {}, p), want)) << std::hexfloat << x[0] << " fpe=" << p.at("fpe");
  }
  // Alternating signs with a full significand, and +-1 with a tiny tail.
  std::vector<double> alt(n), tail(n);
  for (int64_t i = 0; i < n; ++i) {
    alt[i] = (i & 1) ? -hexd("0x1.fffffffffffffp+500") : hexd("0x1.ffffffffffffep+500");
    tail[i] = (i % 3 == 0) ? 1.0 : (i % 3 == 1) ? -1.0 : 0x1p-1074;
  }
  for (const auto& x : {alt, tail}) {
    const double want = exact_of(x, {}).rounded;
    for (const Params& p : all_configs())
      ASSERT_TRUE(same_bits(run_cuda("superacc", x, {}, p), want)) << "fpe=" << p.at("fpe");
  }
  // Dot: every product tiny (below the fast window) or huge, all into the same shared digits.
  std::vector<double> xs(n, hexd("0x1.0000000000001p-600")), ys(n, hexd("0x1.8000000000001p-500"));
  std::vector<double> xh(n), yh(n, hexd("0x1.0000000000001p+500"));
  for (int64_t i = 0; i < n; ++i) xh[i] = (i & 1) ? -0x1p600 : 0x1p600;
  xh[n - 1] = 3.0;
  for (const auto& [x, y] : {std::make_pair(xs, ys), std::make_pair(xh, yh)}) {
    const double want = exact_of(x, y).rounded;
    for (const Params& p : all_configs())
      ASSERT_TRUE(same_bits(run_cuda("superacc-dot", x, y, p), want)) << "fpe=" << p.at("fpe");
  }
}

// The adaptive mode switches a warp between the expansion and direct accumulation only after
// 16 iterations of its main loop: few blocks give each warp many iterations.
TEST(SuperaccCuda, AdaptiveModeSwitchesAndStaysExact) {
  REQUIRE_CUDA();
  GenSpec s;
  s.dist = "loguniform";
  s.n = (1 << 22) + 3;
  s.range = 1e50;
  s.seed = 41;
  Dataset d = generate(s);
  const double want = exact_of(d.x, {}).rounded;
  // The same terms and their negations: an exact zero (+0) reached through both paths.
  std::vector<double> zero(d.x);
  for (double v : d.x) zero.push_back(-v);
  std::vector<double> y(d.x.size(), 1.0);
  for (size_t i = 0; i < y.size(); i += 3) y[i] = -0.5;
  const double want_dot = exact_of(d.x, y).rounded;
  for (const char* grid : {"1", "3", "0"})
    for (int fpe : {2, 3, 8})
      for (int ee : {0, 1}) {
        const Params p{{"fpe", std::to_string(fpe)}, {"early_exit", std::to_string(ee)}, {"adaptive", "1"}, {"grid", grid}};
        ASSERT_TRUE(same_bits(run_cuda("superacc", d.x, {}, p), want)) << "grid=" << grid << " fpe=" << fpe;
        ASSERT_TRUE(same_bits(run_cuda("superacc", zero, {}, p), 0.0)) << "grid=" << grid << " fpe=" << fpe;
        ASSERT_TRUE(same_bits(run_cuda("superacc-dot", d.x, y, p), want_dot)) << "grid=" << grid << " fpe=" << fpe;
      }
}

TEST(SuperaccCuda, LaunchShapesGiveIdenticalBits) {
  REQUIRE_CUDA();
  for (const char* family : {"sum", "dot"}) {
    GenSpec s;
    s.dist = "loguniform";
    s.family = family;
    s.n = (1 << 21) + 3;
    s.range = 1e50;
    s.seed = 11;
    Dataset d = generate(s);
    const std::string algo = std::string(family) == "sum" ? "superacc" : "superacc-dot";
    const double want = exact_of(d.x, d.y).rounded;
    const AlgoEntry* e = registry().find(algo, "cuda");
    ASSERT_NE(e, nullptr);
    std::vector<Params> shapes = e->shape_variants(registry().resolve_params(*e, {}));
    for (const char* b : {"128", "256", "512"})
      for (const char* g : {"0", "1", "5", "1000"}) shapes.push_back(Params{{"block", b}, {"grid", g}});
    for (const Params& p : shapes) {
      Params user = p;
      const double got = run_cuda(algo, d, user);
      ASSERT_TRUE(same_bits(got, want)) << algo << " block=" << p.at("block") << " grid=" << p.at("grid");
    }
    // Repeated runs of one kernel object.
    auto k = e->make(d.problem(), registry().resolve_params(*e, {}));
    for (int r = 0; r < 5; ++r) ASSERT_TRUE(same_bits(k->run_scalar(), want));
  }
}

TEST(SuperaccCuda, SameBitsAsTheCpuBackend) {
  REQUIRE_CUDA();
  for (const char* algo : {"superacc", "superacc-dot"}) {
    const AlgoEntry* cpu = registry().find(algo, "cpu");
    if (!cpu) GTEST_SKIP() << algo << " has no cpu backend in this build";
    for (const char* dist : {"loguniform", "illcond", "ties", "subnormal"}) {
      GenSpec s;
      s.dist = dist;
      s.family = std::string(algo) == "superacc" ? "sum" : "dot";
      s.n = 100003;
      s.range = 1e100;
      s.cond = 1e40;
      s.seed = 21;
      Dataset d = generate(s);
      const double host = cpu->make(d.problem(), registry().resolve_params(*cpu, {}))->run_scalar();
      EXPECT_TRUE(same_bits(run_cuda(algo, d, {}), host)) << algo << " " << dist;
    }
  }
}

// The mpi backend with inner=cuda (one rank here; CTest's mpi_np2/np4 and the GPU run use more):
// the GPU's unrounded superaccumulator merged and rounded once gives the oracle's bits.
TEST(SuperaccCuda, MpiInnerCudaMatchesTheOracle) {
  REQUIRE_CUDA();
  for (const char* algo : {"superacc", "superacc-dot"}) {
    const AlgoEntry* mpi = registry().find(algo, "mpi");
    if (!mpi) GTEST_SKIP() << "built without the MPI backend";
    for (const char* dist : {"loguniform", "illcond", "specials", "ties", "subnormal"})
      for (int64_t n : {int64_t(1), int64_t(1000), int64_t(1 << 20) + 7}) {
        GenSpec s;
        s.dist = dist;
        s.family = std::string(algo) == "superacc" ? "sum" : "dot";
        s.n = n;
        s.range = 1e300;
        s.cond = 1e100;
        s.seed = 3;
        Dataset d;
        try {
          d = generate(s);
        } catch (const UsageError&) {
          continue;  // too few terms for this generator
        }
        const double want = d.y.empty() ? exact_sum(d.x.data(), d.n).rounded
                                        : exact_dot(d.x.data(), d.y.data(), d.n).rounded;
        for (const char* fpe : {"0", "4"}) {
          Params p = registry().resolve_params(*mpi, {{"inner", "cuda"}, {"fpe", fpe}});
          EXPECT_TRUE(same_bits(mpi->make(d.problem(), p)->run_scalar(), want)) << algo << " " << dist << " n=" << n;
        }
      }
  }
}

// Sizes around every boundary of the work split (SuperaccAgent::consume): tiny n, a warp, the
// pairs of one block row, one tile, the grid-stride rounds of several blocks, the even split of
// the rest into 128-byte lines, and the odd last term; with more blocks than work, too.
TEST(SuperaccCuda, SmallSizesAndTileBoundaries) {
  REQUIRE_CUDA();
  std::mt19937_64 rng(15);
  GenSpec s;
  s.dist = "loguniform";
  s.n = 3 * 2 * 4 * 512 * 3 + 1000;  // enough for every size below
  s.range = 1e50;
  s.seed = 51;
  const Dataset pool = generate(s);
  std::vector<int64_t> sizes = {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025};
  for (int64_t block : {128, 512})
    for (int64_t tile_terms : {2 * 2 * block, 2 * 4 * block})  // dot and sum tiles (2, 4 pairs per thread)
      for (int64_t blocks : {1, 3})
        for (int64_t k : {1, 2})
          for (int64_t delta : {-17, -2, -1, 0, 1, 2, 16, 17}) sizes.push_back(k * blocks * tile_terms + delta);
  int cases = 0;
  for (int64_t n : sizes) {
    if (n < 0 || n > static_cast<int64_t>(pool.x.size())) continue;
    std::vector<double> x(pool.x.begin(), pool.x.begin() + n), y(static_cast<size_t>(n));
    if (n % 5 == 2) x = test::random_terms(rng, static_cast<size_t>(n));  // both ends of the range
    for (auto& v : y) v = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, static_cast<int>(rng() % 40) - 20);
    const double want = exact_of(x, {}).rounded, want_dot = exact_of(x, y).rounded;
    for (const char* block : {"128", "512"})
      for (const char* grid : {"1", "3", "0", "1000"})
        for (const char* fpe : {"0", "2"}) {
          const Params p{{"block", block}, {"grid", grid}, {"fpe", fpe}};
          ASSERT_TRUE(same_bits(run_cuda("superacc", x, {}, p), want))
              << "n=" << n << " block=" << block << " grid=" << grid << " fpe=" << fpe;
          ASSERT_TRUE(same_bits(run_cuda("superacc-dot", x, y, p), want_dot))
              << "dot n=" << n << " block=" << block << " grid=" << grid << " fpe=" << fpe;
          ++cases;
        }
  }
  EXPECT_GT(cases, 1000);
}

// Lanes whose digits are full of pending pieces at the end: the private digits are not
// normalized after the last term (warp_reduce_lane_digits splits them instead), and with
// fpe = 0 every term adds a piece of up to 2^52 to two digits of its lane, kPiecesPerIter (16)
// per iteration, normalized only every 127 iterations. One block of 512 threads running 126
// iterations leaves 2016 pieces of nearly 2^52 (digits near 2^63), all of one sign, in every
// lane; sizes around it end just before and just after a normalization.
TEST(SuperaccCuda, LanesFullOfPendingPiecesAtTheEnd) {
  REQUIRE_CUDA();
  // (2^53 - 1) * 2^25: the lowest bit at 2^-1074 * 2^1099, 1099 = 50 * 21 + 49, so its upper
  // piece is the largest there is (just below 2^52).
  const double big = std::ldexp(0x1p53 - 1, 25);
  for (const char* family : {"sum", "dot"}) {
    const bool dot = std::string(family) == "dot";
    const int64_t iter_terms = dot ? 2 * 2 * 512 : 2 * 4 * 512;  // terms per block and iteration
    for (int64_t iters : {125, 126, 127, 128})
      for (int64_t extra : {int64_t(0), int64_t(1), iter_terms / 2 + 1})
        for (double sign : {1.0, -1.0}) {
          const int64_t n = iters * iter_terms + extra;
          std::vector<double> x(static_cast<size_t>(n), sign * big), y;
          if (dot) y.assign(static_cast<size_t>(n), 1.0);
          x[static_cast<size_t>(n) / 3] = -sign * 0x1p-1000;  // a tiny term of the other sign
          const double want = exact_of(x, y).rounded;
          for (const char* fpe : {"0", "2"}) {
            const Params p{{"block", "512"}, {"grid", "1"}, {"fpe", fpe}, {"adaptive", "1"}};
            ASSERT_TRUE(same_bits(run_cuda(dot ? "superacc-dot" : "superacc", x, y, p), want))
                << family << " iters=" << iters << " extra=" << extra << " sign=" << sign << " fpe=" << fpe;
          }
        }
  }
}

// 64-bit sizes: more than 2^31 terms on the GPU (about 17 GB per array; GPU machine only).
TEST(SuperaccCuda, MoreThanTwoToThe31Terms) {
  REQUIRE_CUDA();
  GenSpec s;
  s.dist = "loguniform";
  s.n = (int64_t(1) << 31) + 12345;
  s.range = 1e50;
  s.seed = 31;
  Dataset d = generate(s);
  const double want = exact_sum(d.x.data(), d.n).rounded;
  EXPECT_TRUE(same_bits(run_cuda("superacc", d, {}), want)) << hex_double(want);
  // The dot of the same x with y = 1 (the fast path; the exact value is the sum above).
  d.y.assign(static_cast<size_t>(d.n), 1.0);
  d.family = "dot";
  d.id = next_dataset_id();
  EXPECT_TRUE(same_bits(run_cuda("superacc-dot", d, {}), want));
  // Negate the terms past 2^31 through y, which an index wrapping at 2^31 would miss; the
  // exact value is then the sum of x with those terms negated (sign flips are exact).
  for (int64_t i = int64_t(1) << 31; i < d.n; ++i) d.y[i] = -1.0;
  d.id = next_dataset_id();
  const double got2 = run_cuda("superacc-dot", d, {});
  for (int64_t i = int64_t(1) << 31; i < d.n; ++i) d.x[i] = -d.x[i];
  const double want2 = exact_sum(d.x.data(), d.n).rounded;
  EXPECT_FALSE(same_bits(want, want2));
  EXPECT_TRUE(same_bits(got2, want2)) << hex_double(want2);
}

}  // namespace
}  // namespace accsum
