// sgemm-ozaki on the cpu backend (families/gemm/ozaki.hpp): the one-rounding arithmetic against MPFR, the
// CRT, the plan, and whole products against the exact oracle on every kind of hard data: U[0,1],
// U[-1,1], log-uniform spreads of 1e10 and 1e30 within a row, cancellation, zeros, values near
// the float overflow threshold and near underflow, NaN / infinities, alpha and beta.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/frame/family.hpp"
#include "core/oracle/gemm_oracle.hpp"
#include "core/numerics/float_entry.hpp"
#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_run.hpp"
#include "core/frame/registry.hpp"
#include "datasets/gemm_data.hpp"
#include "tests/cli_run.hpp"
#include "tests/gemm_test_util.hpp"

using namespace accsum;
using namespace accsum::ozaki;

namespace {

using gemm_test::judge;
using gemm_test::named;

Dataset gen(const std::string& dist, const std::string& shape, uint64_t seed = 1, Params extra = {}) {
  return gemm_test::generate("gemm", dist, shape, seed, std::move(extra));
}

Result run_ozaki(const Dataset& d, Params user = {}) { return gemm_test::run_cpu("sgemm-ozaki", d, user); }

// Every entry correctly rounded (and so faithful), and the run reports itself exact.
void expect_exact(const Dataset& d, Params user = {}) {
  const Result r = run_ozaki(d, user);
  const Metrics m = judge(d, r);
  EXPECT_TRUE(m.correctly_rounded) << d.generator << " share " << named(m.extra, "share_correctly_rounded");
  EXPECT_EQ(named(m.extra, "share_faithful"), 1.0);
  EXPECT_EQ(named(r.figures, "ozaki_exact"), 1.0);
  EXPECT_EQ(named(r.figures, "ozaki_rows_uncovered"), 0.0);
}

float mpfr_to_float(const mpfr_t v) { return mpfr_get_flt(v, MPFR_RNDN); }

void set_wide(mpfr_t out, const Wide& w) {
  mpfr_set_ui(out, 0, MPFR_RNDN);
  mpfr_t part;
  mpfr_init2(part, 256);
  mpfr_set_ui(part, static_cast<unsigned long>(static_cast<uint64_t>(w.mag >> 64)), MPFR_RNDN);
  mpfr_mul_2si(part, part, 64 + w.exp, MPFR_RNDN);
  mpfr_add(out, out, part, MPFR_RNDN);
  mpfr_set_ui(part, static_cast<unsigned long>(static_cast<uint64_t>(w.mag)), MPFR_RNDN);
  mpfr_mul_2si(part, part, w.exp, MPFR_RNDN);
  mpfr_add(out, out, part, MPFR_RNDN);
  if (w.neg) mpfr_neg(out, out, MPFR_RNDN);
  mpfr_clear(part);
}

Wide random_wide(std::mt19937_64& g, int max_bits, int exp_lo, int exp_hi) {
  Wide w;
  const int bits = 1 + static_cast<int>(g() % static_cast<uint64_t>(max_bits));
  w.mag = (static_cast<u128>(g()) << 64 | g()) >> (128 - bits);
  w.neg = g() & 1;
  w.exp = exp_lo + static_cast<int>(g() % static_cast<uint64_t>(exp_hi - exp_lo + 1));
  return w;
}

// The residue of a 128-bit integer modulo p in [0, p).
int residue_wide(i128 v, int p) {
  const int r = static_cast<int>(v % p);
  return r < 0 ? r + p : r;
}

bool same_float(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0 || (a == 0 && b == 0);
}

}  // namespace

// ---- the arithmetic ----

TEST(Ozaki, RoundToFloatIsMpfrRoundToNearest) {
  std::mt19937_64 g(7);
  mpfr_t v;
  mpfr_init2(v, 300);
  for (int t = 0; t < 200000; ++t) {
    Wide w = random_wide(g, t % 2 ? 120 : 26, -320, 110);
    if (t % 7 == 0) {  // many exact midpoints and near-midpoints: one set bit, nothing below
      w.mag |= static_cast<u128>(1) << 40;
      w.mag &= ~((static_cast<u128>(1) << 40) - 1);
    }
    if (t % 5 == 0 && w.mag != 0)  // leads at the edges of the normal range
      w.exp = static_cast<int>(g() % 8) - 130 + (t % 2) * 255 - (bit_length(w.mag) - 1);
    set_wide(v, w);
    const float want = mpfr_to_float(v);
    ASSERT_TRUE(same_float(round_to_float(w), want)) << t;
    ASSERT_TRUE(same_float(round_to_fast<float>(w), want)) << t;  // the cuda combine's form
  }
  mpfr_clear(v);
}

// The cuda combine's alpha = +-2^k form: C' at its own width, the power in the exponent, rounded by
// round_to_fast, gives finish_entry_of's bits (beta = 0) for float (64-bit C') and double (128-bit).
TEST(Ozaki, PowerOfTwoAlphaKeepsFinishEntryBits) {
  EXPECT_TRUE(power_of_two_scalar<float>(int64_t{1} << 23));
  EXPECT_TRUE(power_of_two_scalar<double>(-(int64_t{1} << 52)));
  for (float a : {3.0f, 0.75f, -1.5f}) {
    int64_t m;
    int e;
    split_scalar(a, &m, &e);
    EXPECT_FALSE(power_of_two_scalar<float>(m)) << a;
  }
  std::mt19937_64 g(23);
  for (int t = 0; t < 100000; ++t) {
    const bool neg = g() & 1;
    const int bits = static_cast<int>(g() % 64);  // C' below 2^63 (crt_small's signed 64 bits)
    const uint64_t m = bits == 0 ? 0 : g() >> (64 - bits);
    const float alpha = std::ldexp(g() & 1 ? -1.0f : 1.0f, static_cast<int>(g() % 276) - 149);
    const int scale = static_cast<int>(g() % 400) - 260;  // subnormal, normal and overflowing results
    int64_t ma;
    int ea;
    split_scalar(alpha, &ma, &ea);
    ASSERT_TRUE(power_of_two_scalar<float>(ma)) << alpha;
    const float want = finish_entry_of<float>(neg, static_cast<u128>(m), scale, alpha, 0.0f, nullptr);
    const float got = round_to_fast<float>(power_of_two_times<float>(neg, m, scale, ma, ea));
    ASSERT_EQ(std::memcmp(&got, &want, 4), 0) << t << ": " << got << " against " << want;  // signed zeros too
  }
  for (int t = 0; t < 100000; ++t) {
    const bool neg = g() & 1;
    const int bits = static_cast<int>(g() % 128);  // C' below 2^127 (crt_small's signed 128 bits)
    const u128 m = bits == 0 ? 0 : (static_cast<u128>(g()) << 64 | g()) >> (128 - bits);
    const double alpha = std::ldexp(g() & 1 ? -1.0 : 1.0, static_cast<int>(g() % 2098) - 1074);
    const int scale = static_cast<int>(g() % 2400) - 1300;
    int64_t ma;
    int ea;
    split_scalar(alpha, &ma, &ea);
    ASSERT_TRUE(power_of_two_scalar<double>(ma)) << alpha;
    U256 wide;
    wide.limb[0] = static_cast<uint64_t>(m);
    wide.limb[1] = static_cast<uint64_t>(m >> 64);
    const double want = finish_entry_of<double>(neg, wide, scale, alpha, 0.0, nullptr);
    const double got = round_to_fast<double>(power_of_two_times<double>(neg, m, scale, ma, ea));
    ASSERT_EQ(std::memcmp(&got, &want, 8), 0) << t << ": " << got << " against " << want;
  }
}

