#pragma once
// The toy algorithm of tests/toy_algorithm/ (docs/architecture.md, "add an algorithm", step 1):
// recursive summation from the last term to the first. Its bound is recursive summation's in any
// order, |res - s| <= gamma_{n-1} S (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
// ed. 2002, eq. (4.4)).
#include <cstdint>

namespace accsum::toy {

inline double sum_reverse(const double* x, int64_t n) {
  double s = 0.0;
  for (int64_t i = n - 1; i >= 0; --i) s += x[i];
  return n > 0 ? s : 0.0;
}

}  // namespace accsum::toy
