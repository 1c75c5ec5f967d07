// The one list of backends (compiled_backends(), CMake's ACCSUM_BACKENDS): every backend compiled in
// registered its BackendInfo under a name of the list, and every reader of the list sees the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/frame/registry.hpp"

using namespace accsum;

TEST(BackendList, EveryCompiledBackendIsRegisteredAndListed) {
  const std::vector<std::string>& listed = compiled_backends();
  ASSERT_NO_THROW(registry().backend_names());  // throws when a backend and the list disagree
  EXPECT_EQ(registry().backend_names(), listed);
  EXPECT_EQ(registry().backends().size(), listed.size());
  for (auto& b : registry().backends())
    EXPECT_NE(std::find(listed.begin(), listed.end(), b.name), listed.end()) << b.name;
}

TEST(BackendList, PreferenceOrderIsAPermutationOfTheList) {
  std::vector<std::string> preferred = registry().backends_by_preference();
  std::vector<std::string> listed = registry().backend_names();
  std::sort(preferred.begin(), preferred.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(preferred, listed);
}

TEST(BackendList, EveryEntryRunsOnAListedBackend) {
  const std::vector<std::string>& listed = compiled_backends();
  for (auto& e : registry().entries()) {
    if (e.composed) continue;
    // Plugins may name a backend that is not compiled in; the built-in entries never do.
    EXPECT_NE(std::find(listed.begin(), listed.end(), e.backend), listed.end()) << e.algo << " on " << e.backend;
  }
}