TEST(Ozaki, RoundSumRoundsTheExactSumOnce) {
  std::mt19937_64 g(11);
  mpfr_t x, y;
  mpfr_init2(x, 600);
  mpfr_init2(y, 600);
  for (int t = 0; t < 200000; ++t) {
    // alpha C' reaches 125 bits with kMaxModuli moduli; beta c has <= 49 (families/gemm/ozaki.hpp (c)).
    Wide a = random_wide(g, t % 2 ? 125 : 88, -300, 100), b = random_wide(g, t % 5 == 1 ? 125 : 49, -300, 100);
    if (t % 3 == 0) {  // cancellation: b close to -a
      b.neg = !a.neg;
      const int n = bit_length(a.mag), nb = t % 2 ? 49 : 120;
      b.exp = a.exp + (n > nb ? n - nb : 0);
      const i128 m = static_cast<i128>(a.mag >> (b.exp - a.exp)) + static_cast<i128>(g() % 5) - 2;
      b.mag = static_cast<u128>(m < 1 ? 1 : m);
    }
    set_wide(x, a);
    set_wide(y, b);
    mpfr_add(x, x, y, MPFR_RNDN);  // exact at 600 bits
    ASSERT_TRUE(same_float(round_sum(a, b), mpfr_to_float(x))) << t;
  }
  mpfr_clear(x);
  mpfr_clear(y);
}

// Draw t of a sweep over the symmetric range [-P/2, P/2) of c's moduli product P: its ends, 0 and
// -1 first, then uniform draws.
i128 symmetric_draw(std::mt19937_64& g, const Crt& c, int t) {
  const i128 half = static_cast<i128>(c.product / 2);
  switch (t) {
    case 0:
      return -half;
    case 1:
      return half - 1;
    case 2:
      return 0;
    case 3:
      return -1;
    default:
      return static_cast<i128>((static_cast<u128>(g()) << 64 | g()) % c.product) - half;
  }
}

TEST(Ozaki, CrtReconstructsEverySymmetricInteger) {
  EXPECT_EQ(kMaxModuli, 13);
  EXPECT_LT(moduli_product(kMaxModuli), static_cast<u128>(1) << kMaxProductBits);
  EXPECT_GT(moduli_product(kMaxModuli), static_cast<u128>(1) << 101);  // the budget of 128-bit arithmetic is used
  for (int l = 0; l < kMaxModuli; ++l) {
    EXPECT_LE(modulus(l), 256);
    for (int m = 0; m < l; ++m) EXPECT_EQ(std::gcd(modulus(l), modulus(m)), 1) << l << " " << m;
  }
  std::mt19937_64 g(3);
  for (int L = kMinModuli; L <= kMaxModuli; ++L) {
    const Crt c = make_crt(L);
    for (int t = 0; t < 20000; ++t) {
      const i128 x = symmetric_draw(g, c, t);
      int r[kMaxModuli];
      for (int l = 0; l < L; ++l) r[l] = residue_wide(x, modulus(l));
      const i128 got = crt_symmetric(r, c);
      ASSERT_TRUE(got == x) << "L=" << L << " t=" << t;
    }
  }
}

template <int L>
void expect_limb_crt_matches(std::mt19937_64& g) {
  const Crt c = make_crt(L);
  const CrtLimbs k = make_crt_limbs(c);
  for (int t = 0; t < 20000; ++t) {
    const i128 x = symmetric_draw(g, c, t);
    int r[kMaxModuli];
    for (int l = 0; l < L; ++l) r[l] = residue_wide(x, modulus(l));
    if (t == 4)
      for (int l = 0; l < L; ++l) r[l] = modulus(l) - 1;  // the largest sum s
    ASSERT_TRUE(crt_symmetric_limbs<L>(r, k) == crt_symmetric(r, c)) << "L=" << L << " t=" << t;
  }
}

// crt_small on every C' its precondition admits: |C'| up to the largest bound K 2^(bits_a + bits_b)
// that make_crt_small accepts for this L (edges included).
template <int L>
void expect_small_crt_matches(std::mt19937_64& g) {
  const Crt c = make_crt(L);
  const CrtLimbs k = make_crt_limbs(c, ProductBound{1, 0});
  int64_t bound = 0;  // the largest 2^b that make_crt_small(c, b, 0, 1) accepts
  for (int b = 0; b < 63; ++b)
    if (make_crt_small<uint64_t>(c, ProductBound{1, b}).applies) bound = int64_t{1} << b;
  if (bound == 0) return;
  for (int t = 0; t < 20000; ++t) {
    const int64_t edge[] = {bound, -bound, 0, 1, -1};
    const int64_t x = t < 5 ? edge[t] : static_cast<int64_t>(g() % (2 * static_cast<uint64_t>(bound) + 1)) - bound;
    int r[kMaxModuli];
    for (int l = 0; l < L; ++l) r[l] = residue_wide(x, modulus(l));
    ASSERT_EQ(static_cast<int64_t>(crt_small<L>(r, k.small)), x) << "L=" << L << " t=" << t;
    ASSERT_TRUE(crt_symmetric(r, c) == x);
  }
}

// The same for the 128-bit form the float combine takes where the products pass 2^63: C' at the
// largest bound make_crt_small accepts, and random C' up to it.
template <int L>
void expect_small_wide_crt_matches(std::mt19937_64& g) {
  const Crt c = make_crt(L);
  const CrtLimbs k = make_crt_limbs(c, ProductBound{1, 0});
  int bound_bits = -1;
  for (int b = 0; b < 127; ++b)  // 127: the signed width of u128
    if (make_crt_small<u128>(c, ProductBound{1, b}).applies) bound_bits = b;
  if (bound_bits < 0) return;
  ASSERT_TRUE(make_crt_limbs(c, ProductBound{1, bound_bits}).small_wide.applies);
  const i128 bound = static_cast<i128>(1) << bound_bits;
  for (int t = 0; t < 20000; ++t) {
    const u128 span = 2 * static_cast<u128>(bound) + 1, draw = static_cast<u128>(g()) << 64 | g();
    const i128 edge[] = {bound, -bound, 0, 1, -1};
    const i128 x = t < 5 ? edge[t] : static_cast<i128>(draw % span) - bound;
    int r[kMaxModuli];
    for (int l = 0; l < L; ++l) r[l] = residue_wide(x, modulus(l));
    ASSERT_TRUE(static_cast<i128>(crt_small<L>(r, k.small_wide)) == x) << "L=" << L << " t=" << t;
  }
}

template <int... Ls>
void expect_limb_crt_matches_all(std::integer_sequence<int, Ls...>) {
  std::mt19937_64 g(5);
  (expect_limb_crt_matches<Ls + kMinModuli>(g), ...);
  (expect_small_crt_matches<Ls + kMinModuli>(g), ...);
  (expect_small_wide_crt_matches<Ls + kMinModuli>(g), ...);
}

