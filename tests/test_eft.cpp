#include <gtest/gtest.h>

#include "core/eft.hpp"

TEST(Eft, SelfTestPassesOnHost) { EXPECT_TRUE(accsum::eft_self_test()); }
