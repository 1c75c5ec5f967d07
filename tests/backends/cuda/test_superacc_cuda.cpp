// SuperaccCuda: the CUDA correctly rounded sum and dot (backends/cuda/superacc_cuda.cu) against the exact
// MPFR oracle. They need a CUDA device and skip with a notice without one: every distribution and
// expansion size, edge cases, small sizes and tile / grid boundaries, lanes full of pending pieces,
// contention (every lane flushing into the same digits, every product into one block's shared digits),
// launch shapes, the cpu backend, and n > 2^31; and the sum's bounded pass (decides well-conditioned
// sums, leaves the rest to the exact kernel, the same bits either way).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/thread/superacc_lanes.cuh"
#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/superacc_state.hpp"
#include "tests/backend_present.hpp"
#include "datasets/dataset.hpp"
#include "tests/exact_of.hpp"
#include "tests/dataset_util.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using test::exact_of;
using test::hexd;
using test::same_bits;
using namespace accsum::cuda;

const int kFpes[] = {0, 2, 3, 4, 6, 8};

// ---------------------------------------------------------------------------------------------
// On the GPU.

#define REQUIRE_CUDA() REQUIRE_BACKEND("cuda")

// The tests below drive the exact kernel: the bounded pass is off (bounded=0) unless a test
// names it (BoundedPass* tests).
Result run_cuda_result(const std::string& algo, const Problem& p, Params user) {
  const AlgoEntry* e = registry().find(algo, "cuda");
  if (!e) throw std::runtime_error(algo + " is not registered on cuda");
  if (!user.count("bounded")) user["bounded"] = "0";
  auto k = e->make(p, registry().resolve_params(*e, user));
  k->execute();
  return k->result();
}
double run_cuda(const std::string& algo, const std::vector<double>& x, const std::vector<double>& y,
                const Params& user) {
  Problem p =
      Problem::vectors(x.data(), y.empty() ? nullptr : y.data(), static_cast<int64_t>(x.size()), next_dataset_id());
  return run_cuda_result(algo, p, user).scalar();
}
double run_cuda(const std::string& algo, const Dataset& d, const Params& user) {
  return run_cuda_result(algo, d.problem(), user).scalar();
}

