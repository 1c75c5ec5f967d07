// The cpu superaccumulator kernels (families/sum_dot/superacc_host.cpp) against the exact MPFR oracle: every
// configuration on generated data, the narrow blocks at their limits, hand-made edge cases through the
// fast paths, permutations. The registered entries and any thread count: tests/backends/cpu_mt/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "families/sum_dot/superacc_host.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "core/numerics/superacc.hpp"
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"
#include "tests/exact_of.hpp"
#include "tests/superacc_test_util.hpp"
#include "tests/special_values.hpp"

namespace accsum {
namespace {

using test::same_bits;

using accsum::test::kInf;
using accsum::test::kMinSub;
using accsum::test::kNaN;

// ---- the cpu kernels (families/sum_dot/superacc_host.cpp) on generated data ----
using test::GenCase;

// Every (fpe, early_exit) configuration the parameters allow, each with the fast paths forced
// even for tiny inputs (small_n = 0) and with the backend's own threshold.
std::vector<cpu::SuperaccConfig> all_configs() {
  std::vector<cpu::SuperaccConfig> out;
  for (int fpe : {0, 2, 3, 4, 6, 8})
    for (int ee : {0, 1}) {
      if (fpe == 0 && ee) continue;
      out.push_back(cpu::SuperaccConfig{fpe, ee != 0, 0});
    }
  out.push_back(cpu::SuperaccConfig{});  // defaults: tiny inputs take the direct path
  return out;
}

// The bounded accumulation of the same data (what the registered kernels try first), checked against the exact one:
// the bound holds (the bounded value minus the exact terms, formed exactly, rounds to at most the bound) and, when
// cpu::round_within decides, it gives the exact path's bits. add(acc, bound) accumulates; sub(acc) subtracts the
// terms exactly.
template <class SA, class Add, class Sub>
void check_bounded(const Add& add, const Sub& sub, double exact, const std::string& what) {
  SA acc;
  acc.clear();
  double bound = 0, out = 0;
  add(acc, &bound);
  EXPECT_GE(bound, 0.0) << what;
  const bool decided = cpu::round_within(acc, bound, out);
  if (decided) {
    EXPECT_PRED2(same_bits, out, exact) << what << " bound=" << bound;
  }
  if (!acc.nan_count && !acc.pos_inf_count && !acc.neg_inf_count) {
    sub(acc);
    EXPECT_LE(std::fabs(acc.round()), bound) << what;
  }
}

double cpu_sum(const std::vector<double>& x, const cpu::SuperaccConfig& c) {
  const int64_t n = static_cast<int64_t>(x.size());
  Superacc acc;
  acc.clear();
  cpu::superacc_sum_accumulate(x.data(), n, c, acc);
  const double exact = acc.round();
  check_bounded<Superacc>([&](Superacc& a, double* b) { cpu::superacc_sum_accumulate(x.data(), n, c, a, b); },
                          [&](Superacc& a) {
                            for (double v : x) a.add(-v);
                          },
                          exact, "sum n=" + std::to_string(n) + " fpe=" + std::to_string(c.fpe));
  return exact;
}
double cpu_dot(const std::vector<double>& x, const std::vector<double>& y, const cpu::SuperaccConfig& c) {
  const int64_t n = static_cast<int64_t>(x.size());
  SuperaccDot acc;
  acc.clear();
  cpu::superacc_dot_accumulate(x.data(), y.data(), n, c, acc);
  const double exact = acc.round();
  check_bounded<SuperaccDot>(
      [&](SuperaccDot& a, double* b) { cpu::superacc_dot_accumulate(x.data(), y.data(), n, c, a, b); },
      [&](SuperaccDot& a) {
        for (int64_t i = 0; i < n; ++i) a.add_product(-x[i], y[i]);
      },
      exact, "dot n=" + std::to_string(n) + " fpe=" + std::to_string(c.fpe));
  return exact;
}

// Compares every configuration with the oracle on one case; returns the comparisons made.
int64_t check_case(const GenCase& g, const std::vector<cpu::SuperaccConfig>& configs) {
  const bool dot = !g.y.empty();
  double want = dot ? exact_dot(g.x.data(), g.y.data(), static_cast<int64_t>(g.x.size())).rounded
                    : exact_sum(g.x.data(), static_cast<int64_t>(g.x.size())).rounded;
  int64_t compared = 0;
  for (const auto& c : configs) {
    double got = dot ? cpu_dot(g.x, g.y, c) : cpu_sum(g.x, c);
    EXPECT_PRED2(same_bits, got, want) << g.describe() << " fpe=" << c.fpe << " early_exit=" << c.early_exit
                                       << " small_n=" << c.small_n;
    if (!same_bits(got, want)) return compared;  // one report per case is enough
    ++compared;
  }
  return compared;
}

// `count` generated cases of `family` (every distribution), every configuration against MPFR.
void generated_against_oracle(const std::string& family, int count, uint64_t seed) {
  auto configs = all_configs();
  int64_t compared = 0;
  for (const auto& g : test::generated_cases(family, count, seed)) compared += check_case(g, configs);
  EXPECT_GE(compared, int64_t{count} * 11);
  std::printf("[ cases    ] %lld %ss compared with MPFR\n", static_cast<long long>(compared), family.c_str());
}

TEST(SuperaccCpu, GeneratedSumsAllDistributionsAllConfigs) { generated_against_oracle("sum", 60000, 1); }
TEST(SuperaccCpu, GeneratedDotsAllDistributionsAllConfigs) { generated_against_oracle("dot", 30000, 2); }

// Blocks, slot flushes (a slot passes 2^63 after ~2^10 terms of one exponent), periodic
// prefetch and the tail: a few larger inputs per distribution.
TEST(SuperaccCpu, LargerInputsAllConfigs) {
  auto configs = all_configs();
  int64_t compared = 0;
  for (const std::string family : {"sum", "dot"})
    for (const auto& g : test::generated_cases(family, 48, 3, 3000, 70000)) compared += check_case(g, configs);
  EXPECT_GE(compared, 96 * 11);
}

TEST(SuperaccCpu, SameExponentFloodFlushesSlots) {
  // 300000 copies of one value: every slot flush and the 11-bit high part are exercised.
  for (double v : {1.5, -0x1.fffffffffffffp+1000, 0x1p-1022, 0x1.0000000000001p-900}) {
    std::vector<double> x(300000, v);
    x.push_back(-v * 7);
    double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
    for (const auto& c : all_configs()) EXPECT_PRED2(same_bits, cpu_sum(x, c), want) << v << " fpe=" << c.fpe;
  }
}

// Blocks summed by exact extraction (narrow exponent span) and their limits: spans of 30-32 binades
// (31 is the last narrow one), the largest exponent the extraction takes and its neighbours, the
// normal range's bottom, full significands, blocks of one repeated maximum (the headroom), cancellation, tails.
TEST(SuperaccCpu, NarrowBlocksAtTheirLimits) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<uint64_t> mant(0, (uint64_t(1) << 52) - 1);
  int64_t compared = 0;
  for (int top : {-991, -990, 0, 1010, 1011, 1012})
    for (int span : {0, 30, 31, 32})
      for (int64_t n : {int64_t(1024), int64_t(3 * 1024 + 17), int64_t(20000)}) {
        std::vector<double> x(n);
        for (int64_t i = 0; i < n; ++i) {
          int e = top - static_cast<int>(rng() % (span + 1));
          if (i % 97 == 0) e = top - span;  // the span is reached in every block
          if (i % 89 == 0) e = top;
          double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant(rng)), -52), e);
          x[i] = (rng() & 1) ? v : -v;
        }
        if (span == 0) std::fill(x.begin(), x.begin() + 1024, std::ldexp(0x1.fffffffffffffp0, top));
        if (n == 20000)  // the second half cancels the first but for its last bits
          for (int64_t i = n / 2; i < n; ++i) x[i] = -x[i - n / 2] * (i % 3 == 0 ? 1 + 0x1p-52 : 1.0);
        double want = exact_sum(x.data(), n).rounded;
        for (const auto& c : all_configs()) {
          EXPECT_PRED2(same_bits, cpu_sum(x, c), want)
              << "top=" << top << " span=" << span << " n=" << n << " fpe=" << c.fpe;
          ++compared;
        }
      }
  EXPECT_EQ(compared, 6 * 4 * 3 * static_cast<int64_t>(all_configs().size()));
}