TEST(Ozaki, CudaFormsMatchTheDefinition) {
  expect_limb_crt_matches_all(std::make_integer_sequence<int, kMaxModuli - kMinModuli + 1>{});
  // U[0,1) at K = 8192 (24 + 24 bits, 8 moduli) and the sgemm accuracy's plans take crt_small;
  // 25 + 25 bits at K = 8192 (U[-1,1)) do not fit an int64.
  EXPECT_TRUE(make_crt_small<uint64_t>(make_crt(8), ProductBound{8192, 24 + 24}).applies);
  EXPECT_TRUE(make_crt_small<uint64_t>(make_crt(8), ProductBound{8192, 25 + 24}).applies);    // B = 2^62 exactly
  EXPECT_FALSE(make_crt_small<uint64_t>(make_crt(13), ProductBound{8192, 25 + 25}).applies);  // B = 2^63: not an int64
  EXPECT_FALSE(make_crt_small<uint64_t>(make_crt(9), ProductBound{8192, 25 + 25}).applies);
  EXPECT_TRUE(
      make_crt_limbs(make_crt(9), ProductBound{8192, 25 + 32}).small_wide.applies);  // U[-1,1)'s cr plan at K = 8192
  EXPECT_FALSE(make_crt_small<uint64_t>(make_crt(2), ProductBound{8192, 10 + 10}).applies);  // P/2 below the bound
  std::mt19937_64 g(7);
  const int64_t top = int64_t{1} << kMaxSideBits;
  for (int t = 0; t < 200000; ++t) {
    int64_t v = static_cast<int64_t>(g() % (2 * static_cast<uint64_t>(top) + 1)) - top;
    if (t % 3 == 1) v >>= g() % 62;
    const int64_t edge[] = {
        0, 1, -1, top, -top, INT32_MAX, INT32_MIN, int64_t{1} << 32, -(int64_t{1} << 32), (int64_t{1} << 32) - 1};
    if (t < 10) v = edge[t];
    for (int l = 0; l < kMaxModuliDouble; ++l)
      ASSERT_EQ(residue_symmetric_chunks(chunks16(v), modulus(l)), residue_symmetric(v, modulus(l)))
          << v << " " << modulus(l);
  }
  // The narrow form (sides of at most kNarrowSideBits bits): |v| <= 2^30, edges and random values.
  const int32_t narrow_top = int32_t{1} << kNarrowSideBits;
  for (int t = 0; t < 200000; ++t) {
    int32_t v = static_cast<int32_t>(g() % (2 * static_cast<uint64_t>(narrow_top) + 1)) - narrow_top;
    if (t % 3 == 1) v >>= g() % 31;
    const int32_t edge[] = {0, 1, -1, narrow_top, -narrow_top, narrow_top - 1, 255, -255, 256, -256, 128, -128};
    if (t < 12) v = edge[t];
    for (int l = 0; l < kMaxModuli; ++l)
      ASSERT_EQ(residue_symmetric_narrow(v, modulus(l)), residue_symmetric(v, modulus(l))) << v << " " << modulus(l);
  }
  for (int shift = -128; shift <= 210; ++shift)
    for (float x : {0.0f, 1.0f, -1.0f, 0x1p-149f, -0x1.fffffep127f, 0x1.234568p-3f, 3.0f, -2.5f, 0x1.fffffep-1f,
                    -0x1.000002p-1f}) {
      const double scaled = std::fabs(std::ldexp(static_cast<double>(x), shift));
      if (scaled > 0x1p62) continue;
      ASSERT_EQ(scaled_integer_by(x, pow2(shift)), scaled_integer(x, shift)) << x << " " << shift;
      if (scaled <= 0x1p30)
        ASSERT_EQ(scaled_integer_narrow(x, pow2(shift)), scaled_integer(x, shift)) << x << " " << shift;
    }
}

TEST(Ozaki, ResiduesFitInt8AndProductsInt32) {
  for (int l = 0; l < kMaxModuli; ++l)
    for (int64_t v : {int64_t{-1000003}, int64_t{-1}, int64_t{0}, int64_t{127}, int64_t{128}, int64_t{1} << 40}) {
      const int r = residue_symmetric(v, modulus(l));
      EXPECT_GE(r, -128);
      EXPECT_LE(r, 127);
      EXPECT_EQ(((v - r) % modulus(l)), 0);
    }
  EXPECT_LT(kBlockK * 128 * 128, int64_t{1} << 31);
}

TEST(Ozaki, PlanCoversTwentyFourBitDataWithEightModuliUpToK16384) {
  for (int64_t K : {1, 100, 8192, 16384}) EXPECT_GE(bit_budget(8, K), 48) << K;
  EXPECT_LT(bit_budget(8, 32768), 48);
  EXPECT_LT(bit_budget(7, 8192), 48);  // at N = 8192 seven moduli cannot cover 24 + 24 bits
  const uint32_t one = 0x3f800000u;    // 1.0f
  std::vector<uint32_t> mx{one};
  std::vector<int> lo{-24};  // 2^-24 is the lowest bit: span 1 - (-24) = 25
  const Plan p = make_plan(100, mx.data(), lo.data(), 1, mx.data(), lo.data(), 1, 0);
  EXPECT_EQ(p.need_a, 25);
  EXPECT_TRUE(p.exact());
  EXPECT_EQ(p.moduli, 8);
  const Plan q = make_plan(100, mx.data(), lo.data(), 1, mx.data(), lo.data(), 1, 3);
  EXPECT_EQ(q.moduli, 3);
  EXPECT_FALSE(q.exact());
  EXPECT_EQ(q.rows_uncovered + q.cols_uncovered, 2);
  // U[-1,1]-like data need 25 + 25 bits: at K = 8192 eight moduli hold 49, nine 57.
  EXPECT_EQ(bit_budget(8, 8192), 49);
  EXPECT_GE(bit_budget(9, 8192), 50);
  const Plan u = make_plan(8192, mx.data(), lo.data(), 1, mx.data(), lo.data(), 1, 0);
  EXPECT_EQ(u.moduli, 9);
  EXPECT_TRUE(u.exact());
  // The most moduli hold 100 bits at K = 1 and never more than kMaxSideBits per side.
  EXPECT_EQ(bit_budget(kMaxModuli, 1), 100);
  std::vector<int> wide_lo{-99};  // span 100 on one side: the side is capped, the run says so
  const Plan w = make_plan(1, mx.data(), wide_lo.data(), 1, mx.data(), lo.data(), 1, 0);
  EXPECT_EQ(w.moduli, kMaxModuli);
  EXPECT_LE(w.bits_a, kMaxSideBits);
  EXPECT_LE(w.bits_b, kMaxSideBits);
  EXPECT_EQ(w.rows_uncovered, 1);
  EXPECT_EQ(w.cols_uncovered, 0);
}

// Lines of bit span 25: entries on the grid 2^-25, one per line in [1/2, 1) (top 0), the others below 1/2
// (`wide`: in [1/2, 1) too, but for one odd multiple of 2^-25 per line, so the norms sit near their largest);
// with `b_is_a_transposed` column j of B is row j of A, where Cauchy-Schwarz is an equality: C'_jj = ||A'_j||^2.
Dataset spans25(int64_t M, int64_t N, int64_t K, uint64_t seed, bool wide, bool b_is_a_transposed = false,
                Params extra = {}) {
  Dataset d = gen("uniform", std::to_string(M) + "," + std::to_string(N) + "," + std::to_string(K), seed, extra);
  std::mt19937_64 g(seed);
  auto value = [&](bool big, bool odd) {
    const int64_t lo = big ? int64_t{1} << 24 : 1, hi = big ? (int64_t{1} << 25) - 2 : (int64_t{1} << 24) - 1;
    int64_t k = std::uniform_int_distribution<int64_t>(lo, hi)(g);
    if (odd)
      k |= 1;
    else if (big)
      k &= ~int64_t{1};  // a multiple of 2^-24 in [1/2, 1): 24 bits
    const float v = std::ldexp(static_cast<float>(k), -25);
    return g() % 2 ? -v : v;
  };
  auto fill = [&](float* x, int64_t stride) {
    for (int64_t k = 0; k < K; ++k) x[k * stride] = value(wide && k != 1, !wide || k == 1);
    x[0] = value(true, false);
  };
  for (int64_t i = 0; i < M; ++i) fill(d.a.data() + i, M);
  for (int64_t j = 0; j < N; ++j) {
    if (b_is_a_transposed && j < M)
      for (int64_t k = 0; k < K; ++k) d.b[k + j * K] = d.a[j + k * M];
    else
      fill(d.b.data() + j * K, 1);
  }
  d.id = next_dataset_id();
  return d;
}