std::vector<Params> all_configs() {
  std::vector<Params> v;
  for (int fpe : kFpes)
    for (int ee : {0, 1})
      for (int adaptive : {0, 1}) {
        if (fpe == 0 && (ee || adaptive)) continue;
        v.push_back(Params{
            {"fpe", std::to_string(fpe)}, {"early_exit", std::to_string(ee)}, {"adaptive", std::to_string(adaptive)}});
      }
  // Without private lanes: the expansions' residues straight into the block's shared accumulator.
  for (const char* fpe : {"2", "4", "8"})
    v.push_back(Params{{"fpe", fpe}, {"early_exit", "1"}, {"adaptive", "0"}, {"lanes", "0"}});
  // The lean tail (block merge into 32-bit digit halves, one-pass negation in the rounding).
  v.push_back(Params{{"fpe", "0"}, {"early_exit", "0"}, {"adaptive", "0"}, {"lean_tail", "1"}});
  v.push_back(Params{{"fpe", "4"}, {"early_exit", "1"}, {"adaptive", "1"}, {"lean_tail", "1"}});
  v.push_back(Params{{"fpe", "2"}, {"early_exit", "1"}, {"adaptive", "0"}, {"lanes", "0"}, {"lean_tail", "1"}});
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

// Every distribution at each of `sizes`, ranges and condition numbers varied by seed, every
// configuration against the oracle; returns the cases compared.
int generated_against_oracle(const std::string& family, const std::vector<int64_t>& sizes, uint64_t seed) {
  const double ranges[] = {1, 1e10, 1e50, 1e100, 1e300};
  const double conds[] = {1e3, 1e16, 1e50, 1e300};
  const std::string algo = accsum::family(family).has_y ? "superacc-dot" : "superacc";
  int cases = 0;
  for (const auto& dist : dist_names())
    for (int64_t n : sizes) {
      if (dist == "ties" && n < 2) continue;
      GenSpec s;
      s.dist = dist;
      s.family = family;
      s.with_y = accsum::family(s.family).has_y;
      s.n = n;
      s.seed = ++seed;
      s.range = ranges[seed % 5];
      s.cond = conds[seed % 4];
      Dataset d = generate(s);
      const double want = exact_of(d).rounded;
      for (const Params& p : all_configs()) {
        const double got = run_cuda(algo, d, p);
        EXPECT_TRUE(same_bits(got, want))
            << algo << " " << dist << " n=" << n << " seed=" << s.seed << " fpe=" << p.at("fpe")
            << " ee=" << p.at("early_exit") << ": " << hex_double(got) << " vs " << hex_double(want);
        if (!same_bits(got, want)) return cases;
        ++cases;
      }
    }
  return cases;
}

TEST(SuperaccCuda, GeneratedSumsAllDistributionsAllConfigs) {
  REQUIRE_CUDA();
  EXPECT_GT(generated_against_oracle("sum", {1, 2, 3, 31, 1000, 4097, 65537, (1 << 20) + 5}, 100), 500);
}

TEST(SuperaccCuda, GeneratedDotsAllDistributionsAllConfigs) {
  REQUIRE_CUDA();
  EXPECT_GT(generated_against_oracle("dot", {1, 2, 3, 1000, 65537, (1 << 19) + 3}, 300), 300);
}

TEST(SuperaccCuda, EdgeCases) {
  REQUIRE_CUDA();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> sums = test::edge_sums();
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
      std::vector<double>(n, 0x1p970),                         // all slow path
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
        const Params p{
            {"fpe", std::to_string(fpe)}, {"early_exit", std::to_string(ee)}, {"adaptive", "1"}, {"grid", grid}};
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
    s.with_y = accsum::family(s.family).has_y;
    s.n = (1 << 21) + 3;
    s.range = 1e50;
    s.seed = 11;
    Dataset d = generate(s);
    const std::string algo = accsum::family(family).has_y ? "superacc-dot" : "superacc";
    const double want = exact_of(d.x, d.y).rounded;
    const AlgoEntry* e = registry().find(algo, "cuda");
    ASSERT_NE(e, nullptr);
    std::vector<Params> shapes = e->shape_variants(registry().resolve_params(*e, {}));
    for (const char* b : {"128", "256", "512"})
      for (const char* g : {"0", "1", "5", "1000"})
        for (const char* t : {"0", "1"}) shapes.push_back(Params{{"block", b}, {"grid", g}, {"lean_tail", t}});
    for (const Params& p : shapes) {
      Params user = p;
      const double got = run_cuda(algo, d, user);
      ASSERT_TRUE(same_bits(got, want)) << algo << " block=" << p.at("block") << " grid=" << p.at("grid")
                                        << " lean_tail=" << p.at("lean_tail");
    }
    // Repeated runs of one kernel object (the device totals are reset by each launch's last block).
    for (const char* t : {"0", "1"}) {
      auto k = e->make(d.problem(), registry().resolve_params(*e, {{"lean_tail", t}}));
      for (int r = 0; r < 5; ++r) ASSERT_TRUE(same_bits(k->run_scalar(), want)) << "lean_tail=" << t;
    }
  }
}