// Narrow blocks scan the next block in the same loop: runs of narrow, wide and special blocks in
// every order (narrow before wide, before a block with a zero or an infinity, a short last block
// after a narrow one), so a span carried to the next block is always that block's own.
TEST(SuperaccCpu, NarrowScanCarriesToEveryKindOfNextBlock) {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<double> x;
    const int blocks = 1 + static_cast<int>(rng() % 24);
    for (int b = 0; b < blocks; ++b) {
      const int kind = static_cast<int>(rng() % 4);  // narrow, wide, narrow with a zero, narrow with inf
      const int64_t len = (b == blocks - 1) ? 1 + static_cast<int64_t>(rng() % 1024) : 1024;
      const int top = static_cast<int>(rng() % 200) - 100;
      for (int64_t i = 0; i < len; ++i) {
        int e = kind == 1 ? top - static_cast<int>(rng() % 300) : top - static_cast<int>(rng() % 20);
        double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), e);
        x.push_back((rng() & 1) ? v : -v);
      }
      if (kind >= 2) x[x.size() - 1 - rng() % len] = kind == 2 ? 0.0 : kInf;
    }
    double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
    for (const auto& c : all_configs())
      EXPECT_PRED2(same_bits, cpu_sum(x, c), want) << "trial " << trial << " n=" << x.size() << " fpe=" << c.fpe;
  }
}

