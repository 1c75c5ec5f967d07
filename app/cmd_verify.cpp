// accsum verify: every selected algorithm x backend on a sweep of distributions, sizes and
// seeds, held to its declared guarantee. Exit 1 when any result breaks it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <optional>
#include <memory>
#include <utility>

#include "app/commands.hpp"
#include "app/counterexample.hpp"
#include "app/harness.hpp"
#include "app/parse.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "app/text_table.hpp"
#include "core/frame/verify_corpus.hpp"

namespace accsum::cli {

namespace {

struct Tally {
  const AlgoEntry* entry = nullptr;
  int cases = 0, violations = 0, errors = 0;
  double worst_ulps = 0, min_digits = 16;
  std::string first_violation;
  std::string counterexample;  // where the shrunk failing input went, and the command
};

// Every value of each parameter the user left open that changes the numerics (twoprod
// fma|dekker, variant tree|fused, renormalize 0..1, a plugin's integer range at its ends and
// log-spaced points, ...; swept_values): a guarantee must hold for each.
void expand_choices(Selection& s, const ParamLists& given) {
  for (auto& spec : s.entry->params) {
    if (!spec.verify_every_choice || given.count(spec.name)) continue;
    const auto choices = swept_values(spec);
    if (choices.empty())  // a registration error: the sweep would be empty
      throw std::logic_error(s.entry->algo + ": parameter " + spec.name + " is swept by verify but has no values");
    std::vector<Params> next;
    for (auto& base : s.param_sets)
      for (auto& c : choices) {
        Params p = base;
        p[spec.name] = c;
        next.push_back(p);
      }
    s.param_sets = next;
  }
}

}  // namespace

int run_verify(const VerifyArgs& a, const std::vector<std::string>& argv) {
  auto sel = select(a.algo, a.backend, a.params, /*add_baselines=*/false);
  for (auto& s : sel) expand_choices(s, a.params);
  check_outputs(a.out);
  const int seeds = a.seeds > 0 ? a.seeds : (a.full ? 5 : 2);
  MeasureOptions opt{1, 0, true};
  // --format=json: the report itself on stdout (or -o); other formats: the summary table there.
  const bool json_out = a.out.format == "json";
  OutArgs json_only;
  json_only.json = a.out.json;
  Reporters reporters(json_out ? a.out : json_only, argv, backends_of(sel), /*text_to_stdout=*/json_out);
  const std::string ce_dir = counterexample_dir(a.out.json, a.out.out);

  std::map<const AlgoEntry*, Tally> tally;
  for (auto& s : sel) tally[s.entry].entry = s.entry;
  int skipped = 0;
  auto wanted = [&](const FamilyDescriptor& f) {
    return std::any_of(sel.begin(), sel.end(), [&](const Selection& s) { return s.entry->family == f.name; });
  };
  int64_t units = 0;  // for the progress bar: the (family, case, n, seed) loop below
  for (auto& fam : families())
    if (wanted(fam))
      for (auto& c : fam.verify_cases(a.full))
        units += static_cast<int64_t>(fam.verify_sizes(a.full).size()) * std::max(seeds, c.min_seeds);
  Progress progress("verify", units);
  for (auto& fam : families()) {
    if (!wanted(fam)) continue;
    bool empty_done = false;
    for (auto& c : fam.verify_cases(a.full))
      for (int64_t n : fam.verify_sizes(a.full))
        for (int seed = 1; seed <= std::max(seeds, c.min_seeds); ++seed) {
          progress.tick(fmt::format("{} {} n={} seed {}", fam.name, c.dist, n, seed));
          if (n == 0 && std::exchange(empty_done, true)) continue;  // one empty case per family
          std::optional<Dataset> made = verify_dataset(fam, c, n, seed);
          if (!made) {
            ++skipped;
            continue;
          }
          Dataset& d = *made;
          if (a.dry_run) {  // the cases counted, nothing run or judged
            for (auto& s : sel)
              if (s.entry->family == fam.name) tally[s.entry].cases += static_cast<int>(s.param_sets.size());
            continue;
          }
          RunRecord run = begin_run(d);
          std::vector<std::pair<const AlgoEntry*, Params>> to_shrink;  // first violation of an entry
          for (auto& s : sel) {
            if (s.entry->family != fam.name) continue;
            for (auto& p : s.param_sets) {
              ResultRow row = measure_entry(*s.entry, p, run, opt);
              Tally& t = tally[s.entry];
              ++t.cases;
              if (!row.error.empty()) ++t.errors;
              if (!row.guarantee_met) {
                ++t.violations;
                if (t.first_violation.empty()) {
                  t.first_violation = case_label(c, n, seed) + ": " + row.violation;
                  if (row.error.empty()) to_shrink.push_back({s.entry, p});  // a broken claim, not a failed run
                }
              }
              if (row.error.empty() && !run.reference.special && std::isfinite(row.metrics.ulps))
                t.worst_ulps = std::max(t.worst_ulps, row.metrics.ulps);
              if (row.error.empty() && !run.reference.special)
                t.min_digits = std::min(t.min_digits, row.metrics.digits);
              run.rows.push_back(std::move(row));
            }
          }
          for (auto& [entry, params] : to_shrink) {
            progress.status(fmt::format("shrinking a counter-example of {} on {}", entry->algo, entry->backend));
            try {
              CounterExample ce = write_counterexample(*entry, params, d, opt, ce_dir);
              tally[entry].counterexample = fmt::format(
                  "counter-example: {} on {} breaks its claim on {} element(s) (shrunk from {}: {}): {}\n  reproduce: "
                  "{}\n",
                  entry->algo, entry->backend, ce.n_kept, ce.n_found, case_label(c, n, seed), printable(ce.path),
                  printable(ce.command));
            } catch (const UsageError& e) {  // e.g. a family whose datasets are not written: the sweep goes on
              tally[entry].counterexample =
                  fmt::format("counter-example of {} on {} ({}) not written: {}\n", entry->algo, entry->backend,
                              case_label(c, n, seed), printable(e.what()));
            }
          }
          if (!to_shrink.empty()) begin_run(d);  // the crash report names this dataset again
          reporters.dataset_done(run);
        }
  }

  progress.finish();
  int violations = 0, untested = 0;
  TextRows table{
      {"algo", "backend", "guarantee", "cases", "violations", "worst ulps", "min digits", "first violation"}};
  for (auto& s : sel) {
    Tally& t = tally[s.entry];
    violations += t.violations;
    if (t.cases == 0) {  // a verify that checked nothing cannot pass
      ++untested;
      if (t.first_violation.empty()) t.first_violation = "UNTESTED: no case ran";
    }
    const std::vector<std::string> promised = s.entry->guarantees_for(s.param_sets);  // --accuracy may change it
    table.push_back({s.entry->algo, s.entry->backend,
                     fmt::format("{}", fmt::join(promised, "|")) + (s.entry->reproducible ? "+repro" : ""),
                     std::to_string(t.cases), std::to_string(t.violations), json_number_or_string(t.worst_ulps),
                     fmt::format("{:.1f}", t.min_digits), printable(t.first_violation)});
  }
  std::string notes;
  for (auto& s : sel) notes += tally[s.entry].counterexample;
  notes += fmt::format("{} result(s) broke their guarantee; {} generator case(s) skipped (n too small for them)\n",
                       violations, skipped);
  if (untested) notes += fmt::format("{} algorithm(s) ran no case: verify fails\n", untested);
  if (json_out || a.out.format == "csv") {  // machine-readable output keeps stdout (or -o) to itself
    reporters.finish(json_out ? std::vector<OutputItem>{} : std::vector<OutputItem>{{a.out.out, csv_table(table)}},
                     a.out.out.empty() && !json_out ? csv_table(table) : "");
    std::fputs(notes.c_str(), stderr);
  } else {
    const std::string text = a.out.format == "md" ? markdown_table(table) + "\n" + notes : aligned_table(table) + notes;
    reporters.finish({{a.out.out, text}}, a.out.out.empty() ? text : "");
  }
  return violations || untested ? 1 : 0;
}

}  // namespace accsum::cli