// The lean tail at the sizes where the tail weighs most (2^20, 2^22), on ill-conditioned data of both
// signs (a negative total takes the one-pass negation), with and without the bounded pass first:
// the oracle's bits, like the default tail.
TEST(SuperaccCuda, LeanTailOnIllConditionedDataOfBothSigns) {
  REQUIRE_CUDA();
  int cases = 0;
  for (const char* family : {"sum", "dot"})
    for (int64_t n : {int64_t(1) << 20, int64_t(1) << 22})
      for (double cond : {1e12, 1e30}) {
        GenSpec s;
        s.dist = "illcond";
        s.family = family;
        s.with_y = accsum::family(s.family).has_y;
        s.n = n;
        s.cond = cond;
        s.seed = 23 + cases;
        Dataset d = generate(s);
        const std::string algo = s.with_y ? "superacc-dot" : "superacc";
        for (int sign : {1, -1}) {
          if (sign < 0)
            for (double& v : d.x) v = -v;
          const double want = exact_of(d.x, d.y).rounded;
          for (const char* bounded : {"0", "1"})
            for (const char* t : {"0", "1"}) {
              const double got = run_cuda(algo, d.x, d.y, {{"lean_tail", t}, {"bounded", bounded}});
              ASSERT_TRUE(same_bits(got, want))
                  << algo << " n=" << n << " cond=" << cond << " sign=" << sign << " bounded=" << bounded
                  << " lean_tail=" << t << ": " << hex_double(got) << " vs " << hex_double(want);
              ++cases;
            }
        }
      }
  EXPECT_EQ(cases, 64);
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
      s.with_y = accsum::family(s.family).has_y;
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
        s.with_y = accsum::family(s.family).has_y;
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
        const double want =
            d.y.empty() ? exact_sum(d.x.data(), d.n).rounded : exact_dot(d.x.data(), d.y.data(), d.n).rounded;
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
    for (auto& v : y)
      v = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, static_cast<int>(rng() % 40) - 20);
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
    const bool dot = accsum::family(family).has_y;
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

// The bounded pass (BoundedPass) reports whether it decided (-1: no such figure).
int bounded_decided(const Result& r) {
  for (const auto& f : r.figures)
    if (f.first == "bounded_decided") return static_cast<int>(f.second);
  return -1;
}

// The bounded pass on every distribution and size returns the correctly rounded sum, deciding the
// well-conditioned ones itself (bounded_decided = 1) and leaving the others to the exact kernel.
TEST(SuperaccCuda, BoundedPassOnEveryDistribution) {
  REQUIRE_CUDA();
  int decided = 0, open = 0;
  uint64_t seed = 900;
  for (const auto& dist : dist_names())
    for (int64_t n :
         {int64_t(1), int64_t(2), int64_t(3), int64_t(31), int64_t(4097), int64_t(65537), (int64_t(1) << 20) + 5})
      for (double cond : {1e3, 1e40})
        for (bool dot : {false, true}) {
          if (dist == "ties" && n < 2) continue;
          Dataset d = test::make(dist, dot, n, cond, ++seed, 1e50);
          const Result r = run_cuda_result(dot ? "superacc-dot" : "superacc", d.problem(), {{"bounded", "1"}});
          const int dec = bounded_decided(r);
          ASSERT_TRUE(dec == 0 || dec == 1) << "no bounded_decided figure";
          EXPECT_TRUE(same_bits(r.scalar(), exact_of(d).rounded))
              << dist << " n=" << n << " cond=" << cond << " dot " << dot;
          (dec ? decided : open) += 1;
        }
  EXPECT_GT(decided, 40);
  EXPECT_GT(open, 40);
}

