#pragma once
// Shared by the test files: bad input must throw accsum::UsageError with a telling message.
#include <gtest/gtest.h>

#include <string>

#include "core/frame/registry.hpp"

namespace accsum::test {

// Expects `f` to throw UsageError whose message contains `needle`.
template <class F>
void expect_usage_error(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no UsageError (expected one mentioning '" << needle << "')";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace accsum::test