// max_ij |C'_ij| of a plan that covers every line, exactly (C' = A'B', A'_ik = a_ik 2^(bits_a - top_i)).
u128 largest_product(const Dataset& d, const Plan& p) {
  const int64_t M = d.rows, N = d.cols, K = d.inner;
  const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
  u128 most = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      i128 c = 0;
      for (int64_t k = 0; k < K; ++k) {
        const auto a = static_cast<int64_t>(std::ldexp(d.a[i + k * M], p.bits_a - line_top(rows.max_bits[i])));
        const auto b = static_cast<int64_t>(std::ldexp(d.b[k + j * K], p.bits_b - line_top(cols.max_bits[j])));
        c += static_cast<i128>(a) * b;
      }
      most = std::max(most, static_cast<u128>(c < 0 ? -c : c));
    }
  return most;
}

// U[-1,1]-like data whose rows and columns need 25 bits each, at a K where eight moduli hold
// only 49 by the rule's bound: the lines' norms bound C' below P_8/2, so the default takes eight
// and every entry is correctly rounded; eight given by --slices split their budget and leave lines
// uncovered (and say so).
TEST(Ozaki, SymmetricTwentyFiveBitDataTakeEightModuliAtK8192ByTheirNorms) {
  Dataset d = gen("uniform-sym", "5,4,8192", 21, {{"beta", "0.5"}});
  gemm_test::give_25_bit_spans(d);
  const Result r = run_ozaki(d);
  EXPECT_EQ(named(r.figures, "ozaki_need_bits_a"), 25.0);
  EXPECT_EQ(named(r.figures, "ozaki_need_bits_b"), 25.0);
  EXPECT_EQ(named(r.figures, "ozaki_slices"), 8.0);
  const Lines rows = summarize_lines(d.a.data(), d.rows, d.inner, 1, d.rows),
              cols = summarize_lines(d.b.data(), d.cols, d.inner, d.inner, 1);
  EXPECT_EQ(cover_plan(d.inner, rows, cols, 0).moduli, 9);
  EXPECT_LE(largest_product(d, plan_for(d.inner, rows, cols, 0)), plan_for(d.inner, rows, cols, 0).bound.as<u128>());
  expect_exact(d);
  const auto ex = std::static_pointer_cast<const GemmExact>(family("gemm").oracle(d).exact);
  for (size_t e = 0; e < ex->ref.size(); ++e) EXPECT_EQ(r.values[e], ex->ref[e]) << e;
  const Result eight = run_ozaki(d, {{"slices", "8"}});
  EXPECT_EQ(named(eight.figures, "ozaki_exact"), 0.0);
  EXPECT_GT(named(eight.figures, "ozaki_rows_uncovered") + named(eight.figures, "ozaki_cols_uncovered"), 0.0);
}

// Spreads the int64 scheme could not hold: log-uniform 1e5 within rows and columns needs about
// 41 + 41 bits; more than eight moduli cover it exactly.
TEST(Ozaki, LogUniformSpreadsBeyondEightModuliAreExact) {
  for (const char* shape : {"9,7,50", "6,5,3000"}) {
    const Dataset d = gen("loguniform", shape, 22, {{"range", "1e5"}});
    const Result r = run_ozaki(d);
    const auto f = r.figures;
    SCOPED_TRACE(std::string(shape) + " need " + std::to_string(named(f, "ozaki_need_bits_a")) + "+" +
                 std::to_string(named(f, "ozaki_need_bits_b")));
    EXPECT_GT(named(f, "ozaki_need_bits_a") + named(f, "ozaki_need_bits_b"), bit_budget(8, d.inner));
    EXPECT_GT(named(f, "ozaki_slices"), 8.0);
    expect_exact(d);
  }
}

// ---- whole products against the exact oracle ----

TEST(Ozaki, ExactOnUniformData) {
  for (const char* dist : {"uniform", "uniform-sym"})
    for (const char* shape : {"1,1,1", "7,5,3", "33,17,65", "5,130,1", "40,31,300"}) {
      SCOPED_TRACE(std::string(dist) + " " + shape);
      expect_exact(gen(dist, shape, 5));
    }
}

TEST(Ozaki, AlphaBeta) {
  expect_exact(gen("uniform-sym", "37,29,200", 1, {{"alpha", "-0.75"}, {"beta", "1.5"}}));
  expect_exact(gen("uniform", "37,29,200", 2, {{"alpha", "0"}, {"beta", "2"}}));
  expect_exact(gen("uniform", "37,29,200", 3, {{"alpha", "3.1e-30"}, {"beta", "-7e20"}}));  // beta*c dominates
}

TEST(Ozaki, CancellationIsExact) {
  // Columns k + h of A repeat columns k, rows k + h of B negate rows k: the 2h products cancel
  // exactly, the last one survives (exactly: the data stay 24-bit, so every line is covered).
  Dataset d = gen("uniform-sym", "20,9,61", 4);
  const int64_t M = d.rows, N = d.cols, K = d.inner, h = (K - 1) / 2;
  for (int64_t k = 0; k < h; ++k) {
    for (int64_t i = 0; i < M; ++i) d.a[i + (k + h) * M] = d.a[i + k * M];
    for (int64_t j = 0; j < N; ++j) d.b[k + h + j * K] = -d.b[k + j * K];
  }
  d.id = next_dataset_id();
  expect_exact(d);
}

TEST(Ozaki, ZerosAndZeroLines) {
  Dataset d = gen("uniform-sym", "12,10,30", 6, {{"beta", "0.5"}});
  for (int64_t k = 0; k < d.inner; ++k) d.a[3 + k * d.rows] = 0.0f;   // a zero row of A
  for (int64_t k = 0; k < d.inner; ++k) d.b[k + 4 * d.inner] = 0.0f;  // a zero column of B
  d.id = next_dataset_id();
  expect_exact(d);
  Dataset z = gen("uniform", "6,6,6", 1);
  std::fill(z.a.begin(), z.a.end(), 0.0f);
  z.id = next_dataset_id();
  const Result r = run_ozaki(z);
  for (double v : r.values) EXPECT_EQ(v, 0.0);
}

TEST(Ozaki, NearOverflowAndUnderflow) {
  Dataset big = gen("uniform", "16,12,40", 8);
  for (auto& x : big.a) x *= 0x1p120f;
  for (auto& x : big.b) x *= 0x1p5f;  // products up to 2^125: sums of 40 overflow in some entries
  big.id = next_dataset_id();
  expect_exact(big);
  const Result r = run_ozaki(big);
  bool some_inf = false;
  for (double v : r.values) some_inf |= std::isinf(v);
  EXPECT_TRUE(some_inf);
  Dataset tiny = gen("uniform-sym", "16,12,40", 9);
  for (auto& x : tiny.a) x *= 0x1p-70f;
  for (auto& x : tiny.b) x *= 0x1p-70f;  // products near 2^-140: subnormal results
  tiny.id = next_dataset_id();
  expect_exact(tiny);
}

