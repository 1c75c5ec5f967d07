// The dgemm family and dgemm-ozaki on the cpu backend: the 256-bit integers (core/numerics/uwide.hpp)
// against 128-bit arithmetic, the double rounding steps and the CRT of families/gemm/ozaki.hpp against
// MPFR and exact integers, the exact oracle against MPFR entry by entry, then whole products:
// --accuracy=cr correctly rounded on every kind of data, --accuracy=dgemm within its reported
// bounds, the plain dgemm and its file input, and bad arguments.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/cli_run.hpp"
#include "tests/gemm_test_util.hpp"
#include "tests/npy_bytes.hpp"
#include "families/gemm/ozaki_run.hpp"
#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "families/gemm/ozaki.hpp"
#include "core/numerics/uwide.hpp"
#include "core/oracle/gemm_oracle.hpp"

using namespace accsum;
using namespace accsum::ozaki;

namespace {

using gemm_test::judge;
using gemm_test::named;
using gemm_test::run_cpu;

Dataset gen(const std::string& dist, const std::string& shape, uint64_t seed = 1, Params extra = {}) {
  return gemm_test::generate("dgemm", dist, shape, seed, std::move(extra));
}

void expect_cr(const Dataset& d, Params user = {}) {
  const Result r = run_cpu("dgemm-ozaki", d, user);
  const Metrics m = judge(d, r);
  EXPECT_TRUE(m.correctly_rounded) << d.generator << " share " << named(m.extra, "share_correctly_rounded");
  EXPECT_EQ(named(m.extra, "share_correctly_rounded"), 1.0) << d.generator;
  EXPECT_EQ(named(r.figures, "ozaki_exact"), 1.0) << d.generator;
}

U256 random_u256(std::mt19937_64& g, int bits) {
  U256 v;
  for (int i = 0; i < 4; ++i) v.limb[i] = g();
  return bits >= 256 ? v : v >> (256 - bits);
}

// Exact integer into MPFR (256 bits suffice for every U256).
void set_u256(mpfr_t out, const U256& v) {
  mpfr_set_ui(out, 0, MPFR_RNDN);
  for (int i = 3; i >= 0; --i) {
    mpfr_mul_2ui(out, out, 64, MPFR_RNDN);
    mpfr_add_ui(out, out, static_cast<unsigned long>(v.limb[i]), MPFR_RNDN);
  }
}

void set_wide(mpfr_t out, const WideOf<U256>& w) {
  set_u256(out, w.mag);
  mpfr_mul_2si(out, out, w.exp, MPFR_RNDN);
  if (w.neg) mpfr_neg(out, out, MPFR_RNDN);
}

WideOf<U256> random_wide(std::mt19937_64& g, int max_bits, int exp_lo, int exp_hi) {
  WideOf<U256> w;
  w.mag = random_u256(g, 1 + static_cast<int>(g() % static_cast<uint64_t>(max_bits)));
  w.neg = g() & 1;
  w.exp = exp_lo + static_cast<int>(g() % static_cast<uint64_t>(exp_hi - exp_lo + 1));
  return w;
}

bool same_double(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 8) == 0 || (a == 0 && b == 0);
}

// The exact entry alpha * sum_k a_ik b_kj + beta c_ij in MPFR (8000 bits hold any such sum of
// doubles exactly), rounded once to double by mpfr_get_d (subnormals included).
double mpfr_reference(const Dataset& d, int64_t i, int64_t j) {
  const double alpha = data_double(d.data, "alpha", 1.0), beta = data_double(d.data, "beta", 0.0);
  mpfr_t acc, t;
  mpfr_init2(acc, 8000);
  mpfr_init2(t, 200);
  mpfr_set_ui(acc, 0, MPFR_RNDN);
  const int64_t M = d.rows, K = d.inner;
  if (alpha != 0)
    for (int64_t k = 0; k < K; ++k) {
      mpfr_set_d(t, alpha, MPFR_RNDN);
      mpfr_mul_d(t, t, d.a64[static_cast<size_t>(i + k * M)], MPFR_RNDN);
      mpfr_mul_d(t, t, d.b64[static_cast<size_t>(k + j * K)], MPFR_RNDN);
      mpfr_add(acc, acc, t, MPFR_RNDN);
    }
  if (beta != 0) {
    mpfr_set_d(t, beta, MPFR_RNDN);
    mpfr_mul_d(t, t, d.c64[static_cast<size_t>(i + j * M)], MPFR_RNDN);
    mpfr_add(acc, acc, t, MPFR_RNDN);
  }
  const double r = mpfr_get_d(acc, MPFR_RNDN);
  mpfr_clear(acc);
  mpfr_clear(t);
  return r;
}

}  // namespace

