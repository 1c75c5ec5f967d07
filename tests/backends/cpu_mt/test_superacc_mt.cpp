// The superaccumulator entries of the cpu and cpu-mt backends (families/sum_dot/superacc_host.cpp's kernels):
// their parameters and defaults, and the same bits as the exact MPFR oracle for any thread count.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"
#include "tests/exact_of.hpp"
#include "tests/same_bits.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using test::same_bits;

// The registered entries: parameters, defaults and the cpu-mt thread counts.
double run_entry(const std::string& algo, const std::string& backend, const Dataset& d, const Params& user) {
  const AlgoEntry* e = registry().find(algo, backend);
  if (!e) throw std::runtime_error(algo + "/" + backend + " not registered");
  Params p = registry().resolve_params(*e, user);
  return e->make(d.problem(), p)->run_scalar();
}

TEST(SuperaccCpu, RegisteredEntriesAndParameters) {
  for (const char* algo : {"superacc", "superacc-dot"})
    for (const char* backend : {"cpu", "cpu-mt"}) {
      const AlgoEntry* e = registry().find(algo, backend);
      ASSERT_NE(e, nullptr) << algo << "/" << backend;
      EXPECT_EQ(e->guarantee, Guarantee::correctly_rounded);
      EXPECT_TRUE(e->reproducible);
      EXPECT_THROW(registry().resolve_params(*e, {{"fpe", "5"}}), UsageError);
      EXPECT_THROW(registry().resolve_params(*e, {{"early_exit", "2"}}), UsageError);
      EXPECT_NO_THROW(registry().resolve_params(*e, {{"fpe", "8"}, {"early_exit", "1"}}));
    }
  EXPECT_NE(registry().find("superacc", "cpu-mt")->shape_variants, nullptr);
}

TEST(SuperaccCpuMt, IdenticalForAnyThreadCount) {
  int64_t compared = 0;
  for (const std::string family : {"sum", "dot"})
    for (const std::string& dist : dist_names()) {
      GenSpec spec;
      spec.family = family;
      spec.with_y = accsum::family(spec.family).has_y;
      spec.dist = dist;
      spec.n = dist == "ties" ? 9001 : 60013;
      spec.range = 1e300;
      spec.cond = 1e200;
      spec.seed = 1 + compared % 6;  // specials: every variant across the sweep
      Dataset d = generate(spec);
      double want = test::exact_of(d).rounded;
      const char* algo = test::superacc_algo(family);
      for (const char* threads : {"1", "2", "3", "7"})
        for (const char* fpe : {"0", "3", "8"}) {
          double got = run_entry(algo, "cpu-mt", d, {{"threads", threads}, {"fpe", fpe}, {"early_exit", "1"}});
          EXPECT_PRED2(same_bits, got, want) << family << " " << dist << " threads=" << threads << " fpe=" << fpe;
          ++compared;
        }
      EXPECT_PRED2(same_bits, run_entry(algo, "cpu", d, {}), want) << family << " " << dist;
    }
  EXPECT_EQ(compared, 2 * static_cast<int64_t>(dist_names().size()) * 12);
}

TEST(SuperaccCpuMt, MoreThreadsThanTerms) {
  for (int64_t n : {0, 1, 2, 5}) {
    Dataset d;
    d.family = "sum";
    d.n = n;
    d.x.assign(n, -0.0);
    d.id = next_dataset_id();
    EXPECT_PRED2(same_bits, run_entry("superacc", "cpu-mt", d, {{"threads", "7"}}), n ? -0.0 : 0.0) << n;
  }
}

}  // namespace
}  // namespace accsum
