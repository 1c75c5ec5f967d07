// The device definition of QD's double-double and quad-double addition and multiplication
// (core/qd_ops.hpp, Hida, Li, Bailey 2001) against the QD library itself: bit for bit on every
// fpe generator (zeros with their signs included), and QD's leading-infinity rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/family.hpp"
#include "core/family_fpe.hpp"
#include "core/qd_ops.hpp"
#include "core/registry.hpp"

using namespace accsum;

namespace {

Dataset make(const std::string& dist, int R, int64_t n, uint64_t seed) {
  GenSpec s;
  s.dist = dist;
  s.family = "fpe";
  s.n = n;
  s.seed = seed;
  s.options = {{"R", std::to_string(R)}};
  return family("fpe").generate(s);
}

std::vector<double> run_cpu(const std::string& algo, const Dataset& d) {
  const AlgoEntry* e = registry().find(algo, "cpu");
  if (!e) return {};
  auto k = e->make(d.problem(), registry().resolve_params(*e, {}));
  k->execute();
  return k->result().values;
}

std::string hex_terms(const double* v, int R) {
  std::string s;
  for (int i = 0; i < std::min(R, 4); ++i) s += hex_double(v[i]) + " ";
  return s;
}

}  // namespace

TEST(QdOps, BitIdenticalToTheQdLibrary) {
  if (!registry().find("fpe-qd-add", "cpu")) GTEST_SKIP() << "built without the QD library";
  int64_t compared = 0;
  for (int R : {2, 4, 8})
    for (auto& dist : fpe_dist_names()) {
      if (dist == "specials") continue;
      for (uint64_t seed : {1, 2, 3}) {
        Dataset d = make(dist, R, 3000, seed);
        for (bool product : {false, true}) {
          std::vector<double> want = run_cpu(product ? "fpe-qd-mul" : "fpe-qd-add", d);
          ASSERT_EQ(want.size(), d.x.size());
          std::vector<double> got(d.x.size());
          for (int64_t k = 0; k < d.n; ++k) {
            const double *x = &d.x[k * R], *y = &d.y[k * R];
            if (product) qd::mul(x, y, &got[k * R], R);
            else qd::add(x, y, &got[k * R], R);
            ASSERT_EQ(0, std::memcmp(&got[k * R], &want[k * R], R * sizeof(double)))
                << (product ? "mul" : "add") << " R=" << R << " " << dist << " seed=" << seed << " pair " << k
                << ": x " << hex_terms(x, R) << " y " << hex_terms(y, R) << " got " << hex_terms(&got[k * R], R)
                << " want " << hex_terms(&want[k * R], R);
            ++compared;
          }
        }
      }
    }
  EXPECT_EQ(compared, 3 * 4 * 3 * 2 * 3000);
}

// A leading infinity: returned unnormalised (the error terms of inf - inf would be NaN).
TEST(QdOps, LeadingInfinityStaysInfinite) {
  const double inf = std::numeric_limits<double>::infinity();
  const double x[4] = {inf, 0, 0, 0}, y[4] = {1, 0x1p-60, 0, 0};
  double s[4];
  qd::qd_add(x, y, s);
  EXPECT_EQ(s[0], inf);
  qd::dd_add(x, y, s);
  EXPECT_FALSE(std::isfinite(s[0]));
  const double nan[4] = {std::nan(""), 0, 0, 0};
  qd::qd_mul(nan, y, s);
  EXPECT_TRUE(std::isnan(s[0]));
}
