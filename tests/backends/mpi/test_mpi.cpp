// The mpi backend. CTest runs these with 1 rank (plain accsum_tests: MPI starts as a singleton)
// and under `mpirun -np 2` and `-np 4`. Every rank runs the same tests in the same order and
// calls the same collectives, so only non-fatal EXPECTs are used: a failing check must not
// skip a collective on one rank.
#include <gtest/gtest.h>

#include <cfloat>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"
#include "tests/dataset_util.hpp"
#include "tests/exact_of.hpp"
#include "tests/superacc_test_util.hpp"

#if ACCSUM_HAVE_MPI
#include <mpi.h>

#include "backends/mpi/mpi_env.hpp"
#endif

namespace accsum {
namespace {

using test::same_bits;

#define REQUIRE_MPI() \
  if (!registry().backend("mpi")) GTEST_SKIP() << "built without MPI: mpi backend tests not run"

double run_on(const std::string& backend, const Dataset& d, const Params& user) {
  const AlgoEntry* e = registry().find(test::superacc_algo(d.family), backend);
  return e->make(d.problem(), registry().resolve_params(*e, user))->run_scalar();
}

double oracle(const Dataset& d) { return test::exact_of(d).rounded; }

using test::as_dataset;

// True when every rank holds the same bits of v (always true on one rank).
bool all_ranks_agree(double v) {
#if ACCSUM_HAVE_MPI
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&bits, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&bits, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
#else
  (void)v;
  return true;
#endif
}

TEST(MpiSuperacc, BackendRegisteredAndStartsLazily) {
  REQUIRE_MPI();
  const BackendInfo* b = registry().backend("mpi");
  EXPECT_TRUE(b->available());
  EXPECT_TRUE(b->self_test());
  for (const char* algo : {"superacc", "superacc-dot"}) {
    const AlgoEntry* e = registry().find(algo, "mpi");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->guarantee, Guarantee::correctly_rounded);
    EXPECT_TRUE(e->reproducible);
    EXPECT_THROW(registry().resolve_params(*e, {{"inner", "opencl-nope"}}), UsageError);
    EXPECT_THROW(registry().resolve_params(*e, {{"fpe", "7"}}), UsageError);
  }
  Dataset d = as_dataset("sum", {1.0, 2.0});
  EXPECT_PRED2(same_bits, run_on("mpi", d, {}), 3.0);
#if ACCSUM_HAVE_MPI
  EXPECT_TRUE(mpi::started());
  EXPECT_GE(mpi::size(), 1);
  std::printf("[ mpi      ] rank %d of %d\n", mpi::rank(), mpi::size());
#endif
}

TEST(MpiSuperacc, GeneratedSumsAndDotsMatchOracleAndCpu) {
  REQUIRE_MPI();
  int64_t compared = 0;
  for (const std::string family : {"sum", "dot"})
    for (auto& g : test::generated_cases(family, 160, 31, 1, 5000)) {
      Dataset d = as_dataset(family, g.x, g.y);
      double want = oracle(d);
      EXPECT_PRED2(same_bits, run_on("cpu", d, {}), want) << g.describe();
      for (const Params& p : std::vector<Params>{{{"inner", "cpu"}},
                                                 {{"inner", "cpu"}, {"fpe", "4"}, {"early_exit", "1"}},
                                                 {{"inner", "cpu-mt"}, {"threads", "3"}, {"fpe", "2"}}}) {
        double got = run_on("mpi", d, p);
        EXPECT_PRED2(same_bits, got, want) << g.describe() << " inner=" << p.at("inner");
        EXPECT_TRUE(all_ranks_agree(got)) << g.describe();
        ++compared;
      }
    }
  EXPECT_EQ(compared, 2 * 160 * 3);
}

TEST(MpiSuperacc, FewerTermsThanRanksAndSpecials) {
  REQUIRE_MPI();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> sums = {{},
                                           {-0.0},
                                           {-0.0, -0.0},
                                           {-0.0, 1.0, -1.0},
                                           {inf, -inf},
                                           {nan},
                                           {inf, 1.0},
                                           {DBL_MAX, DBL_MAX, -DBL_MAX},
                                           {DBL_MAX, 0x1p970},
                                           {1.0, 0x1p-53, 0x1p-1074},
                                           {0x1p-1074, 0x1p-1074, 0x1p-1074}};
  for (const auto& x : sums) {
    Dataset d = as_dataset("sum", x);
    double got = run_on("mpi", d, {});
    EXPECT_PRED2(same_bits, got, oracle(d)) << test::dump(x);
    EXPECT_TRUE(all_ranks_agree(got));
  }
  Dataset dot = as_dataset("dot", {0.0, -0.0, 0x1p-1074}, {-1.0, 1.0, 0x1p-1074});
  EXPECT_PRED2(same_bits, run_on("mpi", dot, {}), oracle(dot));
}

TEST(MpiSuperacc, LargerInputsAndShapeVariants) {
  REQUIRE_MPI();
  for (const std::string family : {"sum", "dot"}) {
    Dataset d = test::loguniform(family, 300007, 1e300);
    double want = oracle(d);
    const AlgoEntry* e = registry().find(test::superacc_algo(family), "mpi");
    for (const auto& p : e->shape_variants(registry().resolve_params(*e, {}))) {
      double got = e->make(d.problem(), p)->run_scalar();
      EXPECT_PRED2(same_bits, got, want) << family << " inner=" << p.at("inner") << " threads=" << p.at("threads");
      EXPECT_TRUE(all_ranks_agree(got));
    }
  }
}

// Generation by index: each rank generates its own slice by global index. The bits must equal those of the
// same data generated whole on the host, for every distribution generate_range can slice, on
// every rank count CTest runs (1, 2, 4), and the oracle over generated slices must equal the
// oracle over the arrays.
TEST(MpiSuperacc, GeneratedByIndexEqualsHostArrays) {
  REQUIRE_MPI();
  int64_t compared = 0;
  test::for_each_counter_based(
      {2, 3, 4099, 70001}, 7, 1e200,
      [&](const std::string& family, const std::string& dist, int64_t n, const GenSpec& spec) {
        Dataset host = generate(spec), by_index = generate_by_index(spec);
        ASSERT_TRUE(by_index.x.empty()) << "by-index datasets hold no array";
        const FamilyDescriptor& f = accsum::family(family);
        ExactValue want = f.oracle(host), want_generated = f.oracle(by_index);
        EXPECT_PRED2(same_bits, want_generated.rounded, want.rounded) << family << " " << dist << " n=" << n;
        const AlgoEntry* e = registry().find(test::superacc_algo(family), "mpi");
        ASSERT_TRUE(e->makes_own_data);
        for (const Params& p : std::vector<Params>{{{"inner", "cpu"}}, {{"inner", "cpu-mt"}, {"threads", "2"}}}) {
          Params rp = registry().resolve_params(*e, p);
          double got = e->make(by_index.problem(), rp)->run_scalar();
          EXPECT_PRED2(same_bits, got, want.rounded)
              << family << " " << dist << " n=" << n << " inner=" << p.at("inner");
          EXPECT_PRED2(same_bits, got, e->make(host.problem(), rp)->run_scalar()) << family << " " << dist;
          EXPECT_TRUE(all_ranks_agree(got));
          ++compared;
        }
      });
  EXPECT_GE(compared, 2 * 5 * 4 * 2);
}

}  // namespace
}  // namespace accsum