// Decided where the data leaves no doubt; left open on a rounding boundary, zeros, a condition
// the bound cannot resolve, special values and no terms.
TEST(SuperaccCuda, BoundedPassHandCases) {
  REQUIRE_CUDA();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> must_decide = {{1.0, 2.0, 3.0}, {1.0, 0x1p-60}, {-4.0, 0x1p-60, 1e-300}};
  const std::vector<std::vector<double>> must_leave = {
      {1.0, 0x1p-53}, {1.5, -1.5}, {-0.0, -0.0}, {1.0, inf}, {1.0, std::nan("")}, {1e300, 1.0, -1e300}, {}};
  for (bool dot : {false, true})
    for (bool decide : {true, false})
      for (const auto& x : decide ? must_decide : must_leave) {
        const std::vector<double> y(dot ? x.size() : 0, 1.0);
        Problem p =
            Problem::vectors(x.data(), dot ? y.data() : nullptr, static_cast<int64_t>(x.size()), next_dataset_id());
        const Result r = run_cuda_result(dot ? "superacc-dot" : "superacc", p, {{"bounded", "1"}});
        EXPECT_EQ(bounded_decided(r), decide ? 1 : 0) << test::dump(x) << " dot " << dot;
        EXPECT_TRUE(same_bits(r.scalar(), exact_of(x, y).rounded)) << test::dump(x) << " dot " << dot;
      }
  // Products whose TwoProductFMA terms miss them (underflow): decided only where the slack allows.
  const std::vector<double> x = {0x1p-540, 0x1.8p-540, 1.0}, y = {0x1.3p-540, 0x1p-541, 1.0};
  Problem p = Problem::vectors(x.data(), y.data(), 3, next_dataset_id());
  const Result r = run_cuda_result("superacc-dot", p, {{"bounded", "1"}});
  EXPECT_EQ(bounded_decided(r), 1);
  EXPECT_TRUE(same_bits(r.scalar(), exact_of(x, y).rounded));
}

double figure(const Result& r, const std::string& name) {
  for (const auto& f : r.figures)
    if (f.first == name) return f.second;
  return -1;
}

// bounded=auto at the size where it stops running the bounded pass first (the input filling
// L2 / kBoundedL2Divisor of the L2 the device reports) and one element past it: the pass runs
// below, not above, and the bits are the exact ones on both sides, for ties +- 2^-1074 and sums just
// off a tie buried in terms that cancel exactly (the bound cannot decide), and a well-conditioned
// sum (it decides where it runs).
TEST(SuperaccCuda, AutoBoundedPassBoundary) {
  REQUIRE_CUDA();
  const std::vector<double> probe = {1.0};
  const Result r0 =
      run_cuda_result("superacc", Problem::vectors(probe.data(), nullptr, 1, next_dataset_id()), {{"bounded", "auto"}});
  const auto l2 = static_cast<int64_t>(figure(r0, "l2_bytes"));
  ASSERT_GT(l2, 0);
  const double tiny = 0x1p-1074;
  const std::vector<std::vector<double>> edges = {
      {1.0, 0x1p-53}, {1.0, 0x1p-53, tiny}, {1.0, 0x1p-53, -tiny}, {1.0, 0x1.8p-53}, {3.0, 0x1.fffffffffffffp-53}};
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (bool dot : {false, true}) {
    const int64_t limit = l2 / kBoundedL2Divisor / static_cast<int64_t>(sizeof(double) * (dot ? 2 : 1));
    for (int64_t n : {limit, limit + 1}) {
      const bool first = n == limit;
      std::vector<double> x(n), y(dot ? n : 0, 1.0);
      for (size_t e = 0; e <= edges.size(); ++e) {
        const bool well = e == edges.size();  // positive terms only
        const int64_t body = n - (well ? 0 : static_cast<int64_t>(edges[e].size()));
        for (int64_t i = 0; i < body; ++i)  // cancelling pairs (v, -v), a lone last term 0
          x[i] = well ? u(rng) * 0x1p40 : (i & 1) ? -x[i - 1] : i + 1 < body ? u(rng) * 0x1p40 : 0.0;
        for (int64_t i = body; i < n; ++i) x[i] = edges[e][i - body];
        Problem p = Problem::vectors(x.data(), dot ? y.data() : nullptr, n, next_dataset_id());
        const Result r = run_cuda_result(dot ? "superacc-dot" : "superacc", p, {{"bounded", "auto"}});
        EXPECT_EQ(figure(r, "bounded_pass"), first ? 1.0 : 0.0) << "n=" << n << " dot " << dot;
        if (first) EXPECT_EQ(figure(r, "bounded_decided"), well ? 1.0 : 0.0) << "n=" << n << " dot " << dot;
        EXPECT_TRUE(same_bits(r.scalar(), exact_of(x, y).rounded)) << "n=" << n << " dot " << dot << " case " << e;
      }
    }
  }
}

}  // namespace
}  // namespace accsum