TEST(Ozaki, IeeeSpecials) {
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const Dataset d = gen("specials", "9,7,20", seed, seed % 2 ? Params{{"beta", "1"}} : Params{});
    const Metrics m = judge(d, run_ozaki(d));
    EXPECT_TRUE(m.correctly_rounded) << "seed " << seed;
    EXPECT_EQ(named(m.extra, "share_correctly_rounded"), 1.0) << "finite entries, seed " << seed;
  }
}

// A spread of 1e10 or 1e30 within every row and column needs more bits (56 + 56 or more) than
// kMaxModuli moduli hold (100 at K = 1, families/gemm/ozaki.hpp): the
// run says how many lines it could not cover; entries whose row and column are covered stay
// correctly rounded; the rest keep the scheme's normwise accuracy.
TEST(Ozaki, WideSpreadsAreReportedAndCoveredEntriesStayExact) {
  for (const char* range : {"1e10", "1e30"}) {
    Dataset d = gen("loguniform", "24,20,50", 12, {{"range", range}});
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    for (int64_t i = 0; i < M / 2; ++i)  // half the rows narrow again: 24-bit values in [1, 2)
      for (int64_t k = 0; k < K; ++k)
        d.a[i + k * M] = 1.0f + std::ldexp(static_cast<float>((i * 13 + k * 7) % 1000), -23);
    for (int64_t j = 0; j < N / 2; ++j)
      for (int64_t k = 0; k < K; ++k) d.b[k + j * K] = 1.0f + std::ldexp(static_cast<float>((k * 7 + j) % 100), -23);
    d.id = next_dataset_id();
    const Result r = run_ozaki(d);
    const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
    const Plan p = plan_for(K, rows, cols, 0);
    EXPECT_EQ(named(r.figures, "ozaki_exact"), 0.0) << range;
    EXPECT_EQ(named(r.figures, "ozaki_slices"), kMaxModuli);
    EXPECT_EQ(named(r.figures, "ozaki_rows_uncovered"), static_cast<double>(p.rows_uncovered));
    EXPECT_EQ(named(r.figures, "ozaki_cols_uncovered"), static_cast<double>(p.cols_uncovered));
    EXPECT_GT(p.rows_uncovered + p.cols_uncovered, 0);
    const auto ex = std::static_pointer_cast<const GemmExact>(family("gemm").oracle(d).exact);
    int64_t covered = 0;
    for (int64_t j = 0; j < N; ++j)
      for (int64_t i = 0; i < M; ++i)
        if (line_span(rows.max_bits[i], rows.low[i]) <= p.bits_a &&
            line_span(cols.max_bits[j], cols.low[j]) <= p.bits_b) {
          ++covered;
          EXPECT_EQ(r.values[i + j * M], ex->ref[i + j * M]) << range << " (" << i << ", " << j << ")";
        }
    EXPECT_GT(covered, 0) << range;
  }
}

// At K = 32, 25 + 25 bits need 8 moduli by K 2^50 = 2^55 > P_7/2 ~ 2^54.7; the lines' norms bound C' below
// P_7/2, so the plan takes 7, and every entry stays correctly rounded (the bound holds on the exact C').
TEST(Ozaki, NormsLowerAnExactPlansModuli) {
  for (bool wide : {false, true})
    for (bool transposed : {false, true}) {
      const std::string what = std::string(wide ? "wide" : "narrow") + (transposed ? ", B = A^T" : "");
      const uint64_t seed = wide ? 7 : 8;
      const Dataset d = spans25(20, 20, 32, seed, wide, transposed);
      const int64_t M = d.rows, N = d.cols, K = d.inner;
      const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
      const Plan cover = cover_plan(K, rows, cols, 0), p = plan_for(K, rows, cols, 0);
      ASSERT_EQ(cover.need_a + cover.need_b, 50) << what;
      EXPECT_EQ(cover.moduli, 8) << what;
      EXPECT_TRUE(norms_may_lower<float>(cover, K, Accuracy::cr, 0)) << what;
      EXPECT_EQ(p.moduli, 7) << what;
      EXPECT_TRUE(p.exact()) << what;
      const u128 largest = largest_product(d, p), bound = p.bound.as<u128>();
      EXPECT_LE(largest, bound) << what;
      EXPECT_LT(bound, moduli_product(7) / 2) << what;
      if (wide && transposed) EXPECT_GT(largest, bound / 2) << what << ": the data meet the bound within a factor 2";
      for (const Params& q : {Params{}, Params{{"alpha", "-0.75"}, {"beta", "1.5"}}}) {
        const Dataset e = spans25(20, 20, 32, seed, wide, transposed, q);
        const Result r = run_ozaki(e);
        EXPECT_EQ(named(r.figures, "ozaki_slices"), 7) << what;
        EXPECT_LT(named(r.figures, "ozaki_product_bound_log2"), std::log2(static_cast<double>(moduli_product(7) / 2)));
        EXPECT_GT(named(r.figures, "ozaki_product_bound_log2"), 50.0) << what;
        expect_exact(e);
      }
      EXPECT_EQ(named(run_ozaki(d, {{"accuracy", "sgemm"}}).figures, "ozaki_exact"), 0.0) << what;
      EXPECT_EQ(named(run_ozaki(d, {{"slices", "8"}}).figures, "ozaki_slices"), 8) << what << ": a given L is kept";
    }
}

TEST(Ozaki, CeilSqrtIsExact) {
  std::mt19937_64 g(5);
  for (int t = 0; t < 2000; ++t) {
    const uint64_t r = t < 1000 ? g() >> (t % 64) : g();
    const u128 sq = static_cast<u128>(r) * r;
    EXPECT_EQ(ceil_sqrt(sq), r);
    if (r > 1) EXPECT_EQ(ceil_sqrt(sq - 1), r);
    if (r < UINT64_MAX) EXPECT_EQ(ceil_sqrt(sq + 1), r + 1);
  }
  EXPECT_EQ(ceil_sqrt(0), 0u);
  const u128 most = static_cast<u128>(UINT64_MAX) * UINT64_MAX;
  EXPECT_EQ(ceil_sqrt(most), UINT64_MAX);
  EXPECT_EQ(ceil_sqrt(most - 1), UINT64_MAX);
  EXPECT_THROW(ceil_sqrt(most + 1), std::logic_error);
}

// The norms are summed only where they may lower L: the rule's bound within 3x (what uniform lines gain) of the
// next smaller half product, for a cr plan whose L the rule chose.
TEST(Ozaki, NormsAreTriedOnlyWhereUniformLinesWouldGain) {
  auto plan = [](int moduli, int need_a, int need_b) {
    Plan p;
    p.moduli = moduli;
    p.need_a = need_a;
    p.need_b = need_b;
    return p;
  };
  EXPECT_TRUE(norms_may_lower<float>(plan(9, 25, 25), 8192, Accuracy::cr, 0));   // 2^63 against P_8/2 ~ 2^62.6
  EXPECT_FALSE(norms_may_lower<float>(plan(8, 24, 24), 8192, Accuracy::cr, 0));  // 2^61 against P_7/2 ~ 2^54.7
  EXPECT_FALSE(norms_may_lower<float>(plan(9, 25, 25), 8192, Accuracy::sgemm, 0));
  EXPECT_FALSE(norms_may_lower<float>(plan(9, 25, 25), 8192, Accuracy::cr, 9));  // a given L is kept
  Plan uncovered = plan(9, 25, 25);
  uncovered.rows_uncovered = 1;
  EXPECT_FALSE(norms_may_lower<float>(uncovered, 8192, Accuracy::cr, 0));
  // Doubles of U[0,1]: 53 + 53 bits at K = 4096 pass P_15/2 by 3.3x, beyond uniform lines' gain.
  EXPECT_FALSE(norms_may_lower<double>(plan(16, 53, 53), 4096, Accuracy::cr, 0));
  EXPECT_TRUE(norms_may_lower<double>(plan(16, 53, 52), 4096, Accuracy::cr, 0));
}

