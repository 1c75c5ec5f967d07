// The IEEE 754 rule for special values (core/frame/ieee_special.hpp) on every registered algorithm and
// every backend present: NaN in -> NaN, +inf with -inf -> NaN, one infinity -> that infinity, also
// when the finite values overflow before it. Iterates the registry, so new algorithms are covered.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/frame/ieee_special.hpp"
#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "tests/special_values.hpp"

namespace accsum {
namespace {

using test::kInf;
using test::kNaN;

struct Case {
  std::string name;
  std::vector<double> x, y;  // y empty for sums
  double expect;             // NaN means "expect NaN"
};

// Pads a short case to n elements with zeros placed before the special tail, so the specials and
// the overflowing terms land in different threads / work-groups / blocks on parallel backends.
std::vector<double> spread(const std::vector<double>& v, int64_t n) {
  std::vector<double> out(n, 0.0);
  for (size_t i = 0; i < v.size(); ++i) out[(n - 1) * i / std::max<size_t>(1, v.size() - 1)] = v[i];
  return out;
}

std::vector<Case> sum_cases() {
  std::vector<Case> c = {
      {"max_max_neginf", {DBL_MAX, DBL_MAX, -kInf}, {}, -kInf},
      {"negmax_negmax_posinf", {-DBL_MAX, -DBL_MAX, kInf}, {}, kInf},
      {"posinf_then_overflow", {kInf, -DBL_MAX, -DBL_MAX, 1.0}, {}, kInf},
      {"max_max_neginf_max", {DBL_MAX, DBL_MAX, -kInf, DBL_MAX}, {}, -kInf},
      {"inf_and_neginf", {1.0, kInf, 2.0, -kInf}, {}, kNaN},
      {"nan", {1.0, 2.0, kNaN, 3.0}, {}, kNaN},
      {"nan_and_inf", {kInf, kNaN}, {}, kNaN},
      {"one_inf", {1.0, kInf, 2.0}, {}, kInf},
  };
  size_t m = c.size();
  for (size_t i = 0; i < m; ++i) c.push_back({c[i].name + "_spread", spread(c[i].x, 100003), {}, c[i].expect});
  return c;
}

std::vector<Case> dot_cases() {
  std::vector<Case> c = {
      // finite products that overflow in floating point, then an infinite product
      {"overflowing_products_then_neginf", {DBL_MAX, DBL_MAX, kInf}, {2.0, 2.0, -1.0}, -kInf},
      {"max_max_neginf", {DBL_MAX, DBL_MAX, -kInf}, {1.0, 1.0, 1.0}, -kInf},
      {"neg_overflow_then_posinf", {-DBL_MAX, DBL_MAX, -kInf}, {4.0, -4.0, -0.5}, kInf},
      {"inf_times_zero", {1.0, kInf, 2.0}, {1.0, 0.0, 3.0}, kNaN},
      {"inf_and_neginf_products", {kInf, 1.0, kInf}, {1.0, 1.0, -1.0}, kNaN},
      {"nan", {1.0, kNaN}, {1.0, 1.0}, kNaN},
      {"one_inf", {1.0, 2.0, 3.0}, {1.0, -kInf, 3.0}, -kInf},
  };
  size_t m = c.size();
  for (size_t i = 0; i < m; ++i) {
    auto y = spread(c[i].y, 100003);
    for (auto& v : y)
      if (v == 0) v = 1.0;  // the padding products are x * 1 = 0
    // keep the deliberate zero factor of inf_times_zero
    if (c[i].name == "inf_times_zero") y[(100003 - 1) * 1 / 2] = 0.0;
    c.push_back({c[i].name + "_spread", spread(c[i].x, 100003), y, c[i].expect});
  }
  return c;
}

bool matches(double got, double expect) {
  if (std::isnan(expect)) return std::isnan(got);
  return got == expect;
}

TEST(IeeeRule, SpecialOutcomeScans) {
  std::vector<double> x = {DBL_MAX, DBL_MAX, -kInf};
  EXPECT_EQ(special_outcome_sum(x.data(), 3), SpecialOutcome::neg_inf);
  EXPECT_EQ(special_outcome_sum(x.data(), 2), SpecialOutcome::none);
  std::vector<double> a = {DBL_MAX, kInf}, b = {DBL_MAX, 0.0};
  EXPECT_EQ(special_outcome_dot(a.data(), b.data(), 1), SpecialOutcome::none);  // overflow is not special
  EXPECT_EQ(special_outcome_dot(a.data(), b.data(), 2), SpecialOutcome::nan);   // inf * 0
  // the finite path is untouched, and data without specials keep the computed result
  EXPECT_EQ(ieee_result(1.5, x.data(), nullptr, 3), 1.5);
  EXPECT_EQ(ieee_result(kInf, x.data(), nullptr, 2), kInf);
  EXPECT_EQ(ieee_result(kNaN, x.data(), nullptr, 3), -kInf);
}

// Every algorithm x every backend present x every case.
TEST(IeeeRule, EveryRegisteredAlgorithm) {
  const auto sums = sum_cases(), dots = dot_cases();
  int checked = 0;
  std::vector<std::string> skipped;
  for (const AlgoEntry& e : registry().entries()) {
    try {
      require_backend(e.backend);
    } catch (const UsageError&) {
      skipped.push_back(e.algo + "/" + e.backend);
      continue;
    }
    const FamilyDescriptor* fam = find_family(e.family);
    if (!fam || !fam->ieee_reduction) continue;  // the rule is for sums and dot products
    const Params params = registry().resolve_params(e, {});
    const bool dot = fam->has_y;
    for (const Case& c : dot ? dots : sums) {
      Problem p = Problem::vectors(c.x.data(), dot ? c.y.data() : nullptr, static_cast<int64_t>(c.x.size()), 0);
      static uint64_t id = 0x1eee0000;
      p.id = ++id;
      double got = e.make(p, params)->run_scalar();
      EXPECT_TRUE(matches(got, c.expect))
          << e.algo << " on " << e.backend << ", case " << c.name << ": got " << got << ", expected " << c.expect;
      ++checked;
    }
  }
  if (!skipped.empty()) {
    std::string s;
    for (auto& k : skipped) s += " " + k;
    std::printf("[ NOTICE ] backends not present, skipped:%s\n", s.c_str());
  }
  // at least the cpu and cpu-mt entries ran
  EXPECT_GE(checked, 10 * static_cast<int>(sums.size()));
}

}  // namespace
}  // namespace accsum
