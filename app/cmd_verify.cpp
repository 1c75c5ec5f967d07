// accsum verify: every selected algorithm x backend on a sweep of distributions, sizes and
// seeds, held to its declared guarantee. Exit 1 when any result breaks it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "app/commands.hpp"
#include "app/harness.hpp"
#include "app/parse.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"

namespace accsum::cli {

namespace {

struct Case {
  std::string dist;
  double range = 0, cond = 0;
};

std::vector<Case> sweep_cases(bool full) {
  std::vector<Case> c{{"uniform"}, {"uniform-sym"}, {"subnormal"}, {"ties"}, {"overflow-cancel"}, {"specials"}};
  for (double r : full ? std::vector<double>{1, 1e10, 1e50, 1e100, 1e200, 1e300} : std::vector<double>{1, 1e50, 1e300})
    c.push_back({"loguniform", r, 0});
  for (double k : full ? std::vector<double>{1e5, 1e10, 1e20, 1e30, 1e50, 1e100, 1e200, 1e300}
                       : std::vector<double>{1e10, 1e30, 1e100, 1e300})
    c.push_back({"illcond", 0, k});
  return c;
}

struct Tally {
  const AlgoEntry* entry = nullptr;
  int cases = 0, violations = 0, errors = 0;
  double worst_ulps = 0, min_digits = 16;
  std::string first_violation;
};

}  // namespace

int run_verify(const VerifyArgs& a, const std::vector<std::string>& argv) {
  auto sel = select(a.algo, a.backend, a.params, /*add_baselines=*/false);
  if (!a.out.json.empty()) check_writable(a.out.json);
  if (!a.out.out.empty()) check_writable(a.out.out);
  std::vector<int64_t> sizes = a.full ? std::vector<int64_t>{0, 1, 2, 3, 7, 100, 1000, 4097, 100003, 1 << 20}
                                      : std::vector<int64_t>{0, 1, 2, 3, 7, 100, 1000, 4097};
  int seeds = a.seeds > 0 ? a.seeds : (a.full ? 5 : 2);
  if (seeds > 1000) throw UsageError("--seeds must be at most 1000");
  MeasureOptions opt{1, 0, true};

  std::map<const AlgoEntry*, Tally> tally;
  for (auto& s : sel) tally[s.entry].entry = s.entry;
  std::vector<std::unique_ptr<Dataset>> keep;
  std::vector<RunRecord> runs;
  int skipped = 0;
  int64_t units = 0;  // for the progress bar: the (family, case, n, seed) loop below
  for (const std::string fam : {"sum", "dot"})
    if (std::any_of(sel.begin(), sel.end(), [&](const Selection& s) { return s.entry->family == fam; }))
      for (auto& c : sweep_cases(a.full))
        units += static_cast<int64_t>(sizes.size()) * (c.dist == "specials" ? std::max(seeds, 6) : seeds);
  Progress progress("verify", units);
  for (const std::string fam : {"sum", "dot"}) {
    bool wanted = std::any_of(sel.begin(), sel.end(), [&](const Selection& s) { return s.entry->family == fam; });
    if (!wanted) continue;
    for (auto& c : sweep_cases(a.full))
      for (int64_t n : sizes)
        // specials picks its special values by seed % 6: six seeds see every IEEE case.
        for (int seed = 1; seed <= (c.dist == "specials" ? std::max(seeds, 6) : seeds); ++seed) {
          progress.tick(fmt::format("{} {} n={} seed {}", fam, c.dist, n, seed));
          auto d = std::make_unique<Dataset>();
          if (n == 0) {
            if (c.dist != "uniform" || seed > 1) continue;  // one empty case per family
            d->family = fam;
            d->generator = "empty";
            d->id = next_dataset_id();
          } else {
            try {
              *d = generate(GenSpec{c.dist, fam, n, static_cast<uint64_t>(seed), c.range ? c.range : 1e16,
                                    c.cond ? c.cond : 1e16});
            } catch (const UsageError&) {
              ++skipped;  // e.g. an ill-conditioned set needs more elements than n
              continue;
            }
          }
          RunRecord run;
          run.dataset = d.get();
          run.reference = reference_of(*d);
          run.dynamic_range_log10 = dynamic_range_log10_of(*d);
          for (auto& s : sel) {
            if (s.entry->family != fam) continue;
            for (auto& p : s.param_sets) {
              ResultRow row = measure_entry(*s.entry, p, *d, run.reference, opt);
              Tally& t = tally[s.entry];
              ++t.cases;
              if (!row.error.empty()) ++t.errors;
              if (!row.guarantee_met) {
                ++t.violations;
                if (t.first_violation.empty())
                  t.first_violation = fmt::format("{} n={} seed={}{}: {}", c.dist, n, seed,
                                                  c.range ? fmt::format(" range={:g}", c.range)
                                                          : c.cond ? fmt::format(" cond={:g}", c.cond) : "",
                                                  row.violation);
              }
              if (row.error.empty() && !run.reference.special && std::isfinite(row.metrics.ulps))
                t.worst_ulps = std::max(t.worst_ulps, row.metrics.ulps);
              if (row.error.empty() && !run.reference.special) t.min_digits = std::min(t.min_digits, row.metrics.digits);
              run.rows.push_back(std::move(row));
            }
          }
          if (!a.out.json.empty()) {
            runs.push_back(std::move(run));
            keep.push_back(std::move(d));
          }
        }
  }

  progress.finish();
  int violations = 0;
  std::string text = fmt::format("{:<14} {:<8} {:<26} {:>7} {:>10} {:>11} {:>10}  {}\n", "algo", "backend", "guarantee",
                                 "cases", "violations", "worst ulps", "min digits", "first violation");
  for (auto& s : sel) {
    Tally& t = tally[s.entry];
    violations += t.violations;
    text += fmt::format("{:<14} {:<8} {:<26} {:>7} {:>10} {:>11} {:>10.1f}  {}\n", s.entry->algo, s.entry->backend,
                        std::string(to_string(s.entry->guarantee)) + (s.entry->reproducible ? "+repro" : ""), t.cases,
                        t.violations, json_number_or_string(t.worst_ulps), t.min_digits, t.first_violation);
  }
  text += fmt::format("{} result(s) broke their guarantee; {} generator case(s) skipped (n too small for them)\n",
                      violations, skipped);
  emit(a.out, text);
  if (!a.out.json.empty() && process_rank() == 0)
    write_atomic(a.out.json, report_json(runs, argv, backends_of(sel)).dump(1) + "\n");
  return violations ? 1 : 0;
}

}  // namespace accsum::cli
