#pragma once
// Datasets for the sum/dot tests: a generated one by distribution, or one from given vectors.
#include <cstdint>
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

namespace accsum::test {

inline Dataset make(const std::string& dist, bool dot, int64_t n, double cond = 1e16, uint64_t seed = 1,
                    double range = 1e16) {
  GenSpec s;
  s.dist = dist;
  s.family = dot ? "dot" : "sum";
  s.with_y = dot;
  s.n = n;
  s.seed = seed;
  s.cond = cond;
  s.range = range;
  return generate(s);
}

// Every distribution, sum and dot, at each of `sizes` ("ties" needs two terms): fn(dist, dot, n, d)
// with d generated at condition number `cond`, seed seed0 + n and log-uniform range `range`.
template <class Fn>
void for_each_dist(const std::vector<int64_t>& sizes, double cond, uint64_t seed0, Fn fn, double range = 1e16) {
  for (const std::string& dist : dist_names())
    for (bool dot : {false, true})
      for (int64_t n : sizes) {
        if (dist == "ties" && n < 2) continue;
        fn(dist, dot, n, make(dist, dot, n, cond, seed0 + n, range));
      }
}

inline Dataset from(std::vector<double> x, std::vector<double> y = {}) {
  Dataset d;
  d.family = y.empty() ? "sum" : "dot";
  d.generator = "hand";
  d.n = static_cast<int64_t>(x.size());
  d.x = std::move(x);
  d.y = std::move(y);
  d.id = next_dataset_id();
  return d;
}

// A dataset of `family` ("sum" or "dot") from given vectors (an empty dot has no y to tell).
inline Dataset as_dataset(const std::string& family, std::vector<double> x, std::vector<double> y = {}) {
  Dataset d = from(std::move(x), std::move(y));
  d.family = family;
  return d;
}

}  // namespace accsum::test
