// Every test sees the tool as a user without a CI job or progress settings would: the CI variable
// turns on progress lines on stderr, which tests counting stderr lines must not see. Cleared before
// main() so that every child process inherits the cleared environment; tests that want progress
// name CI / ACCSUM_PROGRESS in their own command lines.
#include <cstdlib>

namespace {
const bool environment_cleared = [] {
  ::unsetenv("CI");
  ::unsetenv("ACCSUM_PROGRESS");
  return true;
}();
}  // namespace