// The worst case of the extraction's remainders: 1023 terms x = 2^E + 2^(E-41) - 2^(E-52) (each
// leaves nearly half a unit of the cut, all of one sign) and one 2^(E-span)(1 + 2^-52) whose last
// bit the remainders' sum must keep; the next block (not narrow: it holds a zero) takes -x 1023
// times, so that last bit decides the result.
TEST(SuperaccCpu, NarrowBlockWorstCaseRemainders) {
  for (int E : {-900, 0, 900})
    for (int span : {30, 31, 33, 35}) {
      const double big = std::ldexp(1.0, E) + std::ldexp(1.0, E - 41) - std::ldexp(1.0, E - 52);
      std::vector<double> x(1023, big);
      x.push_back(std::ldexp(1.0 + 0x1p-52, E - span));
      for (int i = 0; i < 1023; ++i) x.push_back(-big);
      x.push_back(0.0);
      double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
      EXPECT_EQ(want, std::ldexp(1.0 + 0x1p-52, E - span));
      for (const auto& c : all_configs())
        EXPECT_PRED2(same_bits, cpu_sum(x, c), want) << "E=" << E << " span=" << span << " fpe=" << c.fpe;
    }
}

// Dot blocks summed by exact extraction of the products and of their errors (narrow product
// span): spans of 30-32 binades, products at the bottom of the fast range (2^-968) and just
// below it, subnormal factors with normal products, exact products (zero errors), errors at
// their smallest (full 53-bit factors), cancellation of the products against the next blocks,
// zeros, infinities and overflowing products in blocks of their own; tails of every length.
TEST(SuperaccCpu, NarrowDotBlocksAtTheirLimits) {
  std::mt19937_64 rng(8);
  auto factor = [&](int e) {
    double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), e);
    return (rng() & 1) ? v : -v;
  };
  int64_t compared = 0;
  for (int top : {-969, -968, -967, 0, 1000})
    for (int span : {0, 30, 31, 32})
      for (int64_t n : {int64_t(1024), int64_t(2 * 1024 + 5), int64_t(4 * 1024 + 1023)}) {
        std::vector<double> x(n), y(n);
        for (int64_t i = 0; i < n; ++i) {
          int e = top - static_cast<int>(rng() % (span + 1));
          if (i % 97 == 0) e = top - span;
          if (i % 89 == 0) e = top;
          const int ey = static_cast<int>(rng() % 40) - 20;  // x y has exponent about e
          x[i] = factor(e - ey);
          y[i] = i % 5 == 0 ? std::ldexp(1.0, ey) : factor(ey);  // powers of two: exact products
        }
        if (top == 0 && span == 30) {  // subnormal factors, normal products
          x[3] = std::ldexp(1.5, -1030);
          y[3] = std::ldexp(1.25, 1030 - 5);
        }
        if (n > 2048)  // the rest cancels the first block but for the errors
          for (int64_t i = 1024; i < 2048; ++i) {
            x[i] = -x[i - 1024];
            y[i] = y[i - 1024] * (i % 3 == 0 ? 1 + 0x1p-52 : 1.0);
          }
        const double want = exact_dot(x.data(), y.data(), n).rounded;
        for (const auto& c : all_configs()) {
          EXPECT_PRED2(same_bits, cpu_dot(x, y, c), want)
              << "top=" << top << " span=" << span << " n=" << n << " fpe=" << c.fpe;
          ++compared;
        }
      }
  EXPECT_EQ(compared, 5 * 4 * 3 * static_cast<int64_t>(all_configs().size()));
  // Blocks of every kind in a row: narrow, wide, with a zero product, an infinity, an overflowing
  // product pair that cancels (1e200 * 1e200 twice, opposite signs), signed zeros only.
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<double> x, y;
    const int blocks = 1 + static_cast<int>(rng() % 12);
    for (int b = 0; b < blocks; ++b) {
      const int kind = static_cast<int>(rng() % 6);
      const int64_t len = (b == blocks - 1) ? 1 + static_cast<int64_t>(rng() % 1024) : 1024;
      const int top = static_cast<int>(rng() % 200) - 100;
      for (int64_t i = 0; i < len; ++i) {
        const int e = kind == 1 ? top - static_cast<int>(rng() % 300) : top - static_cast<int>(rng() % 20);
        x.push_back(kind == 5 ? -0.0 : factor(e));
        y.push_back(kind == 5 ? 1.0 : factor(0));
      }
      const size_t at = x.size() - 1 - rng() % len;
      if (kind == 2) x[at] = 0.0;
      if (kind == 3) x[at] = kInf;
      if (kind == 4) {  // cancels exactly, each product beyond the range
        x[at] = y[at] = 1e200;
        const size_t other = x.size() - 1 - (x.size() - at) % len;  // another of the block (len > 1)
        x[other] = -1e200;
        y[other] = 1e200;
      }
    }
    const double want = exact_dot(x.data(), y.data(), static_cast<int64_t>(x.size())).rounded;
    for (const auto& c : all_configs())
      EXPECT_PRED2(same_bits, cpu_dot(x, y, c), want) << "trial " << trial << " n=" << x.size() << " fpe=" << c.fpe;
  }
}

