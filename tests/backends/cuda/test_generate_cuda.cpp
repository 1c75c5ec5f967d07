// Data made on the GPU by global index (bench --generate=by-index): for every
// distribution that has a per-element recipe, the CUDA entries that make their own data must see
// exactly the host generator's elements. superacc's correctly rounded result equals the oracle's,
// and CUB's / cuBLAS's order-dependent results equal those of the host-made arrays bit for bit
// (any differing element would show there). Needs a CUDA device; skips with a notice otherwise.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "tests/backend_present.hpp"
#include "datasets/dataset.hpp"
#include "tests/dataset_util.hpp"
#include "tests/superacc_test_util.hpp"

namespace accsum {
namespace {

using test::same_bits;

bool have_gpu() { return test::backend_present("cuda"); }

double run(const std::string& algo, const Dataset& d) {
  const AlgoEntry* e = registry().find(algo, "cuda");
  EXPECT_NE(e, nullptr) << algo;
  if (!e) return 0;
  return e->make(d.problem(), registry().resolve_params(*e, {}))->run_scalar();
}

TEST(GenerateCuda, DeviceElementsEqualHostElementsForEveryDistribution) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: device generation not tested";
  int64_t compared = 0;
  test::for_each_counter_based(
      {2, 33, 65537, 3000017}, 11, 1e280,
      [&](const std::string& family, const std::string& dist, int64_t n, const GenSpec& spec) {
        Dataset host = generate(spec), by_index = generate_by_index(spec);
        const double want = accsum::family(family).oracle(host).rounded;
        const std::string exact = test::superacc_algo(family);
        const std::string vendor = registry().baseline(family, "cuda")->algo;  // cub-sum, cublas-dot
        ASSERT_TRUE(registry().find(exact, "cuda")->makes_own_data);
        ASSERT_TRUE(registry().find(vendor, "cuda")->makes_own_data);
        EXPECT_PRED2(same_bits, run(exact, by_index), want) << family << " " << dist << " n=" << n;
        EXPECT_PRED2(same_bits, run(vendor, by_index), run(vendor, host)) << family << " " << dist << " n=" << n;
        ++compared;
      });
  EXPECT_GE(compared, 2 * 5 * 4);
}

}  // namespace
}  // namespace accsum
