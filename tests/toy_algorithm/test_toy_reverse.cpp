// docs/architecture.md's "add an algorithm" recipe, exercised: the toy algorithm toy-reverse is its
// serial definition (toy_reverse_serial.hpp) and its cpu entry (toy_reverse_cpu.cpp), plus this
// test. The registry lists it with its bound, the generic harness (tests/families/
// test_every_entry.cpp) judges it on every edge case because it registered, the IEEE rule wraps it,
// and no file outside this folder names it: the recipe's count of files holds.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "core/frame/registry.hpp"
#include "core/oracle/oracle.hpp"
#include "tests/toy_algorithm/toy_reverse_serial.hpp"

namespace accsum {
namespace {

namespace fs = std::filesystem;

// Step 2 of the recipe: the serial definition against the exact oracle, within its bound.
TEST(ToyAlgorithm, SerialDefinitionWithinItsBound) {
  const std::vector<double> x = {1e16, 1.0, -1e16, 3.0, 0x1p-30, -2.5};
  const ExactValue ref = exact_sum(x.data(), static_cast<int64_t>(x.size()));
  const double got = toy::sum_reverse(x.data(), static_cast<int64_t>(x.size()));
  const AlgoEntry* e = registry().find("toy-reverse", "cpu");
  ASSERT_NE(e, nullptr);
  const double bound = proven_bound(*e, {}, ref.facts);
  ASSERT_GE(bound, 0);
  const Metrics m = measure(got, ref, bound);
  EXPECT_TRUE(m.within_bound) << m.abs_err << " > " << bound;
}

// Step 3: the entry is in the registry with its bound, and the registry-wide IEEE rule wraps it.
TEST(ToyAlgorithm, RegisteredWithItsBoundAndTheIeeeRule) {
  const AlgoEntry* e = registry().find("toy-reverse", "cpu");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->family, "sum");
  EXPECT_TRUE(static_cast<bool>(e->bound));
  const std::vector<double> x = {1.0, std::numeric_limits<double>::infinity(), -1.0};
  Problem p = Problem::vectors(x.data(), nullptr, 3, next_dataset_id());
  EXPECT_EQ(e->make(p, {})->run_scalar(), std::numeric_limits<double>::infinity());
}

// The count: this folder holds the whole algorithm, and nothing else in the tree names it.
TEST(ToyAlgorithm, NeedsOnlyTheFilesOfItsFolder) {
  const fs::path root(ACCSUM_SOURCE_DIR);
  const fs::path own = root / "tests" / "toy_algorithm";
  int own_files = 0;
  for (auto& f : fs::directory_iterator(own))
    if (f.is_regular_file()) ++own_files;
  EXPECT_EQ(own_files, 3) << "serial definition, cpu entry, this test";
  std::vector<std::string> elsewhere;
  for (const char* top : {"app", "base", "core", "datasets", "families", "backends", "lib", "tests", "cmake"}) {
    if (!fs::exists(root / top)) continue;
    for (auto& f : fs::recursive_directory_iterator(root / top)) {
      if (!f.is_regular_file() || f.path().parent_path() == own) continue;
      const std::string ext = f.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".cuh" && ext != ".txt" &&
          ext != ".cmake")
        continue;
      std::ifstream in(f.path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (text.find("toy-reverse") != std::string::npos || text.find("toy_reverse") != std::string::npos)
        elsewhere.push_back(f.path().string());
    }
  }
  std::string list;
  for (auto& s : elsewhere) list += " " + s;
  EXPECT_TRUE(elsewhere.empty()) << "files outside tests/toy_algorithm name the toy:" << list;
  const std::string cmake = [&] {
    std::ifstream in(root / "CMakeLists.txt");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  EXPECT_EQ(cmake.find("toy"), std::string::npos) << "CMakeLists.txt names the toy";
}

}  // namespace
}  // namespace accsum