// Log-uniform data at every dynamic range from 1 to 1e300 (1 and 1e5 make narrow blocks, the others wide ones: the
// chunk table, and for a dot its products and their errors), lengths around the block (1024 terms) and the dot's
// buffer of 256 pairs, factors y = +-(1 + w) and powers of two (exact products: zero errors).
TEST(SuperaccCpu, EveryRangeAroundBlockAndChunkEdges) {
  std::mt19937_64 rng(9);
  int64_t compared = 0;
  for (double range : {1.0, 1e5, 1e20, 1e50, 1e100, 1e300}) {
    const int span = std::max(0, static_cast<int>(std::lround(std::log2(range))) - 1);
    auto term = [&](int lo, int width) {
      const int e = lo + static_cast<int>(rng() % static_cast<uint64_t>(width + 1));
      const double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), e);
      return (rng() & 1) ? -v : v;
    };
    for (int64_t n :
         std::vector<int64_t>{1023, 1024, 1025, 1024 + 255, 1024 + 256, 1024 + 257, 2048 + 7, 3 * 1024 + 8, 5000}) {
      std::vector<double> x(n), y(n);
      for (int64_t i = 0; i < n; ++i) {
        x[i] = term(-(span + 1) / 2, span);
        y[i] = i % 7 == 3 ? std::ldexp(1.0, static_cast<int>(rng() % 9) - 4) : term(0, 0);
      }
      const double want_sum = exact_sum(x.data(), n).rounded;
      const double want_dot = exact_dot(x.data(), y.data(), n).rounded;
      for (const auto& c : all_configs()) {
        EXPECT_PRED2(same_bits, cpu_sum(x, c), want_sum) << "range=" << range << " n=" << n << " fpe=" << c.fpe;
        EXPECT_PRED2(same_bits, cpu_dot(x, y, c), want_dot) << "range=" << range << " n=" << n << " fpe=" << c.fpe;
        compared += 2;
      }
    }
  }
  EXPECT_EQ(compared, 6 * 9 * 2 * static_cast<int64_t>(all_configs().size()));
}

