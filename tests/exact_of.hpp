#pragma once
// The exact oracle of vectors: their sum, or their dot product when there is a y.
#include <cstdint>
#include <vector>

#include "core/oracle/oracle.hpp"
#include "datasets/dataset.hpp"

namespace accsum::test {

inline ExactValue exact_of(const double* x, const double* y, int64_t n) {
  return y ? exact_dot(x, y, n) : exact_sum(x, n);
}
inline ExactValue exact_of(const std::vector<double>& x, const std::vector<double>& y) {
  return exact_of(x.data(), y.empty() ? nullptr : y.data(), static_cast<int64_t>(x.size()));
}
inline ExactValue exact_of(const Dataset& d) { return exact_of(d.x.data(), d.y.empty() ? nullptr : d.y.data(), d.n); }

}  // namespace accsum::test