// Narrow lines at K = 1: 8 + 8 bits, K 2^16 > P_2/2 = 32640 by the rule, but |C'| = 129^2 = 16641 ((1/2 + 2^-8)
// 2^8 = 129) by the norms (their scale 2^-32 cut to an integer bound, rounded up): two moduli, exact.
TEST(Ozaki, NormsLowerAPlanBelowTheirOwnScale) {
  Dataset d = gen("uniform", "3,2,1", 4);
  for (auto& x : d.a) x = 0.5f + 0x1p-8f;
  for (auto& x : d.b) x = -(0.5f + 0x1p-8f);
  d.id = next_dataset_id();
  const Lines rows = summarize_lines(d.a.data(), d.rows, d.inner, 1, d.rows),
              cols = summarize_lines(d.b.data(), d.cols, d.inner, d.inner, 1);
  const Plan cover = cover_plan(d.inner, rows, cols, 0), p = plan_for(d.inner, rows, cols, 0);
  EXPECT_EQ(cover.moduli, 3);
  EXPECT_EQ(p.moduli, 2);
  EXPECT_EQ(p.bound.s, 0);
  EXPECT_GE(p.bound.m, 16641u);
  EXPECT_LE(p.bound.m, 16642u);
  expect_exact(d);
}

// Lines whose norms are as large as the spans allow (every entry near 2^top) keep the rule's moduli.
TEST(Ozaki, NormsKeepTheModuliWhereTheyCannotLowerThem) {
  Dataset d = spans25(12, 10, 32, 9, true);
  for (auto& x : d.a) x = std::copysign(1.0f - 0x1p-24f, x);
  for (auto& x : d.b) x = std::copysign(1.0f - 0x1p-24f, x);
  d.a[0] = 0x1p-25f;  // a 25-bit span again, in one row and one column
  d.b[0] = 0x1p-25f;
  d.id = next_dataset_id();
  const Lines rows = summarize_lines(d.a.data(), d.rows, d.inner, 1, d.rows),
              cols = summarize_lines(d.b.data(), d.cols, d.inner, d.inner, 1);
  const Plan p = plan_for(d.inner, rows, cols, 0);
  EXPECT_EQ(p.moduli, 8);
  EXPECT_EQ(p.bound.m, static_cast<uint64_t>(d.inner));
  expect_exact(d);
}

TEST(Ozaki, SlicesSweepReportsWhatEachSettingComputes) {
  const Dataset d = gen("uniform", "20,20,40", 13);
  for (int L = kMinModuli; L <= kMaxModuli; ++L) {
    const Result r = run_ozaki(d, {{"slices", std::to_string(L)}});
    EXPECT_EQ(named(r.figures, "ozaki_slices"), L);
    EXPECT_EQ(named(r.figures, "ozaki_int8_products"), L);
    const Metrics m = judge(d, r);
    if (named(r.figures, "ozaki_exact") == 1.0) EXPECT_TRUE(m.correctly_rounded) << L;
    // Eight or more moduli make every product of 24-bit data with K <= 2^14 exact.
    if (L >= 8) EXPECT_TRUE(m.correctly_rounded) << L;
    if (L >= 8) EXPECT_EQ(named(r.figures, "ozaki_exact"), 1.0) << L;
  }
  int fewest = kMaxModuli;  // the default: the fewest moduli whose budget holds 24 + 24 bits
  while (fewest > kMinModuli && bit_budget(fewest - 1, d.inner) >= 48) --fewest;
  const Result def = run_ozaki(d);
  EXPECT_EQ(named(def.figures, "ozaki_slices"), fewest);
  EXPECT_EQ(named(def.figures, "ozaki_exact"), 1.0);
}

// ---- accuracy targets (families/gemm/ozaki_bound.hpp) ----

// Every run reports its error bound per row after the entries; the exact oracle finds every judged
// entry within it (plus half an ulp of the entry), whatever the number of moduli.
void expect_within_bound(const Dataset& d, const Result& r, const std::string& what) {
  ASSERT_EQ(r.what, kWithRowBounds);
  ASSERT_EQ(r.values.size(), static_cast<size_t>(d.rows * d.cols + d.rows));
  const Metrics m = judge(d, r);
  EXPECT_EQ(named(m.extra, "bound_violations"), 0.0) << what << " err/bound " << named(m.extra, "err_over_bound_max");
  EXPECT_LE(named(m.extra, "err_over_bound_max"), 1.0) << what;
  EXPECT_EQ(named(m.extra, "row_bound_max"), named(r.figures, "ozaki_row_bound_max")) << what;
}

TEST(Ozaki, ReportedRowBoundsHoldAtEveryNumberOfModuli) {
  for (const char* dist : {"uniform", "uniform-sym", "loguniform"}) {
    const Dataset d = gen(dist, "23,19,700", 31, {{"range", "1e10"}, {"alpha", "-1.5"}, {"beta", "0.25"}});
    for (int L = 3; L <= kMaxModuli; L += 2) {
      const Result r = run_ozaki(d, {{"slices", std::to_string(L)}});
      expect_within_bound(d, r, std::string(dist) + " L " + std::to_string(L));
      if (named(r.figures, "ozaki_exact") == 1.0) {
        EXPECT_EQ(named(r.figures, "ozaki_row_bound_max"), 0.0);
      } else {
        EXPECT_GT(named(r.figures, "ozaki_row_bound_max"), 0.0);
      }
    }
  }
}