// ---- the integers and the arithmetic ----

TEST(Dgemm, Uwide256MatchesUnsigned128Arithmetic) {
  std::mt19937_64 g(3);
  auto to_u128 = [](const U256& v) { return static_cast<u128>(v.limb[1]) << 64 | v.limb[0]; };
  auto of_u128 = [](u128 v) {
    U256 w;
    w.limb[0] = static_cast<uint64_t>(v);
    w.limb[1] = static_cast<uint64_t>(v >> 64);
    return w;
  };
  for (int t = 0; t < 20000; ++t) {
    const u128 a = (static_cast<u128>(g()) << 64 | g()) >> (g() % 128),
               b = (static_cast<u128>(g()) << 64 | g()) >> (g() % 128);
    const U256 wa = of_u128(a), wb = of_u128(b);
    const int s = static_cast<int>(g() % 128);
    ASSERT_TRUE(to_u128(wa + wb) == a + b);  // modulo 2^128; the carry goes to limb 2
    ASSERT_EQ((wa + wb).limb[2], a + b < a ? 1u : 0u);
    if (a >= b) ASSERT_TRUE(to_u128(wa - wb) == a - b);
    ASSERT_TRUE(to_u128(wa * wb) == a * b);  // the low 128 bits of the product
    const U256 w = random_u256(g, 256);
    const uint64_t one_limb = g() >> (g() % 64);
    ASSERT_TRUE(w * one_limb == w * U256(one_limb)) << t;  // the one-limb product is the full one
    ASSERT_TRUE(to_u128(wa >> s) == a >> s);
    ASSERT_TRUE(((wa << s) >> s) == wa) << t;  // no bit lost below 256
    ASSERT_TRUE(to_u128(wa << s) == a << s) << t;
    ASSERT_EQ(wa < wb, a < b);
    ASSERT_EQ(wa == wb, a == b);
    ASSERT_EQ(bit_length(wa), bit_length(a));
    uint32_t rem = 0;
    const uint32_t d = 2 + static_cast<uint32_t>(g() % 300);
    ASSERT_TRUE(to_u128(divide_small(wa, d, &rem)) == a / d);
    ASSERT_EQ(rem, static_cast<uint32_t>(a % d));
  }
  // Full 256-bit products: (2^128 - 1)^2 = 2^256 - 2^129 + 1.
  const U256 m = (U256(1) << 128) - U256(1), sq = m * m;
  EXPECT_EQ(sq.limb[0], 1u);
  EXPECT_EQ(sq.limb[1], 0u);
  EXPECT_EQ(sq.limb[2], ~uint64_t{1});
  EXPECT_EQ(sq.limb[3], ~uint64_t{0});
}

