// accsum bench: datasets x selected (algorithm, backend, parameters) + baselines, timed and
// checked against the exact reference.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/commands.hpp"
#include "app/harness.hpp"
#include "app/memcheck.hpp"
#include "app/parse.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"

namespace accsum::cli {

bool progress_enabled() { return isatty(2) && process_rank() == 0; }

void emit(const OutArgs& o, const std::string& text) {
  if (process_rank() != 0) return;
  if (!o.out.empty()) write_atomic(o.out, text);
  else std::cout << text << std::flush;
}

namespace {

// The dataset specs a DataArgs asks for, for one family.
std::vector<GenSpec> specs_of(const DataArgs& d, const std::string& family) {
  std::string dist = d.dist;
  if (dist.empty()) dist = !d.range.empty() ? "loguniform" : !d.cond.empty() ? "illcond" : "uniform";
  std::vector<double> ranges{1e16}, conds{1e16};
  if (!d.range.empty()) {
    ranges.clear();
    for (auto& r : split_list(d.range)) ranges.push_back(parse_positive(r, "--range"));
  }
  if (!d.cond.empty()) {
    conds.clear();
    for (auto& c : split_list(d.cond)) conds.push_back(parse_positive(c, "--cond"));
  }
  if (!d.range.empty() && dist != "loguniform") throw UsageError("--range applies to --dist=loguniform only");
  if (!d.cond.empty() && dist != "illcond") throw UsageError("--cond applies to --dist=illcond only");
  std::vector<GenSpec> out;
  for (int64_t n : parse_sizes(d.n)) {
    if (dist == "loguniform")
      for (double r : ranges) out.push_back(GenSpec{dist, family, n, d.seed, r, 1e16});
    else if (dist == "illcond")
      for (double c : conds) out.push_back(GenSpec{dist, family, n, d.seed, 1e16, c});
    else
      out.push_back(GenSpec{dist, family, n, d.seed, 1e16, 1e16});
  }
  return out;
}

// Bytes of the data already in memory (for the memory pre-check).
double held_bytes(const std::vector<std::unique_ptr<Dataset>>& a, const std::vector<std::unique_ptr<Dataset>>& b) {
  double sum = 0;
  for (auto* v : {&a, &b})
    for (auto& d : *v) sum += 8.0 * static_cast<double>(d->x.size() + d->y.size());
  return sum;
}

}  // namespace

int run_bench(const BenchArgs& a, const std::vector<std::string>& argv) {
  auto sel = select(a.algo, a.backend, a.params, /*add_baselines=*/true);
  if (a.reps < 1 || a.reps > 100000) throw UsageError("--reps must be in [1, 100000]");
  if (a.warmup < 0 || a.warmup > 1000) throw UsageError("--warmup must be in [0, 1000]");
  if (!a.out.json.empty()) check_writable(a.out.json);
  if (!a.out.out.empty()) check_writable(a.out.out);

  std::vector<std::string> families;
  for (auto& s : sel)
    if (std::find(families.begin(), families.end(), s.entry->family) == families.end())
      families.push_back(s.entry->family);

  // Datasets live as long as the report (rows point at them).
  std::vector<std::unique_ptr<Dataset>> datasets;
  std::vector<RunRecord> runs;
  MeasureOptions opt{a.reps, a.warmup, !a.no_repro_check};
  bool any_error = false;
  int64_t total_rows = 0;  // for the progress bar: every (dataset, row) of the run
  for (auto& fam : families)
    for (auto& s : sel)
      if (s.entry->family == fam)
        total_rows += static_cast<int64_t>(s.param_sets.size() * (a.data.input.empty() ? specs_of(a.data, fam).size() : 1));
  Progress progress("bench", total_rows);
  for (auto& fam : families) {
    std::vector<std::unique_ptr<Dataset>> batch;
    if (!a.data.input.empty()) {
      if (!a.data.dist.empty() || !a.data.range.empty() || !a.data.cond.empty())
        throw UsageError("--input cannot be combined with --dist, --range or --cond");
      batch.push_back(std::make_unique<Dataset>(read_dataset(a.data.input, fam)));
      check_run_memory(sel, fam, held_bytes(datasets, batch), 0, batch.back()->n, opt.repro_check);
    } else {
      double new_n = 0;  // memory pre-check (app/memcheck.hpp) before generating anything
      int64_t largest = 0;
      for (auto& spec : specs_of(a.data, fam)) new_n += static_cast<double>(spec.n), largest = std::max(largest, spec.n);
      check_run_memory(sel, fam, held_bytes(datasets, batch), new_n, largest, opt.repro_check);
      for (auto& spec : specs_of(a.data, fam)) {
        progress.status(fmt::format("generating {} n={} {}", fam, format_size(spec.n), spec.dist));
        batch.push_back(std::make_unique<Dataset>(generate(spec)));
      }
    }
    for (auto& d : batch) {
      RunRecord run;
      run.dataset = d.get();
      progress.status(fmt::format("exact reference (MPFR) of n={}", format_size(d->n)));
      run.reference = reference_of(*d);
      run.dynamic_range_log10 = dynamic_range_log10_of(*d);
      for (auto& s : sel) {
        if (s.entry->family != fam) continue;
        for (auto& p : s.param_sets) {
          progress.tick(s.entry->algo + " on " + s.entry->backend);
          run.rows.push_back(measure_entry(*s.entry, p, *d, run.reference, opt));
          any_error |= !run.rows.back().error.empty();
        }
      }
      attach_baselines(run.rows);
      runs.push_back(std::move(run));
      datasets.push_back(std::move(d));
    }
  }

  progress.finish();
  // The JSON document is built once, for stdout and/or --json.
  std::string json;
  if (a.out.format == "json" || !a.out.json.empty()) json = report_json(runs, argv, backends_of(sel)).dump(2) + "\n";
  std::string text = a.out.format == "json" ? json
                     : a.out.format == "csv" ? report_csv(runs)
                     : a.out.format == "md"  ? report_markdown(runs)
                                             : report_table(runs);
  emit(a.out, text);
  if (!a.out.json.empty() && process_rank() == 0) write_atomic(a.out.json, json);
  for (auto& r : runs) for (auto& row : r.rows) any_error |= !row.guarantee_met;  // a VIOLATED row fails the run
  return any_error ? 1 : 0;
}

}  // namespace accsum::cli
