// The bound of a pair sum (derivation in families/sum_dot/pair_sum.hpp), evaluated upward-safe.
#include "families/sum_dot/pair_sum.hpp"

#include <cmath>

#include "families/sum_dot/sum_bounds.hpp"

namespace accsum {

double pair_bound_scale(int64_t depth) {
  using namespace bounds;
  if (depth <= 0) return 0.0;
  const double g = gamma_up(2 * depth);
  const double D = static_cast<double>(depth);
  if (g == kInf || !(D * kU < 0x1p-10)) return kInf;  // (1 +- u)^D near 1 below
  // (1+u)^D <= 1 / (1 - D u) and (1-u)^D >= 1 - D u (Bernoulli).
  const double one_minus = down(1.0 - D * kU);
  const double growth = up(1.0 / one_minus);
  return mul_up(mul_up(mul_up(g, D), kU), up(growth / one_minus));
}

double pair_dot_slack(int64_t n) { return n <= 0 ? 0.0 : bounds::up(std::ldexp(static_cast<double>(n), -1075)); }

}  // namespace accsum
