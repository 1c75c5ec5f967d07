#pragma once
// Device tests run where their backend has a device and skip with a notice elsewhere (CI has no GPU).
#include <gtest/gtest.h>

#include <string>

#include "core/frame/registry.hpp"

namespace accsum::test {

// Whether backend `name` is compiled in and has a device here; where it has, its EFT self-test
// must pass (require_backend throws otherwise).
inline bool backend_present(const std::string& name) {
  const BackendInfo* b = registry().backend(name);
  if (!b || (b->available && !b->available())) return false;
  require_backend(name);
  return true;
}

}  // namespace accsum::test

#define REQUIRE_BACKEND(name)                                                              \
  do {                                                                                     \
    if (!accsum::test::backend_present(name))                                              \
      GTEST_SKIP() << "no " << (name) << " device here: these tests run where it has one"; \
  } while (0)
