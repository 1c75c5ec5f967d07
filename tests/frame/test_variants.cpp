// The launch-shape variants a reproducibility check compares: each a different configuration, never
// the same one twice (on a 2-thread host the default thread count is one of the fixed counts).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/frame/parallel.hpp"
#include "core/frame/registry.hpp"

using namespace accsum;

namespace {

TEST(Variants, AValueNamedTwiceIsOneVariant) {
  const Params p{{"threads", "0"}};
  const std::vector<Params> v = variants_of(p, "threads", {"1", "2", "2", "3", "1"});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].at("threads"), "1");
  EXPECT_EQ(v[1].at("threads"), "2");
  EXPECT_EQ(v[2].at("threads"), "3");
}

TEST(Variants, ThreadVariantsAreDistinctWhateverTheDefault) {
  const std::vector<Params> v = thread_variants(Params{{"threads", "0"}});
  std::set<std::string> counts;
  for (const Params& q : v) EXPECT_TRUE(counts.insert(q.at("threads")).second) << q.at("threads") << " twice";
  EXPECT_TRUE(counts.count(std::to_string(default_threads())));
  EXPECT_TRUE(counts.count("1"));
}

}  // namespace
