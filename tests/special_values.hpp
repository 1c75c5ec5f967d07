#pragma once
// The special doubles of the tests' hand-made cases, named once.
#include <limits>

namespace accsum::test {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMinSub = std::numeric_limits<double>::denorm_min();

}  // namespace accsum::test