TEST(Dgemm, RoundToDoubleAndRoundSumAreMpfrRoundToNearest) {
  std::mt19937_64 g(7);
  mpfr_t x, y;
  mpfr_init2(x, 3000);  // exponents in [-1400, 900], 251 bits: every sum below is exact
  mpfr_init2(y, 3000);
  for (int t = 0; t < 40000; ++t) {
    // alpha C' reaches 251 bits with 26 moduli; beta c has <= 106 ((3) of ozaki.hpp's "Doubles").
    WideOf<U256> a = random_wide(g, t % 2 ? 251 : 60, -1400, 900),
                 b = random_wide(g, t % 5 == 1 ? 251 : 106, -1400, 900);
    if (t % 7 == 0) {  // exact midpoints and near-midpoints
      a.mag = (a.mag >> 80 << 80) + (U256(1) << 79);
    }
    if (t % 3 == 0) {  // cancellation: b close to -a
      b.neg = !a.neg;
      const int n = bit_length(a.mag), nb = t % 2 ? 106 : 240;
      b.exp = a.exp + (n > nb ? n - nb : 0);
      b.mag = (a.mag >> (b.exp - a.exp)) + U256(g() % 5);
      if (b.mag == U256(0)) b.mag = U256(1);
    }
    if (t % 11 == 0)  // leads at the edges of the normal range
      a.exp = static_cast<int>(g() % 8) - 1026 + (t % 2) * 2049 - (bit_length(a.mag) - 1);
    set_wide(x, a);
    ASSERT_TRUE(same_double(round_to<double>(a), mpfr_get_d(x, MPFR_RNDN))) << t;
    ASSERT_TRUE(same_double(round_to_fast<double>(a), mpfr_get_d(x, MPFR_RNDN))) << t;  // the cuda combine's form
    set_wide(y, b);
    mpfr_add(x, x, y, MPFR_RNDN);
    ASSERT_TRUE(same_double(round_sum_to<double>(a, b), mpfr_get_d(x, MPFR_RNDN))) << t;
  }
  mpfr_clear(x);
  mpfr_clear(y);
}

// crt_small for doubles (int128 two's complement) on every C' its precondition admits at each L
// where make_crt_small accepts some bound: the ends, 0, +-1 and uniform draws, against crt_magnitude.
template <int L>
void expect_small_crt_matches_double(std::mt19937_64& g) {
  const CrtOf<double> c = make_crt<double>(L);
  int b = -1;  // the largest bits_a with make_crt_small(c, bits_a, 0, 1) accepted
  for (int t = 0; t < 127; ++t)
    if (make_crt_small<u128>(c, ProductBound{1, t}).applies) b = t;
  if (b < 0) return;
  const auto k = make_crt_small<u128>(c, ProductBound{1, b});
  const u128 bound = static_cast<u128>(1) << b;
  for (int t = 0; t < 3000; ++t) {
    const bool neg = t % 2 == 1;
    u128 mag = t < 2 ? bound : t < 4 ? static_cast<u128>(t - 2) : ((static_cast<u128>(g()) << 64 | g()) % (bound + 1));
    int r[kMaxModuliDouble];
    U256 m256;
    m256.limb[0] = static_cast<uint64_t>(mag);
    m256.limb[1] = static_cast<uint64_t>(mag >> 64);
    for (int l = 0; l < L; ++l) {
      uint32_t m = 0;
      divide_small(m256, static_cast<uint32_t>(modulus(l)), &m);
      r[l] = neg && m ? modulus(l) - static_cast<int>(m) : static_cast<int>(m);
    }
    const u128 got = crt_small<L>(r, k);
    const u128 want = neg ? 0 - mag : mag;
    ASSERT_TRUE(got == want) << "L=" << L << " t=" << t;
    bool full_neg = false;
    ASSERT_TRUE(crt_magnitude(r, c, &full_neg) == m256);
  }
}

TEST(Dgemm, SmallCrtIsTheCrtWhereItsPlanFits) {
  std::mt19937_64 g(11);
  expect_small_crt_matches_double<2>(g);
  expect_small_crt_matches_double<13>(g);
  expect_small_crt_matches_double<15>(g);
  expect_small_crt_matches_double<16>(g);
  expect_small_crt_matches_double<17>(g);
  // dgemm accuracy's 13 moduli and cr's 16 at K = 8192 (results/dgemm_speed_*): int128 fits; 24 do not.
  EXPECT_TRUE(make_crt_small<u128>(make_crt<double>(13), ProductBound{8192, 40 + 40}).applies);
  EXPECT_FALSE(make_crt_small<u128>(make_crt<double>(24), ProductBound{8192, 60 + 60}).applies);
}

