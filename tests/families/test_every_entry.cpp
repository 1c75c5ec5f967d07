// The generic harness, in the spirit of MPFR's tests/tgeneric.c: every registered entry of every
// family, on every backend present, on the family's edge cases, held by the one judge `accsum
// verify` uses (app/harness.hpp: the promised guarantee against the exact oracle, the proven bound
// inside its domain, the IEEE rule, reproducibility where promised); an entry that promises
// reproducibility must also give the bits of the cpu entry of the same algorithm, its serial
// definition. A new algorithm gets these tests by registering.
//
// Edge cases: n = 0 and n = 1, each of the family's verify generators at its smallest nonzero
// verify size (seed 1), and for sums and dot products a hand corpus (signed zeros, subnormals,
// overflow with cancellation, a huge range, exact cancellation, NaN and infinities).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "app/harness.hpp"
#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"
#include "tests/same_bits.hpp"
#include "tests/special_values.hpp"

namespace accsum {
namespace {

using test::kInf;
using test::kMinSub;

// Sums: x only; dot products: x and y, the same length.
struct HandCase {
  std::string name;
  std::vector<double> x, y;
};

std::vector<HandCase> hand_corpus(bool dot) {
  std::vector<HandCase> c = {
      {"one", {0x1.fffffffffffffp-3}, {}},
      {"signed_zeros_neg", {-0.0, -0.0, -0.0}, {}},
      {"signed_zeros_mixed", {-0.0, 0.0, -0.0}, {}},
      {"subnormals", {kMinSub, 3 * kMinSub, -kMinSub, 0x1p-1060, -0x1.8p-1070}, {}},
      {"overflow_cancel", {DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, 1.0}, {}},
      {"huge_range", {0x1p1000, 1.0, -0x1p1000, 0x1p-1000, 3.0, -0x1p-1000}, {}},
      {"exact_cancel", {1e300, 1.0, -1e300, -1.0, 0x1p-52}, {}},
      {"nan", {1.0, std::nan(""), 2.0}, {}},
      {"both_infinities", {kInf, 1.0, -kInf}, {}},
  };
  if (dot)
    for (auto& k : c) {
      k.y.assign(k.x.size(), 1.0);
      if (k.name == "overflow_cancel") k.y = {2.0, 2.0, -1.0, -1.0, 0x1p-60};  // finite products past DBL_MAX
      if (k.name == "subnormals") k.y = {0x1p-20, 1.0, 0x1p30, -1.0, 0x1p-2};  // products below the normal range
    }
  return c;
}

Dataset hand_dataset(const std::string& family, const HandCase& k) {
  Dataset d;
  d.family = family;
  d.generator = "edge:" + k.name;
  d.x = k.x;
  d.y = k.y;
  d.n = static_cast<int64_t>(k.x.size());
  d.id = next_dataset_id();
  return d;
}

// The family's edge cases: n = 0, then each verify generator at n = 1 and at its smallest
// nonzero verify size, then the hand corpus of sums and dot products.
std::vector<Dataset> edge_cases(const FamilyDescriptor& fam) {
  std::vector<Dataset> out;
  Dataset empty;
  empty.family = fam.name;
  empty.generator = "empty";
  empty.id = next_dataset_id();
  out.push_back(empty);
  int64_t smallest = 0;
  for (int64_t n : fam.verify_sizes(false))
    if (n > 0 && (smallest == 0 || n < smallest)) smallest = n;
  for (auto& c : fam.verify_cases(false))
    for (int64_t n : {int64_t(1), smallest}) {
      if (n <= 0) continue;
      try {
        out.push_back(fam.generate(GenSpec{c.dist, fam.name, n, 1, 1e16, 1e16, c.options}));
      } catch (const UsageError&) {  // e.g. an ill-conditioned set needs more elements than n
      }
    }
  if (fam.ieee_reduction)
    for (auto& k : hand_corpus(fam.has_y)) out.push_back(hand_dataset(fam.name, k));
  return out;
}

bool backend_present(const std::string& name) {
  const BackendInfo* b = registry().backend(name);
  return b && b->available && b->available();
}

std::string label(const AlgoEntry& e, const Dataset& d) {
  return e.algo + " on " + e.backend + ", " + d.family + " " + d.generator + " n=" + std::to_string(d.n);
}

// The values one run of the entry gives on d (the judged run's are not kept by the harness).
std::vector<double> values_of(const AlgoEntry& e, const Params& params, const Dataset& d) {
  auto kernel = e.make(d.problem(), params);
  kernel->execute();
  return kernel->result().values;
}

TEST(EveryEntry, KeepsItsPromiseOnTheEdgeCasesOfItsFamily) {
  const cli::MeasureOptions opt{1, 0, true};
  int compared = 0;
  std::map<std::string, int> judged;  // per backend
  std::vector<std::string> refused;
  for (const FamilyDescriptor& fam : families()) {
    for (const Dataset& d : edge_cases(fam)) {
      cli::RunRecord run = cli::begin_run(d);
      std::map<std::string, std::vector<double>> cpu_bits;  // algo -> its cpu entry's values on d
      std::vector<std::pair<const AlgoEntry*, std::vector<double>>> others;
      for (const AlgoEntry& e : registry().entries()) {
        if (e.family != fam.name || !backend_present(e.backend)) continue;
        const Params params = registry().resolve_params(e, {});
        cli::ResultRow row;
        try {
          row = cli::measure_entry(e, params, run, opt);
        } catch (const UsageError& why) {  // a refusal of this input (one clear line in the CLI), not a result
          refused.push_back(label(e, d) + ": " + why.what());
          continue;
        }
        EXPECT_TRUE(row.guarantee_met) << label(e, d) << ": " << row.violation;
        ++judged[e.backend];
        if (!e.reproducible || !row.error.empty()) continue;
        if (e.backend == "cpu")
          cpu_bits[e.algo] = values_of(e, params, d);
        else
          others.emplace_back(&e, values_of(e, params, d));
      }
      for (auto& [e, values] : others) {
        auto cpu = cpu_bits.find(e->algo);
        if (cpu == cpu_bits.end()) continue;  // no serial definition on the cpu backend
        EXPECT_TRUE(test::all_same_bits(values, cpu->second)) << label(*e, d) << ": not the cpu entry's bits";
        ++compared;
      }
    }
  }
  std::string seen;
  for (auto& [b, k] : judged) seen += " " + b + ":" + std::to_string(k);
  std::printf("[ NOTICE ] judged runs per backend:%s; %d compared bit for bit with the cpu entry\n", seen.c_str(),
              compared);
  for (auto& r : refused) std::printf("[ NOTICE ] refused: %s\n", r.c_str());
  EXPECT_GT(judged["cpu"], 0);
  EXPECT_GT(judged["cpu-mt"], 0);
  EXPECT_GT(compared, 0);
}

// The judge holds a reproducibility claim to its scope: an order-sensitive sum (the cpu `naive`
// entry) claiming the same bits for any order fails on data whose permutation changes its value;
// claiming them for the same order only, it is checked across runs (and shapes) and passes, and the
// row says which checks ran.
TEST(EveryEntry, ReproducibilityClaimIsJudgedInItsScope) {
  const AlgoEntry* naive = registry().find("naive", "cpu");
  ASSERT_NE(naive, nullptr);
  Dataset d;
  d.family = "sum";
  d.generator = "edge:order_sensitive";
  for (double v : {0x1p100, -0x1p100, 1.0}) d.x.insert(d.x.end(), 64, v);  // in this order the sum is 64
  d.n = static_cast<int64_t>(d.x.size());
  d.id = next_dataset_id();
  const Params params = registry().resolve_params(*naive, {});
  ASSERT_FALSE(test::all_same_bits(values_of(*naive, params, d), values_of(*naive, params, permuted_copy(d))))
      << "the permutation must change the naive sum for this test to mean anything";
  const cli::MeasureOptions opt{1, 0, true};
  cli::RunRecord run = cli::begin_run(d);

  AlgoEntry any_order = *naive;
  any_order.promises_reproducible();
  const cli::ResultRow broken = cli::measure_entry(any_order, params, run, opt);
  EXPECT_FALSE(broken.guarantee_met);
  EXPECT_FALSE(broken.reproducible);
  EXPECT_NE(broken.violation.find("not reproducible"), std::string::npos) << broken.violation;

  AlgoEntry same_order = *naive;
  same_order.promises_reproducible_for_the_same_order();
  EXPECT_EQ(same_order.reproducible_word(), "same order");
  const cli::ResultRow kept = cli::measure_entry(same_order, params, run, opt);
  EXPECT_TRUE(kept.guarantee_met) << kept.violation;
  EXPECT_TRUE(kept.reproducible);
  EXPECT_EQ(std::count(kept.repro_checks.begin(), kept.repro_checks.end(), "permutation"), 0);
  EXPECT_EQ(std::count(broken.repro_checks.begin(), broken.repro_checks.end(), "permutation"), 1);
}

// The guarantee column and the bound column never contradict: an entry with a proven bound is
// held to it (a row above it breaks its guarantee), so it promises at least that bound, never
// `none`; an entry that promises `bound` or `k-fold` states the bound it is held to. Checked for
// every registered entry at its defaults and at every swept value of each parameter (a parameter
// may change the guarantee, e.g. sgemm-ozaki's accuracy).
TEST(EveryEntry, PromisesTheBoundItIsHeldTo) {
  int checked = 0;
  for (const AlgoEntry& e : registry().entries()) {
    std::vector<Params> sets{registry().resolve_params(e, {})};
    for (const ParamSpec& spec : e.params)
      for (const std::string& v : swept_values(spec)) sets.push_back(registry().resolve_params(e, {{spec.name, v}}));
    for (const Params& p : sets) {
      const Guarantee g = e.guarantee_for(p);
      const std::string where = e.algo + " on " + e.backend + " promises " + to_string(g);
      if (e.bound) {
        EXPECT_NE(g, Guarantee::none) << where << " but is held to its bound (" << e.bound_cite << ")";
      }
      if (g == Guarantee::bound || g == Guarantee::kfold) {
        EXPECT_TRUE(e.bound) << where << " and states no bound";
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace accsum
