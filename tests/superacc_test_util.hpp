#pragma once
// Helpers shared by the superaccumulator test files: bitwise comparison (NaN matches NaN) and
// random terms built to hit rounding ties, sticky bits, cancellation and both ends of the
// binary64 range.
#include <cmath>
#include <limits>
#include <cstdlib>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/dataset_util.hpp"
#include "tests/same_bits.hpp"

namespace accsum::test {

// The superaccumulator algorithm of the vector family: of the exact products where it has a y.
inline const char* superacc_algo(const std::string& family) { return has_y(family) ? "superacc-dot" : "superacc"; }

// A double from a C99 hexadecimal literal in a string (tests spell exact values that way).
inline double hexd(const char* s) { return std::strtod(s, nullptr); }

// Sums that test signed zeros, cancellation to zero, specials, overflow with cancellation, ties
// and subnormals: every superaccumulator sees them.
inline std::vector<std::vector<double>> edge_sums() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double max = std::numeric_limits<double>::max(), min = std::numeric_limits<double>::min();
  return {{},
          {-0.0},
          {-0.0, -0.0, -0.0},
          {-0.0, 0.0},
          {1.0, -1.0},
          {0x1p980, -0x1p980},
          {inf},
          {-inf, 1.0},
          {inf, -inf},
          {nan, 1.0},
          {max, max},
          {max, max, -max},
          {1.0, 0x1p-53},
          {1.0, 0x1p-53, 0x1p-1074},
          {0x1p-1074},
          {-min},
          {0x1p-1074, -0x1p-1073, 0x1p-1074, 0x1p-1074}};
}

inline double random_bits_double(std::mt19937_64& rng) {
  uint64_t u = rng();
  double x;
  std::memcpy(&x, &u, 8);
  return x;
}

// A term m * 2^e with a short random significand (so that sums land on ties often) or a full
// one, near a random "centre" exponent that favours the subnormal and overflow ends.
inline std::vector<double> random_terms(std::mt19937_64& rng, size_t n) {
  int centre;
  switch (rng() % 6) {
    case 0:
      centre = -1074 + static_cast<int>(rng() % 60);
      break;  // subnormal end
    case 1:
      centre = 1023 - 53 - static_cast<int>(rng() % 60);
      break;  // overflow end (m*2^e <= 2^1023)
    case 2:
      centre = -60 + static_cast<int>(rng() % 120);
      break;
    default:
      centre = -1074 + static_cast<int>(rng() % (1023 - 53 + 1074));
      break;
  }
  int spread = std::vector<int>{0, 2, 8, 60, 200, 2000}[rng() % 6];
  std::vector<double> x;
  for (size_t i = 0; i < n; ++i) {
    int r = static_cast<int>(rng() % 100);
    if (r < 2 && !x.empty()) {  // cancel an earlier term exactly
      x.push_back(-x[rng() % x.size()]);
      continue;
    }
    if (r < 3) {  // the extremes themselves
      const double ext[] = {DBL_MAX, -DBL_MAX, DBL_MIN, 0x1p-1074, -0x1p-1074, 0.0, -0.0};
      x.push_back(ext[rng() % 7]);
      continue;
    }
    int bits = (rng() % 3 == 0) ? 53 : 1 + static_cast<int>(rng() % 8);
    uint64_t m = (rng() >> (64 - bits)) | 1;
    int e = centre + (spread ? static_cast<int>(rng() % (2 * spread + 1)) - spread : 0);
    if (e < -1074) e = -1074;
    if (e > 1023 - 52) e = 1023 - 52;
    double v = std::ldexp(static_cast<double>(m), e);  // exact unless it overflows
    if (std::isinf(v)) v = DBL_MAX;
    if (v == 0) v = 0x1p-1074;
    x.push_back(rng() % 2 ? -v : v);
  }
  return x;
}

inline std::string dump(const std::vector<double>& x) {
  std::ostringstream s;
  s << std::hexfloat << "{";
  for (size_t i = 0; i < x.size() && i < 64; ++i) s << (i ? ", " : "") << x[i];
  if (x.size() > 64) s << ", ... (" << x.size() << " terms)";
  s << "}";
  return s.str();
}

}  // namespace accsum::test

// ---- generated cases across every distribution of datasets/dataset.hpp ----
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

namespace accsum::test {

struct GenCase {
  GenSpec spec;
  std::vector<double> x, y;
  std::string describe() const {
    std::ostringstream s;
    s << spec.family << " dist=" << spec.dist << " n=" << spec.n << " seed=" << spec.seed << " range=" << spec.range
      << " cond=" << spec.cond;
    return s.str();
  }
};

// `count` cases cycling through every distribution, with dynamic ranges up to 1e300 and
// condition numbers up to 1e300, n drawn log-uniformly from [min_n, max_n].
inline std::vector<GenCase> generated_cases(const std::string& family, int count, uint64_t seed, int64_t min_n = 1,
                                            int64_t max_n = 40) {
  static const double ranges[] = {1, 1e10, 1e50, 1e100, 1e300};
  static const double conds[] = {1e3, 1e16, 1e30, 1e100, 1e300};
  std::mt19937_64 rng(seed);
  const auto& dists = dist_names();
  std::vector<GenCase> out;
  out.reserve(count);
  for (int c = 0; c < count; ++c) {
    GenCase g;
    g.spec.family = family;
    g.spec.with_y = accsum::family(g.spec.family).has_y;
    g.spec.dist = dists[c % dists.size()];
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    g.spec.n = static_cast<int64_t>(
        std::exp(std::log(double(min_n)) + u * (std::log(double(max_n) + 1) - std::log(double(min_n)))));
    g.spec.n = std::max(min_n, std::min(max_n, g.spec.n));
    if (g.spec.dist == "ties" && g.spec.n < 2) g.spec.n = 2;
    g.spec.seed = rng() % 1000000;
    g.spec.range = ranges[rng() % 5];
    g.spec.cond = conds[rng() % 5];
    g.x.resize(g.spec.n);
    if (g.spec.with_y) g.y.resize(g.spec.n);
    if (counter_based(g.spec.dist)) {
      generate_range(g.spec, 0, g.spec.n, g.x.data(), g.spec.with_y ? g.y.data() : nullptr);
    } else {
      Dataset d = generate(g.spec);
      g.x = d.x;
      g.y = d.y;
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace accsum::test
