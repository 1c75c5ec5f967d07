// The choice of the bounded pass (families/sum_dot/superacc_state.hpp): `bounded` takes auto (the
// default), 0 or 1; auto runs the pass first on a device only while the input fits in the share of
// L2 that bounded_pass_first allows, and on the CPU always. The GPU side of the same boundary (the
// same bits on both sides of it) is in test_superacc_cuda.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/vocabulary.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/superacc_state.hpp"
#include "tests/exact_of.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

TEST(SuperaccPolicy, AutoFollowsTheL2ShareExactly) {
  const int64_t l2 = int64_t(50) << 20;  // any size: the rule scales with what the device reports
  const int64_t limit = l2 / kBoundedL2Divisor;
  EXPECT_TRUE(bounded_pass_first(BoundedMode::automatic, 0, l2));
  EXPECT_TRUE(bounded_pass_first(BoundedMode::automatic, limit, l2));
  EXPECT_FALSE(bounded_pass_first(BoundedMode::automatic, limit + 1, l2));
  EXPECT_FALSE(bounded_pass_first(BoundedMode::automatic, 1, 0));  // no L2 reported: never
  for (int64_t bytes : {int64_t(0), limit, limit + 1, int64_t(1) << 40}) {
    EXPECT_TRUE(bounded_pass_first(BoundedMode::on, bytes, l2));
    EXPECT_FALSE(bounded_pass_first(BoundedMode::off, bytes, l2));
  }
}

TEST(SuperaccPolicy, ParameterTakesAutoZeroOne) {
  for (const char* backend : {"cpu", "cpu-mt"})
    for (const char* algo : {"superacc", "superacc-dot"}) {
      const AlgoEntry* e = registry().find(algo, backend);
      ASSERT_NE(e, nullptr) << algo << " " << backend;
      EXPECT_EQ(superacc_bounded_mode(registry().resolve_params(*e, {})), BoundedMode::automatic);
      EXPECT_EQ(superacc_bounded_mode(registry().resolve_params(*e, {{"bounded", "0"}})), BoundedMode::off);
      EXPECT_EQ(superacc_bounded_mode(registry().resolve_params(*e, {{"bounded", "1"}})), BoundedMode::on);
      for (const char* bad : {"2", "", "AUTO", "01", "-1"})
        EXPECT_THROW(registry().resolve_params(*e, {{"bounded", bad}}), UsageError) << bad;
      EXPECT_TRUE(superacc_bounded(registry().resolve_params(*e, {})));  // the CPU: the bound first
    }
}

// The three choices give the same bits on the CPU backends, on ties +- 2^-1074 and sums just off a
// tie, buried in terms that cancel exactly (so the bound cannot decide) or alone (so it can).
TEST(SuperaccPolicy, EveryChoiceSameBitsOnTiesOnCpu) {
  const double tiny = 0x1p-1074;
  const std::vector<std::vector<double>> edges = {{1.0, 0x1p-53},
                                                  {1.0, 0x1p-53, tiny},
                                                  {1.0, 0x1p-53, -tiny},
                                                  {1.0, 0x1.8p-53},
                                                  {1.0, 0x1.fffffffffffffp-54},
                                                  {-0x1p-1022, 0x1p-1075 * 2, -tiny},
                                                  {0x1p1023, 0x1p970, -0x1p1023}};
  for (bool cancel : {false, true})
    for (const auto& edge : edges) {
      std::vector<double> x = edge;
      if (cancel)
        for (int i = 0; i < 3000; ++i) x.insert(x.begin() + (i % x.size()), {1e30 + i, -(1e30 + i)});
      const double want = test::exact_of(x, {}).rounded;
      for (const char* backend : {"cpu", "cpu-mt"})
        for (const char* b : {"auto", "0", "1"}) {
          const AlgoEntry* e = registry().find("superacc", backend);
          Problem p = Problem::vectors(x.data(), nullptr, static_cast<int64_t>(x.size()), next_dataset_id());
          auto k = e->make(p, registry().resolve_params(*e, {{"bounded", b}}));
          k->execute();
          EXPECT_TRUE(test::same_bits(k->result().scalar(), want))
              << backend << " bounded=" << b << " " << test::dump(edge);
        }
    }
}

}  // namespace
}  // namespace accsum