TEST(Dgemm, CrtReconstructsEverySymmetricIntegerOfTwentySixModuli) {
  EXPECT_EQ(kMaxModuliDouble, 26);
  for (int l = 0; l < kMaxModuliDouble; ++l) {
    EXPECT_LE(modulus(l), 256);
    for (int m = 0; m < l; ++m) EXPECT_EQ(std::gcd(modulus(l), modulus(m)), 1) << l << " " << m;
  }
  EXPECT_GT(bit_length(moduli_product_of<U256>(kMaxModuliDouble)), 198);
  std::mt19937_64 g(5);
  for (int L : {2, 13, 14, 20, 25, 26}) {
    const CrtOf<double> c = make_crt<double>(L);
    const U256 half = c.product >> 1;
    for (int t = 0; t < 3000; ++t) {
      // X in [-P/2, P/2): its ends, 0, -1, then uniform draws (as sign and magnitude).
      bool neg = t % 2 == 1;
      U256 mag = t < 2 ? (neg ? half : half - U256(1)) : t < 4 ? U256(t - 2) : U256(0);
      if (t >= 4) {
        uint32_t unused = 0;
        mag = random_u256(g, bit_length(half));
        if (mag >= half) mag = divide_small(mag, 2, &unused);
        if (neg && mag == U256(0)) neg = false;
      }
      int r[kMaxModuliDouble];
      for (int l = 0; l < L; ++l) {
        uint32_t m = 0;
        divide_small(mag, static_cast<uint32_t>(modulus(l)), &m);
        r[l] = neg && m ? modulus(l) - static_cast<int>(m) : static_cast<int>(m);
      }
      bool got_neg = false;
      const U256 got = crt_magnitude(r, c, &got_neg);
      ASSERT_TRUE(got == mag && got_neg == (neg && mag != U256(0))) << "L=" << L << " t=" << t;
    }
  }
}

TEST(Dgemm, ScaledResiduesOfWideIntegers) {
  // x 2^shift beyond 2^62: the residue of m 2^s from (m mod p)(2^s mod p).
  for (double x : {1.0, -1.0, 0x1.fffffffffffffp-1, -0x1.23456789abcdep-3, 0x1p-1074, 3.0}) {
    int e = 0;
    std::frexp(x, &e);
    for (int shift : {10, 70, 150, 197}) {
      const int s = shift + e - 53;  // x 2^shift = m 2^s with m the 53-bit significand
      if (s < 0) continue;
      const int64_t m = static_cast<int64_t>(std::ldexp(std::frexp(x, &e), 53));
      for (int l = 0; l < kMaxModuliDouble; ++l) {
        const int p = modulus(l);
        int want = static_cast<int>(((m % p) + p) % p);
        for (int k = 0; k < s; ++k) want = want * 2 % p;
        const int sym = want > (p - 1) / 2 ? want - p : want;
        ASSERT_EQ(scaled_residue(x, shift, p), sym) << x << " " << shift << " " << p;
      }
    }
  }
}

TEST(Dgemm, CudaResidueFormMatchesTheDefinition) {
  // The cuda backend's split (scaled_integer_wide once per entry, residue_symmetric_wide per modulus)
  // against scaled_residue, across the 2^62 boundary, subnormals and both signs.
  std::mt19937_64 g(9);
  for (int t = 0; t < 20000; ++t) {
    double x = std::ldexp(static_cast<double>(g() >> 11), -53 - static_cast<int>(g() % 1100));
    if (g() & 1) x = -x;
    const int top = x == 0 ? 0 : std::ilogb(x) + 1;
    const int shift = static_cast<int>(g() % 200) - top;  // |x 2^shift| < 2^200
    const ScaledInteger w = scaled_integer_wide(x, shift);
    for (int l = 0; l < kMaxModuliDouble; ++l)
      ASSERT_EQ(residue_symmetric_wide(w, modulus(l)), scaled_residue(x, shift, modulus(l)))
          << x << " " << shift << " " << modulus(l);
  }
}

// ---- the oracle ----