// One special pair inside wide blocks (range 1e100, the rest cancelling), at the block's and the dot buffer's edges:
// signed zeros (zero products of either sign), subnormals, infinities, NaN, overflowing products, and the products at
// the bottom of the dot's table path (2^-916, below which an error could be subnormal) and at its top (2^970), just
// inside and just outside; then both infinities in one block.
TEST(SuperaccCpu, SpecialValuesInsideWideBlocks) {
  std::mt19937_64 rng(10);
  // n - 1 wide pairs whose products cancel (the second half negates the first), and the special pair inserted at
  // `at`.
  auto wide = [&](int64_t n, int64_t at, double a, double b, std::vector<double>& x, std::vector<double>& y) {
    const int64_t half = (n - 1) / 2;
    x.assign(n - 1, 0.0);
    y.assign(n - 1, 0.0);
    for (int64_t i = 0; i < half; ++i) {
      const double v =
          std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), static_cast<int>(rng() % 333) - 166);
      const double w = 1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52);
      x[i] = (rng() & 1) ? -v : v;
      y[i] = (rng() & 1) ? -w : w;
      x[half + i] = -x[i];
      y[half + i] = y[i];
    }
    x.insert(x.begin() + at, a);
    y.insert(y.begin() + at, b);
    const double p = a * b;  // and -RN(a b) at the end: the dot is then a b's rounding error, exactly
    if (std::isfinite(p) && p != 0) {
      x.push_back(-p);
      y.push_back(1.0);
    }
  };
  const double above = 1 + 0x1p-52;
  const std::vector<std::pair<double, double>> pairs = {
      {0.0, 1.0},
      {-0.0, 1.0},
      {0.0, -3.0},
      {kMinSub, 0.75},
      {-3 * kMinSub, 1e300},
      {0x1p-1022, above},
      {kInf, 2.0},
      {-kInf, 0.5},
      {kInf, 0.0},
      {kNaN, 1.0},
      {1e200, -1e200},
      {DBL_MAX, 1.0},
      {0x1p-916, above},
      {0x1p-917 * above, above},
      {-0x1p-916, 1.0},
      {0x1p-950 * above, -above},
      {0x1p969 * above, above},
      {0x1p970, -1.0},
      {0x1p969, 1.5},
  };
  int64_t compared = 0;
  const int64_t n = 3 * 1024 + 100;
  for (int64_t at : {int64_t(0), int64_t(255), int64_t(256), int64_t(257), int64_t(1023), int64_t(1024), int64_t(1025),
                     int64_t(2047), int64_t(2048 + 127), n - 1})
    for (const auto& [a, b] : pairs) {
      std::vector<double> x, y;
      wide(n, at, a, b, x, y);
      const int64_t len = static_cast<int64_t>(x.size());
      const double want_dot = exact_dot(x.data(), y.data(), len).rounded;
      const double want_sum = exact_sum(x.data(), len).rounded;
      for (const auto& c : all_configs()) {
        EXPECT_PRED2(same_bits, cpu_dot(x, y, c), want_dot) << a << " * " << b << " at " << at << " fpe=" << c.fpe;
        EXPECT_PRED2(same_bits, cpu_sum(x, c), want_sum) << a << " at " << at << " fpe=" << c.fpe;
        compared += 2;
      }
    }
  EXPECT_EQ(compared, 10 * static_cast<int64_t>(pairs.size()) * 2 * static_cast<int64_t>(all_configs().size()));
  std::vector<double> x, y;
  wide(n, 70, kInf, 1.0, x, y);
  x[1030] = -kInf;
  y[1030] = 1.0;
  for (const auto& c : all_configs()) {
    EXPECT_TRUE(std::isnan(cpu_dot(x, y, c))) << "fpe=" << c.fpe;
    EXPECT_TRUE(std::isnan(cpu_sum(x, c))) << "fpe=" << c.fpe;
  }
}

