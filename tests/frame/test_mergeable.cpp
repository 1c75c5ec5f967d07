// Mergeable partial states and their composers: threads (cpu-mt) and MPI ranks derive an
// algorithm from a cpu algorithm's state. Every rank runs the Mpi* tests here in the same order
// (CTest runs this binary under mpirun -np 2 and 4 with --gtest_filter=Mpi*).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/frame/mergeable.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using test::same_bits;

const char* kAlgo = "superacc-by-state";

// A cpu algorithm made of nothing but the cpu superacc's mergeable state, registered at run
// time (after every static registration): the composers must derive its cpu-mt and mpi twins.
const AlgoEntry& state_only_entry() {
  static const AlgoEntry* e = [] {
    MergeableFactory make = registry().find("superacc", "cpu")->state;
    registry().add(AlgoEntry("sum", kAlgo, "cpu", "test: the superacc state, accumulated in one slice")
                       .promises(Guarantee::correctly_rounded)
                       .promises_reproducible()
                       .with_params(registry().find("superacc", "cpu")->params)
                       .maker([make](const Problem& p, const Params& q) -> std::unique_ptr<Kernel> {
                         struct One : Kernel {
                           MergeableFactory make;
                           Params q;
                           Problem p;
                           std::unique_ptr<MergeableState> s;
                           void execute() override { s = compose_slices(make, q, p, 1); }
                           Result result() override { return s->finalize(); }
                         };
                         auto k = std::make_unique<One>();
                         k->make = make;
                         k->q = q;
                         k->p = p;
                         return k;
                       })
                       .mergeable(make));
    return registry().find(kAlgo, "cpu");
  }();
  return *e;
}

double run(const std::string& backend, const Dataset& d, Params user = {}) {
  state_only_entry();
  const AlgoEntry* e = registry().find(kAlgo, backend);
  if (!e) throw std::runtime_error("no composed entry on " + backend);
  return e->make(d.problem(), registry().resolve_params(*e, user))->run_scalar();
}

std::vector<Dataset> corpus() {
  std::vector<Dataset> out;
  for (const std::string& dist : dist_names())
    for (int64_t n : {1, 2, 3, 1000, 65537}) {
      if (dist == "ties" && n < 2) continue;
      if (dist == "illcond" && n < 8) continue;
      out.push_back(generate(GenSpec{dist, "sum", n, static_cast<uint64_t>(n % 6 + 1), 1e300, 1e200, {}}));
    }
  return out;
}

TEST(Mergeable, SlicesAndSerialisationGiveTheCorrectlyRoundedSum) {
  MergeableFactory make = registry().find("superacc", "cpu")->state;
  ASSERT_TRUE(make);
  Params q = registry().resolve_params(*registry().find("superacc", "cpu"), {});
  int checked = 0;
  for (auto& d : corpus()) {
    double want = exact_sum(d.x.data(), d.n).rounded;
    for (int slices : {1, 2, 3, 7, 64}) {
      auto s = compose_slices(make, q, d.problem(), slices);
      EXPECT_PRED2(same_bits, s->finalize().scalar(), want) << d.generator << " n=" << d.n << " slices=" << slices;
      auto copy = make(q);
      copy->deserialize(s->serialize());
      EXPECT_PRED2(same_bits, copy->finalize().scalar(), want);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Mergeable, ThreadComposerDerivesAReproducibleCpuMtVersion) {
  state_only_entry();
  const AlgoEntry* mt = registry().find(kAlgo, "cpu-mt");
  ASSERT_NE(mt, nullptr);
  EXPECT_TRUE(mt->composed);
  EXPECT_TRUE(mt->reproducible);
  // The hand-written superacc cpu-mt kernel was not replaced by a composed one.
  EXPECT_FALSE(registry().find("superacc", "cpu-mt")->composed);
  for (auto& d : corpus()) {
    double want = run("cpu", d);
    for (const char* t : {"1", "2", "3", "7"})
      EXPECT_PRED2(same_bits, run("cpu-mt", d, {{"threads", t}}), want) << d.generator << " n=" << d.n;
  }
}

TEST(MpiComposedState, RanksGiveTheSameBitsAsOneCore) {
  state_only_entry();
  if (!registry().backend("mpi")) GTEST_SKIP() << "built without MPI";
  const AlgoEntry* e = registry().find(kAlgo, "mpi");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->composed);
  for (auto& d : corpus()) EXPECT_PRED2(same_bits, run("mpi", d), exact_sum(d.x.data(), d.n).rounded);
}

}  // namespace
}  // namespace accsum