TEST(Dgemm, OracleIsMpfrEntryByEntry) {
  struct Case {
    std::string dist, shape;
    Params extra;
  };
  const std::vector<Case> cases{{"uniform-sym", "7,5,40", {}},
                                {"loguniform", "6,4,30", {{"range", "1e300"}}},
                                {"illcond", "5,3,31", {{"cond", "1e30"}}},
                                {"uniform", "4,6,20", {{"alpha", "-0.3"}, {"beta", "0.7"}}},
                                // alpha*a below 2^-969: the TwoProduct is not exact, MPFR sums the entry
                                {"loguniform", "5,4,25", {{"range", "1e30"}, {"alpha", "1e-300"}, {"beta", "1e-310"}}},
                                // alpha*a beyond the largest double (a64[0] is set to 1e10 below)
                                {"uniform-sym", "3,3,9", {{"alpha", "1e300"}, {"beta", "-2"}}}};
  for (const Case& c : cases) {
    Dataset d = gen(c.dist, c.shape, 3, c.extra);
    if (c.extra.count("alpha") && c.extra.at("alpha") == "1e300") d.a64[0] = 1e10;  // alpha*a overflows
    const ExactValue v = family("dgemm").oracle(d);
    const auto ex = std::static_pointer_cast<const GemmExactOf<double>>(v.exact);
    for (int64_t j = 0; j < d.cols; ++j)
      for (int64_t i = 0; i < d.rows; ++i) {
        const double want = mpfr_reference(d, i, j);
        ASSERT_TRUE(same_double(ex->ref[static_cast<size_t>(i + j * d.rows)], want))
            << c.dist << " " << c.shape << " (" << i << "," << j << ") " << ex->ref[static_cast<size_t>(i + j * d.rows)]
            << " vs " << want;
      }
  }
}

// ---- dgemm-ozaki ----

TEST(Dgemm, OzakiCrIsCorrectlyRoundedOnEveryKindOfData) {
  expect_cr(gen("uniform", "33,17,65"));
  expect_cr(gen("uniform-sym", "20,21,300"));
  expect_cr(gen("loguniform", "16,12,64", 1, {{"range", "1e10"}}));
  expect_cr(gen("illcond", "9,7,61", 1, {{"cond", "1e8"}}));  // cancellation: products cancel in pairs
  for (uint64_t seed = 0; seed < 4; ++seed) expect_cr(gen("specials", "12,9,40", seed));
  for (const char* shape : {"1,1,1", "1,5,30", "5,1,7", "5,13,1"}) expect_cr(gen("uniform-sym", shape));
  expect_cr(gen("uniform-sym", "17,11,50", 2, {{"alpha", "-0.75"}, {"beta", "1.5"}}));
  expect_cr(gen("uniform", "9,10,20", 2, {{"alpha", "0"}, {"beta", "2"}}));
  expect_cr(gen("loguniform", "8,8,16", 4, {{"range", "1e12"}, {"alpha", "3.1"}, {"beta", "-1e-3"}}));
}

TEST(Dgemm, OzakiPlanForDoubles) {
  // 53-bit U[0,1) lines need 53 + 53 bits: 15 moduli at K = 200, 16 at K = 4096, 17 at K = 8192.
  EXPECT_LT(bit_budget<double>(14, 200), 106);
  EXPECT_GE(bit_budget<double>(15, 200), 106);
  EXPECT_LT(bit_budget<double>(15, 4096), 106);
  EXPECT_GE(bit_budget<double>(16, 4096), 106);
  EXPECT_GE(bit_budget<double>(17, 8192), 106);
  const Dataset d = gen("uniform", "8,8,200");
  EXPECT_EQ(named(run_cpu("dgemm-ozaki", d).figures, "ozaki_slices"), 15.0);
  // log-uniform lines wider than 62 bits are scaled exactly too.
  const Result r = run_cpu("dgemm-ozaki", gen("loguniform", "6,6,32", 1, {{"range", "1e12"}}));
  EXPECT_GT(named(r.figures, "ozaki_bits_a"), 62.0);
  EXPECT_EQ(named(r.figures, "ozaki_exact"), 1.0);
}

