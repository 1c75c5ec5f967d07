// Which device each process computes on (core/frame/placement.hpp): the rule, its refusals, and the
// per-rank placement the mpi backend reports. CTest runs MpiPlacement.* also under mpirun -np 2
// and 4 (every rank calls the same collectives: non-fatal EXPECTs only).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/frame/placement.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"
#include "tests/cli_run.hpp"

#if ACCSUM_HAVE_MPI
#include "backends/mpi/mpi_env.hpp"
#endif

namespace accsum {
namespace {

// Restores the process-wide rule after a test changes it.
struct RuleGuard {
  int rank = placement::node_local_rank();
  ~RuleGuard() {
    placement::set_cli_device("");
    placement::set_node_local_rank(rank, rank >= 0 ? rank + 1 : 0);
    unsetenv("ACCSUM_TEST_DEVICE");
  }
};

TEST(Placement, ExplicitChoiceWinsAndIsChecked) {
  RuleGuard g;
  placement::set_cli_device("");
  placement::set_node_local_rank(-1, 0);
  EXPECT_EQ(placement::choose(4, "ACCSUM_TEST_DEVICE"), 0);
  setenv("ACCSUM_TEST_DEVICE", "3", 1);
  EXPECT_EQ(placement::choose(4, "ACCSUM_TEST_DEVICE"), 3);
  EXPECT_NE(placement::rule("ACCSUM_TEST_DEVICE").find("ACCSUM_TEST_DEVICE"), std::string::npos);
  placement::set_cli_device("1");  // --device beats the environment
  EXPECT_EQ(placement::choose(4, "ACCSUM_TEST_DEVICE"), 1);
  EXPECT_NE(placement::rule("ACCSUM_TEST_DEVICE").find("--device"), std::string::npos);
  EXPECT_THROW(placement::choose(1, "ACCSUM_TEST_DEVICE"), UsageError);  // index 1 of 1 device
  placement::set_cli_device("");
  for (const char* bad : {"-1", "x", "1.5", "", "+2", "99999999999"}) {
    setenv("ACCSUM_TEST_DEVICE", bad, 1);
    EXPECT_THROW(placement::choose(4, "ACCSUM_TEST_DEVICE"), UsageError) << bad;
  }
}

TEST(Placement, NodeLocalRankSpreadsRanksOverDevices) {
  RuleGuard g;
  placement::set_cli_device("");
  for (int r = 0; r < 9; ++r) {
    placement::set_node_local_rank(r, 9);
    EXPECT_EQ(placement::choose(4, "ACCSUM_TEST_DEVICE"), r % 4);
    EXPECT_EQ(placement::choose(1, "ACCSUM_TEST_DEVICE"), 0);
    EXPECT_EQ(placement::explicit_choice(4, "ACCSUM_TEST_DEVICE"), -1);
  }
  EXPECT_NE(placement::rule("ACCSUM_TEST_DEVICE").find("rank 8 of 9"), std::string::npos);
  placement::set_cli_device("2");  // an explicit index overrides the rank on every rank
  EXPECT_EQ(placement::choose(4, "ACCSUM_TEST_DEVICE"), 2);
}

TEST(Placement, DeviceFlagIsValidatedOnTheCommandLine) {
  auto bad = cli_test::accsum("bench --algo=naive --backend=cpu --n=8 --device=gpu0");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--device"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  if (!registry().backend("opencl") || !registry().backend("opencl")->available())
    GTEST_SKIP() << "no OpenCL device: the out-of-range index is checked on the GPU run";
  auto none = cli_test::accsum("bench --algo=naive --backend=opencl --n=8 --device=4096");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("only"), std::string::npos) << none.err;
  auto ok = cli_test::accsum("bench --algo=naive --backend=opencl --n=8 --device=0 --format=json");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"placement\""), std::string::npos);
}

// Every rank says where it computed, in rank order, and the mpi row carries all of them.
TEST(MpiPlacement, EveryRankIsListedWithItsDevice) {
#if ACCSUM_HAVE_MPI
  std::vector<std::string> inners = {"cpu"};
  if (registry().backend("cuda") && registry().backend("cuda")->available()) inners.push_back("cuda");
  Dataset d;
  d.family = "sum";
  d.x = {1.0, 0x1p-60, -1.0, 3.0};
  d.n = 4;
  d.id = next_dataset_id();
  for (const std::string& inner : inners) {
    const AlgoEntry* e = registry().find("superacc", "mpi");
    ASSERT_NE(e, nullptr);
    auto k = e->make(d.problem(), registry().resolve_params(*e, {{"inner", inner}}));
    EXPECT_EQ(k->run_scalar(), 3.0 + 0x1p-60);
    std::vector<std::string> where = k->placement();
    EXPECT_EQ(static_cast<int>(where.size()), mpi::size()) << inner;
    for (size_t r = 0; r < where.size(); ++r) {
      EXPECT_EQ(where[r].rfind("rank " + std::to_string(r) + " on ", 0), 0u) << where[r];
      EXPECT_NE(where[r].find(": " + inner), std::string::npos) << where[r];
      if (inner == "cuda") {
        EXPECT_NE(where[r].find("device "), std::string::npos) << where[r];
      }
    }
    if (inner == "cuda") {  // this rank's GPU is its node-local rank modulo the GPUs (no override set)
      int count = 0;
      std::string mine = placement::recorded("cuda");
      EXPECT_EQ(mine.rfind("device ", 0), 0u) << mine;
      count = std::atoi(mine.substr(mine.find(" of ") + 4).c_str());
      ASSERT_GT(count, 0);
      EXPECT_EQ(std::atoi(mine.substr(7).c_str()), placement::node_local_rank() % count) << mine;
      std::printf("[ placed   ] %s\n", where[mpi::rank()].c_str());
    }
  }
#else
  GTEST_SKIP() << "built without MPI";
#endif
}

}  // namespace
}  // namespace accsum
