// SuperaccCudaModel: the host model of the CUDA superaccumulator kernel (tests/numerics/superacc_cuda_model.hpp),
// which runs everywhere (CI has no GPU), against the exact MPFR oracle and core's round().
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/numerics/eft.hpp"
#include "tests/exact_of.hpp"
#include "tests/numerics/superacc_cuda_model.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using namespace accsum::cuda;
using namespace accsum::test;  // the model, exact_of, hexd, same_bits

const int kFpes[] = {0, 2, 3, 4, 6, 8};

// Rebuilds x from lane pieces through core's accumulator and rounding.
double reassemble(int k, const std::vector<int64_t>& pieces) {
  Superacc acc;
  acc.clear();
  for (size_t j = 0; j < pieces.size(); ++j)
    add_int64_at(acc, pieces[j], lane_digit_pos<-1074>(k + static_cast<int>(j)));
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
  for (double x : {DBL_MAX, -DBL_MAX, 0x1p-972, -0x1p-972, hexd("0x1.fffffffffffffp-923"), 3.0, 0x1p52,
                   hexd("0x1.fffffffffffffp+1000"), hexd("0x1.0000000000001p-972"), 0x1p970, 1.5, -2.5,
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
      s.with_y = accsum::family(s.family).has_y;
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
      s.with_y = accsum::family(s.family).has_y;
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
  const std::vector<std::vector<double>> cases = test::edge_sums();
  for (const auto& x : cases) {
    const double want = exact_of(x, {}).rounded;
    for (int fpe : kFpes) EXPECT_TRUE(same_bits(model<false>(x, {}, fpe), want)) << test::dump(x) << " fpe=" << fpe;
  }
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> dots = {
      {{-0.0}, {1.0}},
      {{0.0}, {-1.0}},
      {{0.0, -0.0}, {-1.0, 1.0}},
      {{inf}, {0.0}},
      {{inf}, {-2.0}},
      {{0x1p600, -0x1p600, 1.0}, {0x1p600, 0x1p600, 0x1p-60}},
      {{0x1p-600, 0x1p-600}, {0x1p-500, -0x1p-500}},
      {{0x1p-600}, {0x1.8p-500}},
      {{nan}, {0.0}}};
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
      case 0:
        v[d] = r;
        break;
      case 1:
        v[d] = edge[rng() % 10];
        break;
      case 2:
        v[d] = (rng() % 4) ? w - 1 : r % w;
        break;  // runs of 2^32 - 1
      case 3:
        v[d] = (rng() % 4) ? 0 : r % 4;
        break;  // runs of zeros
      default:
        v[d] = (rng() % 3) ? edge[rng() % 10] : r >> (rng() % 50);
        break;
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
    if (i % 11 == 0) x = {DBL_MAX, hexd("0x1p970"), -0x1p918 * static_cast<double>(i % 3)};   // overflow by rounding
    if (i % 13 == 0) x = {0x1p-1074 * static_cast<double>(i % 5), -0x1p-1060};                // subnormal results
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
      const bool one_pass = i % 4 < 2;  // the lean tail's negation on half the cases
      const double got_s = emulate_warp_round<Superacc>(s.digit, flags, n, one_pass);
      const double got_t = emulate_warp_round<SuperaccDot>(t.digit, flags, n, one_pass);
      set_flags(s, flags, n);
      set_flags(t, flags, n);
      ASSERT_TRUE(same_bits(got_s, s.round())) << test::dump(x) << " flags=" << flags << " one_pass=" << one_pass;
      ASSERT_TRUE(same_bits(got_t, t.round())) << test::dump(x) << " flags=" << flags << " one_pass=" << one_pass;
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
    const double got = emulate_warp_round<Superacc>(s.digit, kFlagNotNegZero, 1, i % 2 == 0);
    set_flags(s, kFlagNotNegZero, 1);
    ASSERT_TRUE(same_bits(got, s.round())) << i;
  }
}

// The one-pass negation of a normalized negative accumulator gives the digits a second
// normalization of the negated digits gives, wherever the lowest non-zero digit lies (digit 0, a
// run of zeros below it, the top digit alone) and whatever the digits (0, 2^32 - 1, random).
template <int D>
void check_one_pass_negation(std::mt19937_64& rng, int rounds) {
  constexpr int RW = (D + 31) / 32;
  for (int i = 0; i < rounds; ++i) {
    int64_t v[RW][32] = {};
    const int lowest = i % 5 == 0 ? D - 1 : static_cast<int>(rng() % D);
    for (int d = lowest; d < D - 1; ++d) {
      const uint64_t pick = rng() % 4;
      v[d / 32][d % 32] = pick == 0 ? 0 : pick == 1 ? int64_t(kDigitMask) : static_cast<int64_t>(rng() & kDigitMask);
    }
    if (lowest < D - 1 && v[lowest / 32][lowest % 32] == 0) v[lowest / 32][lowest % 32] = 1 + int64_t(rng() % 7);
    v[(D - 1) / 32][(D - 1) % 32] = -1 - static_cast<int64_t>(rng() % (i % 3 == 0 ? 1 : 1u << 30));
    int64_t want[RW][32], got[RW][32];
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) want[r][lane] = -v[r][lane], got[r][lane] = v[r][lane];
    emulate_warp_normalize<D>(want);
    emulate_warp_negate_normalized<D>(got);
    for (int d = 0; d < 32 * RW; ++d)
      ASSERT_EQ(got[d / 32][d % 32], want[d / 32][d % 32]) << "digit " << d << " lowest " << lowest << " round " << i;
  }
}

TEST(SuperaccCudaModel, OnePassNegationMatchesSecondNormalization) {
  std::mt19937_64 rng(29);
  check_one_pass_negation<kSumDigits>(rng, 20000);
  check_one_pass_negation<kDotDigits>(rng, 20000);
}

// The block merge's 32-bit digit halves: the most pieces a digit can receive (3 per warp of the
// largest block), each of the largest magnitudes int64_pieces makes (|p| < 2^33, both signs), sum to
// the same integer as 64-bit additions, with unsigned and signed 32-bit wraparound as the device has.
TEST(SuperaccCudaModel, DigitHalvesSumPiecesExactly) {
  std::mt19937_64 rng(31);
  const int64_t extremes[] = {(int64_t(1) << 33) - 1,
                              -(int64_t(1) << 33) + 1,
                              (int64_t(1) << 32) - 1,
                              -(int64_t(1) << 31),
                              0,
                              1,
                              -1,
                              65535,
                              -65536};
  for (int round = 0; round < 2000; ++round) {
    uint32_t low = 0;
    int32_t high = 0;
    int64_t want = 0;
    const int pieces = round < 10 ? 3 * kMaxBlockWarps : 1 + static_cast<int>(rng() % (3 * kMaxBlockWarps));
    for (int k = 0; k < pieces; ++k) {
      const int64_t p = round < 9 ? extremes[round]
                                  : static_cast<int64_t>(rng() % ((uint64_t(1) << 34) - 1)) - (int64_t(1) << 33) + 1;
      low = static_cast<uint32_t>(low + piece_low_half(p));
      high = static_cast<int32_t>(static_cast<uint32_t>(high) + static_cast<uint32_t>(piece_high_half(p)));
      want += p;
    }
    ASSERT_EQ(halves_value(low, high), want) << "round " << round;
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

}  // namespace
}  // namespace accsum