TEST(SuperaccCpu, HandMadeEdgeCasesThroughTheFastPaths) {
  const double ulp_max = 0x1p971;
  std::vector<std::vector<double>> cases = {
      {},
      {-0.0},
      {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0},
      {-0.0, 1.0, -1.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0},
      {DBL_MAX, DBL_MAX, -DBL_MAX},
      {DBL_MAX, ulp_max / 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {DBL_MAX, ulp_max / 2, -kMinSub, 1, -1, 2, -2, 3, -3, 4, -4},
      {kInf, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
      {kInf, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -kInf},
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, kNaN},
      {1.0, 0x1p-53, 0, 0, 0, 0, 0, 0, 0, kMinSub},
      {1.0, 0x1p-53, 0, 0, 0, 0, 0, 0, 0, 0},
      {0x1p969, 0x1p969, 0x1p969, 0x1p969, 0x1p969, 0x1p969, 0x1p969, 0x1p969, 0x1p969, -0x1p969},
      {0x1.fffffffffffffp969, 0x1.fffffffffffffp969, 0x1.fffffffffffffp969, 0x1.fffffffffffffp969, 0x1p970, 0x1p970,
       0x1p970, 0x1p970, 0x1p-1074, 0x1p-1074},
  };
  // Lane j of the 8 interleaved expansions takes terms j, j+8, ...: cancel inside one lane,
  // and make same-sign terms near 2^1022 meet in one lane (an expansion would overflow).
  std::vector<double> lane_cancel(16, -0.0);
  lane_cancel[1] = 1.0;
  lane_cancel[9] = -1.0;
  cases.push_back(lane_cancel);
  std::vector<double> lane_big(64, 0x1.8p1022);
  for (int i = 32; i < 64; ++i) lane_big[i] = -0x1.8p1022;
  lane_big[63] = 0x1p-1074;
  cases.push_back(lane_big);
  std::vector<double> tiny(5000, kMinSub);  // the smallest subnormal, many times
  cases.push_back(tiny);
  tiny.push_back(-0.0);
  cases.push_back(tiny);
  for (const auto& x : cases) {
    double want = exact_sum(x.data(), static_cast<int64_t>(x.size())).rounded;
    for (const auto& c : all_configs())
      EXPECT_PRED2(same_bits, cpu_sum(x, c), want) << test::dump(x) << " fpe=" << c.fpe << " ee=" << c.early_exit;
  }
  // Dot: products at the ends of the range, zero products of every sign, specials.
  std::vector<std::pair<std::vector<double>, std::vector<double>>> dots = {
      {{DBL_MAX, -DBL_MAX, 1, 1, 1, 1, 1, 1, 1}, {DBL_MAX, DBL_MAX, 1, 1, 1, 1, 1, 1, 1}},
      {{kMinSub, kMinSub, kMinSub, 1, 1, 1, 1, 1, 1}, {0.5, 0.5, 3, 0, 0, 0, 0, 0, 0}},
      {{-0.0, 0, 0, 0, 0, 0, 0, 0, 0}, {1, -1, -1, -1, -1, -1, -1, -1, -1}},
      {{0x1p-968, 0x1p-969, 0x1p-500, 0x1p-600, 1, 1, 1, 1},
       {1 + 0x1p-52, 1 + 0x1p-52, 0x1p-470, 0x1p-474, 0, 0, 0, 0}},
      {{0x1p969, 0x1p970, 0x1p969, 1, 1, 1, 1, 1}, {1.5, 1, 1.5, 0, 0, 0, 0, 0}},
      {{kInf, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 1, 1, 1}},
      {{kInf, 1, 1, 1, 1, 1, 1, 1, 1}, {-2, 1, 1, 1, 1, 1, 1, 1, 1}},
      // a*a = (1 + 2^-51 + 2^-104) 2^-1000: its error 2^-1104 underflows in an FMA and is the
      // sticky bit that breaks the tie 2^-1075 (half the smallest subnormal) upwards.
      {{0x1.0000000000001p-500, -0x1.0000000000002p-1000, kMinSub, 0, 0, 0, 0, 0, 0},
       {0x1.0000000000001p-500, 1.0, 0.5, 0, 0, 0, 0, 0, 0}},
  };
  for (const auto& [x, y] : dots) {
    double want = exact_dot(x.data(), y.data(), static_cast<int64_t>(x.size())).rounded;
    for (const auto& c : all_configs())
      EXPECT_PRED2(same_bits, cpu_dot(x, y, c), want) << test::dump(x) << " . " << test::dump(y) << " fpe=" << c.fpe;
  }
}

// The bounded accumulation (cpu::superacc_sum_accumulate with a bound, then cpu::round_within): it decides
// well-conditioned wide data, the case it exists for, correctly; it leaves open a sum exactly halfway between two
// doubles, a zero sum (the sign of a zero is not tracked) and gives NaN and infinities by their counts. cpu_sum and
// cpu_dot check the bound itself on every test's data.
TEST(SuperaccCpu, BoundedPathDecidesWideDataAndDefersTheRest) {
  const cpu::SuperaccConfig fast{0, false, 0};
  int64_t decided = 0;
  for (double range : {1e20, 1e50, 1e300})
    for (const std::string family : {"sum", "dot"}) {
      GenSpec spec;
      spec.family = family;
      spec.with_y = family == "dot";
      spec.dist = "loguniform";
      spec.n = 50000;
      spec.range = range;
      spec.seed = 21;
      Dataset d = generate(spec);
      const double want = test::exact_of(d).rounded;
      double bound = 0, out = 0;
      bool ok;
      if (family == "dot") {
        SuperaccDot acc;
        acc.clear();
        cpu::superacc_dot_accumulate(d.x.data(), d.y.data(), d.n, fast, acc, &bound);
        ok = cpu::round_within(acc, bound, out);
      } else {
        Superacc acc;
        acc.clear();
        cpu::superacc_sum_accumulate(d.x.data(), d.n, fast, acc, &bound);
        ok = cpu::round_within(acc, bound, out);
      }
      EXPECT_GT(bound, 0.0) << family << " range=" << range;  // the lanes took the wide blocks
      EXPECT_TRUE(ok) << family << " range=" << range;
      EXPECT_PRED2(same_bits, out, want) << family << " range=" << range;
      decided += ok;
    }
  EXPECT_EQ(decided, 6);

  auto bounded_sum = [&](const std::vector<double>& x, double& out) {
    Superacc acc;
    acc.clear();
    double bound = 0;
    cpu::superacc_sum_accumulate(x.data(), static_cast<int64_t>(x.size()), fast, acc, &bound);
    return cpu::round_within(acc, bound, out);
  };
  // Wide blocks of cancelling pairs (2^-100 to 2^-40: a bound far below 2^-54) around 1 + 2^-53, exactly halfway
  // between 1 and its successor.
  std::mt19937_64 rng(22);
  std::vector<double> tie = {1.0, 0x1p-53};
  for (int i = 0; i < 2000; ++i) {
    const double v =
        std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), static_cast<int>(rng() % 60) - 100);
    tie.push_back(v);
    tie.push_back(-v);
  }
  std::shuffle(tie.begin() + 2, tie.end(), rng);
  double out = 0;
  EXPECT_FALSE(bounded_sum(tie, out));
  EXPECT_PRED2(same_bits, cpu_sum(tie, fast), 1.0);
  // Without the 2^-53 the sum is 1 exactly, far from a rounding boundary: decided.
  std::vector<double> one = tie;
  one[1] = 0.0;
  EXPECT_TRUE(bounded_sum(one, out));
  EXPECT_PRED2(same_bits, out, 1.0);
  // Zeros in a wide block: a zero sum (-0 when every term is -0) is left to the exact path.
  std::vector<double> zeros(3000, -0.0);
  EXPECT_FALSE(bounded_sum(zeros, out));
  EXPECT_PRED2(same_bits, cpu_sum(zeros, fast), -0.0);
  zeros[1500] = 0x1p-1074;
  zeros[1501] = -0x1p-1074;
  EXPECT_FALSE(bounded_sum(zeros, out));
  EXPECT_PRED2(same_bits, cpu_sum(zeros, fast), 0.0);
  // NaN and an infinity inside wide blocks: decided by their counts.
  std::vector<double> specials = tie;
  specials[2500] = kInf;
  EXPECT_TRUE(bounded_sum(specials, out));
  EXPECT_PRED2(same_bits, out, kInf);
  specials[2600] = kNaN;
  EXPECT_TRUE(bounded_sum(specials, out));
  EXPECT_TRUE(std::isnan(out));
}

TEST(SuperaccCpu, PermutationGivesIdenticalBits) {
  std::mt19937_64 rng(5);
  for (const std::string dist : {"loguniform", "illcond", "ties", "overflow-cancel", "subnormal"}) {
    GenSpec spec;
    spec.dist = dist;
    spec.n = 20000;
    spec.range = 1e100;
    spec.cond = 1e40;
    spec.seed = 11;
    Dataset d = generate(spec);
    std::vector<double> x = d.x;
    double first = cpu_sum(x, cpu::SuperaccConfig{});
    for (int r = 0; r < 3; ++r) {
      std::shuffle(x.begin(), x.end(), rng);
      EXPECT_PRED2(same_bits, cpu_sum(x, cpu::SuperaccConfig{4, true}), first) << dist;
      EXPECT_PRED2(same_bits, cpu_sum(x, cpu::SuperaccConfig{0, false}), first) << dist;
    }
    EXPECT_PRED2(same_bits, first, exact_sum(d.x.data(), d.n).rounded) << dist;
  }
}

}  // namespace
}  // namespace accsum