// --accuracy=sgemm: fewer moduli than cr on uniform data at large K, every entry within the
// reported bound, and each row's bound at most gamma_K ||a_i||_2 max_j ||b_j||_2 (from the data).
TEST(Ozaki, AccuracySgemmTakesFewerModuliWithinSgemmsBound) {
  for (const char* dist : {"uniform", "uniform-sym"}) {
    const Dataset d = gen(dist, "40,36,4096", 32);
    const Result cr = run_ozaki(d), sg = run_ozaki(d, {{"accuracy", "sgemm"}});
    SCOPED_TRACE(dist);
    EXPECT_LT(named(sg.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices"));
    EXPECT_EQ(named(sg.figures, "ozaki_accuracy_sgemm"), 1.0);
    expect_within_bound(d, sg, dist);
    expect_within_bound(d, cr, dist);
    EXPECT_TRUE(judge(d, cr).correctly_rounded);
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    const double gamma = K * 0x1p-24 / (1 - K * 0x1p-24);
    for (int64_t i = 0; i < M; ++i) {
      double na = 0;
      for (int64_t k = 0; k < K; ++k) na += double(d.a[i + k * M]) * d.a[i + k * M];
      double nb_max = 0;  // bound_i covers max_j E_ij <= gamma ||a_i||_2 max_j ||b_j||_2
      for (int64_t j = 0; j < N; ++j) {
        double nb = 0;
        for (int64_t k = 0; k < K; ++k) nb += double(d.b[k + j * K]) * d.b[k + j * K];
        nb_max = std::max(nb_max, nb);
      }
      EXPECT_LE(sg.values[static_cast<size_t>(M * N + i)], gamma * std::sqrt(na * nb_max)) << "row " << i;
    }
    // One fewer modulus than chosen does not meet the target: the choice is the fewest.
    const int L = static_cast<int>(named(sg.figures, "ozaki_slices"));
    const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
    const Plan fewer =
        make_plan(K, rows.max_bits.data(), rows.low.data(), M, cols.max_bits.data(), cols.low.data(), N, L - 1);
    const LineMaximaByBits rm = line_maxima_by_bits(norms_of(rows)), cm = line_maxima_by_bits(norms_of(cols));
    EXPECT_FALSE(meets_sgemm_target(rm, cm, fewer.bits_a, fewer.bits_b, K));
    // The table by bits is the direct maxima over the lines at every bits.
    for (int bits = 0; bits <= kMaxSideBits; ++bits) {
      const LineMaxima direct = line_maxima(norms_of(rows), bits);
      EXPECT_EQ(rm.at[bits].step, direct.step) << bits;
      EXPECT_EQ(rm.at[bits].step_over_n2, direct.step_over_n2) << bits;
      EXPECT_EQ(rm.at[bits].n1_over_n2, direct.n1_over_n2) << bits;
      EXPECT_EQ(rm.at[bits].n1, direct.n1) << bits;
    }
  }
}

// The target is met on wide spreads too (log-uniform 1e10: more moduli than uniform data), and
// never with more moduli than cr.
TEST(Ozaki, AccuracySgemmOnWideSpreads) {
  const Dataset d = gen("loguniform", "30,20,2000", 33, {{"range", "1e10"}});
  const Result cr = run_ozaki(d), sg = run_ozaki(d, {{"accuracy", "sgemm"}});
  EXPECT_LE(named(sg.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices"));
  expect_within_bound(d, sg, "loguniform 1e10");
}

// faithful_within: e below half the smaller gap around f proves RN(v) faithful for every x within e of v.
TEST(Ozaki, FaithfulWithinIsHalfTheSmallerGapAroundTheResult) {
  const float kMax = std::numeric_limits<float>::max();
  struct Case {
    float f;
    double limit;  // half the smaller gap
  };
  for (const Case c : {Case{1.0f, 0x1p-25}, Case{1.5f, 0x1p-24}, Case{0.0f, 0x1p-150}, Case{0x1p-149f, 0x1p-150},
                       Case{0x1p-126f, 0x1p-150}, Case{kMax, 0x1p103}, Case{-3.0f, 0x1p-23}}) {
    SCOPED_TRACE(c.f);
    EXPECT_TRUE(faithful_within(c.f, 0.0));
    EXPECT_TRUE(faithful_within(c.f, std::nextafter(c.limit, 0.0)));
    EXPECT_FALSE(faithful_within(c.f, c.limit));
  }
  EXPECT_TRUE(faithful_within(INFINITY, 0.0));  // an exact value's own rounding
  EXPECT_FALSE(faithful_within(INFINITY, 1e-30));
  EXPECT_FALSE(faithful_within(-INFINITY, 1e-30));
  EXPECT_FALSE(faithful_within(NAN, 1e-30));
  // Soundness: v rounding to f, x within e of v (e just below the limit): x is strictly between f's neighbours.
  std::mt19937_64 g(5);
  for (int t = 0; t < 100000; ++t) {
    uint32_t u = static_cast<uint32_t>(g()) & 0x7f7fffffu;
    if (u == 0x7f7fffffu) continue;
    const float f = of_bits<float>(u) * ((g() & 1) ? -1.0f : 1.0f), a = std::fabs(f);
    const double up = float_gap_above(a), down = float_gap_below(a);
    const double e = std::nextafter(0.5 * std::min(up, down), 0.0) * (0.5 + 0.5 * std::ldexp(double(g() >> 11), -53));
    ASSERT_TRUE(faithful_within(f, e));
    const double r1 = std::ldexp(double(g() >> 11), -53), r2 = std::ldexp(double(g() >> 11), -53);
    const double v = a + (r1 - 0.5) * ((r1 < 0.5 ? down : up));  // |v - a| <= half the gap on v's side
    ASSERT_EQ(static_cast<float>(v), a);
    const double x = v + (2 * r2 - 1) * e;
    EXPECT_GT(x, double(a) - down) << f;
    EXPECT_LT(x, double(a) + up) << f;
  }
}

// --accuracy=faithful: cr's plan; where lines stay uncovered (log-uniform spreads; or a given --slices), every entry
// whose own bound does not prove it faithful is summed exactly. Every entry is then faithful, those summed exactly
// are correctly rounded, the others are cr's bits, and the count is what the bounds say.
TEST(Ozaki, FaithfulSumsExactlyWhatItsBoundCannotProve) {
  struct Case {
    const char* dist;
    const char* range;
    const char* slices;
    Params extra;
  };
  const Case cases[] = {{"loguniform", "1e10", "0", {}},
                        {"loguniform", "1e30", "0", {{"alpha", "-1.5"}, {"beta", "0.25"}}},
                        {"loguniform", "1e10", "5", {{"alpha", "3"}}},
                        {"uniform-sym", "1", "4", {{"beta", "-2"}}},
                        {"uniform", "1", "0", {}}};
  for (const Case& c : cases) {
    Params extra = c.extra;
    extra["range"] = c.range;
    const Dataset d = gen(c.dist, "21,18,300", 41, extra);
    const std::string what = std::string(c.dist) + " " + c.range + " slices " + c.slices;
    SCOPED_TRACE(what);
    const Result cr = run_ozaki(d, {{"slices", c.slices}});
    const Result ff = run_ozaki(d, {{"slices", c.slices}, {"accuracy", "faithful"}});
    const Metrics m = judge(d, ff);
    EXPECT_EQ(named(m.extra, "share_faithful"), 1.0);
    EXPECT_EQ(named(ff.figures, "ozaki_accuracy_faithful"), 1.0);
    EXPECT_EQ(named(ff.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices"));
    expect_within_bound(d, ff, what);
    const auto ex = std::static_pointer_cast<const GemmExact>(family("gemm").oracle(d).exact);
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    const Lines rows = summarize_lines(d.a.data(), M, K, 1, M), cols = summarize_lines(d.b.data(), N, K, K, 1);
    const Plan p = plan_for(K, rows, cols, std::stoi(c.slices), Accuracy::faithful);
    const LineNorms rn = norms_of(rows), cn = norms_of(cols);
    const double abs_alpha = std::fabs(double{data_scalar<float>(d.data, "alpha", 1.0f)});
    int64_t summed = 0;
    for (int64_t j = 0; j < N; ++j)
      for (int64_t i = 0; i < M; ++i) {
        const size_t e = static_cast<size_t>(i + j * M);
        // Each entry's own bound, at most its row's reported one.
        const double bound = p.exact() ? 0.0
                                       : entry_bound(line_terms(rn, static_cast<size_t>(i), p.bits_a),
                                                     line_terms(cn, static_cast<size_t>(j), p.bits_b), K, abs_alpha);
        EXPECT_LE(bound, ff.values[static_cast<size_t>(M * N + i)]);
        if (faithful_within(static_cast<float>(cr.values[e]), bound)) {
          EXPECT_TRUE(same_float(ff.values[e], cr.values[e])) << i << ", " << j;
        } else {
          ++summed;
          EXPECT_TRUE(same_float(ff.values[e], ex->ref[e])) << i << ", " << j;
        }
      }
    EXPECT_EQ(named(ff.figures, "ozaki_exact_entries"), static_cast<double>(summed));
    if (named(cr.figures, "ozaki_exact") == 1.0) {
      EXPECT_EQ(summed, 0);
    } else if (std::string(c.slices) != "0") {
      EXPECT_GT(summed, 0);  // few moduli leave most entries to the exact sum
      EXPECT_LT(named(judge(d, cr).extra, "share_faithful"), 1.0);
    }
  }
}

// The exact sum of one entry is the oracle's: alpha, beta, cancellation to zero and below the float range.
TEST(Ozaki, ExactFloatEntryIsTheOracles) {
  const float a[] = {1.0f, 0x1p-12f, -0x1.8p100f, 0x1p-149f, 3.0f};
  const float b[] = {1.0f, 0x1p-12f, 0x1p20f, 0x1.000002p-149f, -1.0f / 3};
  for (const float alpha : {1.0f, -1.5f, 0x1p-100f, 0x1.000002p-149f, 0x1.fffffep127f})
    for (const float beta : {0.0f, 0.25f}) {
      const float c = 0x1.000002p120f;
      Dataset d;
      d.family = "gemm";
      d.rows = d.cols = 1;
      d.inner = d.n = 5;
      d.a.assign(a, a + 5);
      d.b.assign(b, b + 5);
      d.c = {c};
      d.data = {{"alpha", float_hex(alpha)}, {"beta", float_hex(beta)}};
      d.id = next_dataset_id();
      const auto ex = std::static_pointer_cast<const GemmExact>(exact_gemm(d).exact);
      EXPECT_TRUE(same_float(exact_float_entry(a, 1, b, 5, alpha, beta, &c), ex->ref[0])) << alpha << " " << beta;
    }
  const float x[] = {1.0f, -1.0f}, y[] = {1.0f, 1.0f};
  EXPECT_EQ(exact_float_entry(x, 1, y, 2, 1.0f, 0.0f, nullptr), 0.0f);
  EXPECT_FALSE(std::signbit(exact_float_entry(x, 1, y, 2, 1.0f, 0.0f, nullptr)));
  const float tiny[] = {0x1p-100f}, half[] = {0x1p-50f};
  EXPECT_EQ(exact_float_entry(tiny, 1, half, 1, 1.0f, 0.0f, nullptr), 0.0f);  // 2^-150: the tie rounds to even, 0
  EXPECT_EQ(exact_float_entry(tiny, 1, half, 1, 1.5f, 0.0f, nullptr), 0x1p-149f);
  // The accumulator's range ends: 2^-447 terms beside 2^384 ones, and a sum that overflows float.
  const float lo[] = {0x1p-149f, 0x1p127f, -0x1p127f}, hi[] = {0x1p-149f, 0x1p127f, 0x1p127f};
  EXPECT_EQ(exact_float_entry(lo, 1, hi, 3, 0x1p-149f, 0.0f, nullptr), 0.0f);  // 2^-447 rounds to 0
  const float big[] = {0x1.fffffep127f, 0x1.fffffep127f};
  EXPECT_EQ(exact_float_entry(big, 1, big, 2, 0x1.fffffep127f, 0.0f, nullptr), INFINITY);
  EXPECT_EQ(exact_float_entry(big, 1, big, 2, -0x1.fffffep127f, 0.0f, nullptr), -INFINITY);
  // 2^-149 + 2^-298: one rounding, to 2^-149.
  const float one_a[] = {1.0f, 0x1p-149f}, one_b[] = {0x1p-149f, 0x1p-149f};
  EXPECT_EQ(exact_float_entry(one_a, 1, one_b, 2, 1.0f, 0.0f, nullptr), 0x1p-149f);
}

// The faithful mode's promise is the run's guarantee: reported, checked against the oracle by bench, and listed.
TEST(OzakiCli, FaithfulIsPromisedCheckedAndListed) {
  const std::string path = cli_test::tmpdir() + "/faithful.json";
  const auto r = cli_test::accsum(
      "bench --algo=sgemm-ozaki --backend=cpu --accuracy=cr,faithful --slices=5 --shape=21,18,300 "
      "--dist=loguniform --range=1e10 --reps=1 --warmup=0 --json=" +
      path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(cli_test::slurp(path));
  int seen = 0;
  for (const auto& res : doc["results"]) {
    if (res["algo"] != "sgemm-ozaki") continue;
    ++seen;
    const bool faithful_mode = res["params"]["accuracy"] == "faithful";
    EXPECT_EQ(res["guarantee"], faithful_mode ? "faithful" : "none");
    EXPECT_TRUE(res["guarantee_met"].get<bool>());
    EXPECT_EQ(res["faithful"].get<bool>(), faithful_mode);  // 5 moduli leave cr's entries unfaithful here
  }
  EXPECT_EQ(seen, 2);
  const auto l = cli_test::accsum("list --format=json");
  ASSERT_EQ(l.code, 0) << l.err;
  bool listed = false;
  const auto listing = nlohmann::json::parse(l.out);
  for (const auto& a : listing["algorithms"])
    if (a["algo"] == "sgemm-ozaki") {
      listed = true;
      EXPECT_EQ(a["guarantee"], "none");
      EXPECT_EQ(a["guarantees"], nlohmann::json::array({"none", "faithful"}));
    }
  EXPECT_TRUE(listed);
}

TEST(Ozaki, AccuracyParameter) {
  const AlgoEntry* e = registry().find("sgemm-ozaki", "cpu");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(registry().resolve_params(*e, {}).at("accuracy"), "cr");
  EXPECT_EQ(registry().resolve_params(*e, {{"accuracy", "sgemm"}}).at("accuracy"), "sgemm");
  EXPECT_EQ(registry().resolve_params(*e, {{"accuracy", "faithful"}}).at("accuracy"), "faithful");
  EXPECT_THROW(registry().resolve_params(*e, {{"accuracy", "double"}}), UsageError);
  const AlgoEntry* de = registry().find("dgemm-ozaki", "cpu");  // no exact fallback for doubles
  ASSERT_NE(de, nullptr);
  EXPECT_THROW(registry().resolve_params(*de, {{"accuracy", "faithful"}}), UsageError);
}

TEST(Ozaki, RegisteredWithTheSlicesParameter) {
  const AlgoEntry* e = registry().find("sgemm-ozaki", "cpu");
  ASSERT_NE(e, nullptr);
  EXPECT_THROW(registry().resolve_params(*e, {{"slices", "1"}}), UsageError);
  EXPECT_THROW(registry().resolve_params(*e, {{"slices", std::to_string(kMaxModuli + 1)}}), UsageError);
  EXPECT_EQ(registry().resolve_params(*e, {{"slices", "9"}}).at("slices"), "9");
  EXPECT_EQ(registry().resolve_params(*e, {{"slices", std::to_string(kMaxModuli)}}).at("slices"),
            std::to_string(kMaxModuli));
  EXPECT_EQ(registry().resolve_params(*e, {}).at("slices"), "0");
  EXPECT_THROW(run_ozaki(gen("uniform", "1,1,40000"), {{"slices", "2"}}), UsageError);  // 256 * 255 / 2 < K
}
