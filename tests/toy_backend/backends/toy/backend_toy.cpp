// The toy backend of the "add a backend" recipe (docs/architecture.md), copied into
// backends/toy/ of a scratch tree by tests/toy_backend/test_toy_backend.cmake: its BackendInfo.
#include "core/frame/registry.hpp"

namespace accsum {
namespace {

Registrar reg_toy(BackendInfo{
    "toy", "the recipe's toy backend: the host, one core", [] { return true; }, [] { return true; },
    [] {
      return std::string("the host");
    }}.ranked_for_best(9));

}  // namespace
}  // namespace accsum