// Doubles of U[0,1] need 53 + 53 bits: at K = 2048 the rule asks for 16 moduli (K 2^106 = 2^117 > P_15/2 ~
// 2^116.3) and the lines' norms (about K/3 times the largest square) bound C' below P_15/2: 15, still exact.
TEST(Dgemm, NormsLowerAnExactPlansModuli) {
  const Dataset d = gen("uniform", "7,6,2048", 4, {{"alpha", "-0.75"}, {"beta", "1.5"}});
  const Result r = run_cpu("dgemm-ozaki", d);
  ASSERT_EQ(named(r.figures, "ozaki_need_bits_a") + named(r.figures, "ozaki_need_bits_b"), 106.0);
  EXPECT_EQ(named(r.figures, "ozaki_slices"), 15.0);
  expect_cr(d);
}

TEST(Dgemm, OzakiDgemmAccuracyStaysWithinItsRowBounds) {
  for (const auto& [dist, range] : std::vector<std::pair<std::string, std::string>>{
           {"uniform", "1"}, {"uniform-sym", "1"}, {"loguniform", "1e10"}, {"loguniform", "1e40"}}) {
    const Dataset d = gen(dist, "24,19,150", 5, {{"range", range}, {"alpha", "-1.25"}, {"beta", "0.5"}});
    const Result cr = run_cpu("dgemm-ozaki", d);
    const Result r = run_cpu("dgemm-ozaki", d, {{"accuracy", "dgemm"}});
    const Metrics m = judge(d, r);
    EXPECT_EQ(named(m.extra, "bound_violations"), 0.0) << dist << " " << range;
    EXPECT_LE(named(r.figures, "ozaki_slices"), named(cr.figures, "ozaki_slices")) << dist;
    EXPECT_EQ(named(r.figures, "ozaki_accuracy_dgemm"), 1.0);
    // The row bounds meet DGEMM's normwise bound: bound_i <= gamma_K |alpha| ||a_i||_2 max_j ||b_j||_2.
    const int64_t M = d.rows, N = d.cols, K = d.inner;
    const double gamma = K * 0x1p-53 / (1 - K * 0x1p-53);
    double nb_max = 0;
    for (int64_t j = 0; j < N; ++j) {
      double nb = 0;
      for (int64_t k = 0; k < K; ++k)
        nb += d.b64[static_cast<size_t>(k + j * K)] * d.b64[static_cast<size_t>(k + j * K)];
      nb_max = std::max(nb_max, nb);
    }
    for (int64_t i = 0; i < M; ++i) {
      double na = 0;
      for (int64_t k = 0; k < K; ++k)
        na += d.a64[static_cast<size_t>(i + k * M)] * d.a64[static_cast<size_t>(i + k * M)];
      EXPECT_LE(r.values[static_cast<size_t>(M * N + i)], gamma * 1.25 * std::sqrt(na * nb_max) * (1 + 1e-12))
          << dist << " " << range << " row " << i;
    }
  }
  // Every number of moduli: the reported bounds hold.
  const Dataset d = gen("loguniform", "10,9,80", 6, {{"range", "1e20"}});
  for (int L = 2; L <= kMaxModuliDouble; L += 3) {
    const Result r = run_cpu("dgemm-ozaki", d, {{"slices", std::to_string(L)}});
    EXPECT_EQ(named(judge(d, r).extra, "bound_violations"), 0.0) << L;
  }
}

// ---- the family: plain dgemm, files, bad arguments ----

TEST(Dgemm, PlainDgemmIsTheRecursiveSumInDouble) {
  const Dataset d = gen("uniform-sym", "5,4,30", 1, {{"alpha", "2"}, {"beta", "-1"}});
  const Result r = run_cpu("dgemm", d, {{"fma", "0"}});
  for (int64_t j = 0; j < d.cols; ++j)
    for (int64_t i = 0; i < d.rows; ++i) {
      double s = 0;
      for (int64_t k = 0; k < d.inner; ++k) {
        const double p = d.a64[static_cast<size_t>(i + k * d.rows)] * d.b64[static_cast<size_t>(k + j * d.inner)];
        s = s + p;
      }
      const double as = 2 * s, bc = -1 * d.c64[static_cast<size_t>(i + j * d.rows)];
      EXPECT_EQ(r.values[static_cast<size_t>(i + j * d.rows)], as + bc);
    }
  // Generated in double: 53-bit significands, not floats.
  bool wider_than_float = false;
  for (double v : d.a64) wider_than_float |= static_cast<double>(static_cast<float>(v)) != v;
  EXPECT_TRUE(wider_than_float);
}

