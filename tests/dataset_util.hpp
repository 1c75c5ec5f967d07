#pragma once
// Datasets for the sum/dot tests: a generated one by distribution, or one from given vectors.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
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

// Whether the vector family ("sum" or "dot") has a second vector y: its descriptor says.
inline bool has_y(const std::string& family) { return accsum::family(family).has_y; }

// Log-uniform data of `family` ("sum" or "dot") over `range`.
inline Dataset loguniform(const std::string& family, int64_t n, double range) {
  GenSpec spec;
  spec.family = family;
  spec.with_y = accsum::family(family).has_y;
  spec.dist = "loguniform";
  spec.range = range;
  spec.n = n;
  return generate(spec);
}

// Sum and dot, every distribution whose elements are pure functions of their index, each of `sizes`:
// fn(family, dist, n, spec) with seed seed0 + n and log-uniform range `range`.
template <class Fn>
void for_each_counter_based(const std::vector<int64_t>& sizes, uint64_t seed0, double range, Fn fn) {
  for (const std::string family : {"sum", "dot"})
    for (const std::string& dist : dist_names()) {
      if (!counter_based(dist)) continue;
      for (int64_t n : sizes) {
        GenSpec spec;
        spec.family = family;
        spec.with_y = accsum::family(family).has_y;
        spec.dist = dist;
        spec.n = n;
        spec.seed = seed0 + static_cast<uint64_t>(n);
        spec.range = range;
        fn(spec.family, spec.dist, n, spec);
      }
    }
}

// Sums whose IEEE result is set by their special terms (NaN, +-inf, inf - inf).
struct SpecialSum {
  std::vector<double> x;
  double want;
};
inline std::vector<SpecialSum> special_sums() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  return {{{1, nan, 2}, nan},    {{inf, 1, 2}, inf},         {{-inf, 1e300, 1e300}, -inf},
          {{inf, -inf, 1}, nan}, {{1, 2, inf, 3, inf}, inf}, {{nan, inf}, nan}};
}

// The data of the threaded-against-serial tests: five distributions (specials and subnormals
// included), sum and dot, sizes from 1 to past several threads' blocks: fn(dist, dot, n, d).
template <class Fn>
void for_each_threading_case(Fn fn) {
  const std::pair<const char*, double> dists[] = {
      {"uniform", 1e16}, {"loguniform", 1e16}, {"illcond", 1e30}, {"specials", 1e16}, {"subnormal", 1e16}};
  for (auto& [dist, cond] : dists)
    for (bool dot : {false, true})
      for (int64_t n : {1, 5, 100, 40001, 300007}) fn(std::string(dist), dot, n, make(dist, dot, n, cond, 3));
}

// The GenSpec of `family` (sum, dot, ...) drawn from `dist`.
inline GenSpec spec_of(const std::string& dist, const std::string& family, int64_t n, uint64_t seed = 1,
                       double range = 1e16, double cond = 1e16) {
  GenSpec s;
  s.dist = dist;
  s.family = family;
  s.with_y = accsum::family(family).has_y;
  s.n = n;
  s.seed = seed;
  s.range = range;
  s.cond = cond;
  return s;
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
