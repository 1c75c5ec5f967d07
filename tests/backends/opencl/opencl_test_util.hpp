#pragma once
// Shared by the OpenCL tests: skip (with a notice) where no fp64 OpenCL device is present.
#include <gtest/gtest.h>

#include "core/frame/registry.hpp"

namespace accsum::test {

inline bool have_opencl() {
  const BackendInfo* b = registry().backend("opencl");
  if (!b || !b->available()) return false;
  require_backend("opencl");
  return true;
}

}  // namespace accsum::test

#define REQUIRE_OPENCL() \
  if (!accsum::test::have_opencl()) GTEST_SKIP() << "no OpenCL fp64 device: OpenCL tests not run"
