#pragma once
// Bit identity, the project's promise across backends: two results are the same when their IEEE
// encodings are equal, except that any NaN equals any NaN (a backend may return a different NaN
// payload; the IEEE rule only asks for a NaN).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace accsum::test {

inline bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t ua, ub;
  std::memcpy(&ua, &a, sizeof a);
  std::memcpy(&ub, &b, sizeof b);
  return ua == ub;
}

// Element by element (named apart from the scalar test so EXPECT_PRED2(same_bits, ...) resolves).
inline bool all_same_bits(const double* a, const double* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!same_bits(a[i], b[i])) return false;
  return true;
}

inline bool all_same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && all_same_bits(a.data(), b.data(), static_cast<int64_t>(a.size()));
}

}  // namespace accsum::test