TEST(Dgemm, ReadsFloat64NpyMatrices) {
  using namespace cli_test;
  const std::string dir = fresh_dir("dgemm_npy");
  auto npy = [](const std::string& descr, int rows, int cols, const std::vector<double>& v) {
    std::string data;
    if (descr == "<f8")
      data.append(reinterpret_cast<const char*>(v.data()), v.size() * 8);
    else
      for (double x : v) {
        const float f = static_cast<float>(x);
        data.append(reinterpret_cast<const char*>(&f), 4);
      }
    const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
    return test::npy_file(test::npy_dict(descr, shape), data);
  };
  // A = [[1, 2^-60], [3, 4]] (row-major), B = [[1], [1 + 2^-52]].
  write_file(dir + "/a.npy", npy("<f8", 2, 2, {1.0, 0x1p-60, 3.0, 4.0}));
  write_file(dir + "/b.npy", npy("<f8", 2, 1, {1.0, 1 + 0x1p-52}));
  write_file(dir + "/f.npy", npy("<f4", 2, 1, {1.0, 1.0}));
  const Dataset d = family("dgemm").read(dir + "/a.npy," + dir + "/b.npy");
  ASSERT_EQ(d.rows, 2);
  ASSERT_EQ(d.cols, 1);
  EXPECT_EQ(d.a64[2], 0x1p-60);  // column-major: A[0][1] at 0 + 1*2
  const ExactValue v = family("dgemm").oracle(d);
  const auto ex = std::static_pointer_cast<const GemmExactOf<double>>(v.exact);
  EXPECT_EQ(ex->ref[0], 1.0 + 0x1p-60 * (1 + 0x1p-52));  // 1 + 2^-60 + 2^-112 rounds to 1
  EXPECT_EQ(ex->ref[1], 7.0 + 0x1p-50);                  // 3 + 4 (1 + 2^-52), exact
  expect_cr(d);
  expect_usage_error("bench --algo=dgemm-ozaki --input=" + dir + "/a.npy," + dir + "/f.npy", "is not float64");
}

TEST(Dgemm, BadArgumentsExitTwoWithOneLine) {
  using namespace cli_test;
  expect_usage_error("bench --algo=dgemm-ozaki --shape=4,4,4 --slices=27", "slices");
  expect_usage_error("bench --algo=dgemm-ozaki --shape=4,4,4 --accuracy=sgemm", "accuracy");
  expect_usage_error("bench --algo=dgemm-ozaki --shape=0,4,4", "at least 1");
  expect_usage_error("bench --algo=dgemm-ozaki --shape=4,4", "M,N,K");
  expect_usage_error("bench --algo=dgemm --shape=4,4,4 --alpha=1e400", "alpha");
  expect_usage_error("bench --algo=dgemm-ozaki --shape=2,2,40000 --slices=2", "cannot hold");
  expect_usage_error("bench --algo=dgemm-ozaki --n=100000", "at most");
}

TEST(Dgemm, RegisteredOnTheCpu) {
  for (const char* algo : {"dgemm", "dgemm-ozaki"}) {
    const AlgoEntry* e = registry().find(algo, "cpu");
    ASSERT_NE(e, nullptr) << algo;
    EXPECT_EQ(e->family, "dgemm");
  }
  const AlgoEntry* e = registry().find("dgemm-ozaki", "cpu");
  const Params p = registry().resolve_params(*e, {});
  EXPECT_EQ(p.at("accuracy"), "cr");
  EXPECT_EQ(p.at("slices"), "0");
}
