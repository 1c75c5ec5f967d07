// The fpe family on CUDA (warp-synchronous data-parallel kernels and one-expansion-per-thread
// sequential kernels): bit for bit the cpu definitions, for every R, both memory cases and
// several block sizes; within the proven bounds against MPFR. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "tests/backend_present.hpp"

using namespace accsum;

namespace {

bool cuda_present() { return test::backend_present("cuda"); }

Dataset make(const std::string& dist, int R, int64_t n) {
  GenSpec s;
  s.dist = dist;
  s.family = "fpe";
  s.n = n;
  s.seed = 21;
  s.options = {{"R", std::to_string(R)}};
  return family("fpe").generate(s);
}

}  // namespace

TEST(FpeCuda, BitIdenticalToCpuAndWithinBounds) {
  if (!registry().backend("cuda")) GTEST_SKIP() << "built without the CUDA backend";
  if (!cuda_present()) GTEST_SKIP() << "no CUDA device here: FpeCuda tests run on the GPU machine";
  require_backend("cuda");
  int checked = 0;
  for (int R : {2, 4, 8, 16, 32})
    for (const char* dist : {"random", "cancel", "zeros"}) {
      Dataset d = make(dist, R, 1000 + R);  // not a multiple of the expansions per warp
      ExactValue ref = family("fpe").oracle(d);
      for (const AlgoEntry* entry : registry().entries_of("fpe", "cuda")) {
        const AlgoEntry& e = *entry;
        const AlgoEntry* cpu = registry().find(e.algo, "cpu");
        ASSERT_NE(cpu, nullptr);
        for (const char* renorm : {"0", "1"}) {
          Params cp;
          bool has_renorm = false;
          for (auto& p : e.params) has_renorm |= p.name == "renormalize";
          if (!has_renorm && std::string(renorm) == "1") continue;
          if (has_renorm) cp["renormalize"] = renorm;
          auto ck = cpu->make(d.problem(), registry().resolve_params(*cpu, cp));
          ck->execute();
          Result want = ck->result();
          for (const char* shared : {"0", "1"})
            for (const char* block : {"32", "256"}) {
              Params gp = cp;
              gp["shared"] = shared;
              gp["block"] = block;
              gp = registry().resolve_params(e, gp);
              auto gk = e.make(d.problem(), gp);
              gk->execute();
              Result got = gk->result();
              ASSERT_EQ(got.values.size(), want.values.size());
              EXPECT_EQ(0, std::memcmp(got.values.data(), want.values.data(), want.values.size() * sizeof(double)))
                  << e.algo << " R=" << R << " " << dist << " shared=" << shared << " block=" << block;
              Metrics m = family("fpe").measure(got, ref, proven_bound(e, gp, ref.facts));
              EXPECT_TRUE(!m.has_bound || m.within_bound) << e.algo << " R=" << R << " " << dist;
              ++checked;
            }
        }
      }
    }
  EXPECT_GT(checked, 0);
}

TEST(FpeCuda, EmptyAndSinglePair) {
  if (!registry().backend("cuda") || !cuda_present()) GTEST_SKIP() << "no CUDA device here";
  for (int64_t n : {0, 1}) {
    Dataset d = make("random", 8, n);
    for (const AlgoEntry* entry : registry().entries_of("fpe", "cuda")) {
      const AlgoEntry& e = *entry;
      auto k = e.make(d.problem(), registry().resolve_params(e, {}));
      k->execute();
      EXPECT_EQ(k->result().values.size(), static_cast<size_t>(n * 8)) << e.algo;
    }
  }
}
