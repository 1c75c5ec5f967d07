// sgemm-ozaki's arithmetic (families/gemm/ozaki.hpp): the one-rounding steps against MPFR, the CRT,
// the cuda backend's faster forms against their definitions, the residues' ranges. Plans and whole
// products: tests/families/test_ozaki_products.cpp.
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
#include "tests/gemm_test_util.hpp"

using namespace accsum;
using namespace accsum::ozaki;

namespace {

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
