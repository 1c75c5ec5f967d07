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
#include "app/inputs.hpp"
#include "app/memcheck.hpp"
#include "app/output.hpp"
#include "app/parse.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "datasets/npy_input.hpp"

namespace accsum::cli {

bool progress_enabled() { return isatty(2) && process_rank() == 0; }

void keep_completed(Reporters& out, const std::string& why, std::vector<OutputItem> files, const std::string& summary) {
  try {
    out.finish_incomplete(why, std::move(files), summary);
  } catch (const UsageError& e) {
    throw UsageError(why + " (and the completed rows could not be written: " + e.what() + ")");
  }
}

void emit(const OutArgs& o, const std::string& text, const std::string& json) {
  if (process_rank() != 0) return;
  write_outputs({{o.out, text}, {o.json, json}});
  if (o.out.empty()) write_stdout(text);
}

namespace {

// Every family the selection touches, in listing order (sums and dots first, as `list` shows them).
std::vector<const FamilyDescriptor*> families_of(const std::vector<Selection>& sel) {
  std::vector<const FamilyDescriptor*> out;
  for (auto* f : families_in_listing_order())
    if (std::any_of(sel.begin(), sel.end(), [&](const Selection& s) { return s.entry->family == f->name; }))
      out.push_back(f);
  return out;
}

void check_options_known(const DataArgs& d, const std::vector<const FamilyDescriptor*>& fams) {
  for (auto& option : d.options) {
    const std::string& name = option.first;  // (clang 14 cannot capture a structured binding)
    bool known = std::any_of(fams.begin(), fams.end(), [&](auto* f) { return find_option(*f, name) != nullptr; });
    if (!known) throw UsageError("no selected algorithm's family takes --" + name);
  }
}

int64_t rows_of(const std::vector<Selection>& sel, const std::string& family) {
  int64_t n = 0;
  for (auto& s : sel)
    if (s.entry->family == family) n += static_cast<int64_t>(s.param_sets.size());
  return n;
}

// Measures every selected entry of the dataset's family and reports it; false when a run
// failed or a row broke its guarantee.
// `spec`: what the data were generated from (none for an input file).
bool bench_dataset(const Dataset& d, const std::vector<Selection>& sel, const MeasureOptions& opt, Reporters& out,
                   Progress& progress, const GenSpec* spec = nullptr) {
  progress.status(fmt::format("exact reference of {} n={}", d.family, format_size(d.n)));
  RunRecord run = begin_run(d);
  std::vector<Pace> baselines;  // each row is timed beside its baseline, repetitions interleaved
  for (auto& s : sel)
    if (s.entry->family == d.family && s.entry->is_baseline)
      for (auto& p : s.param_sets) baselines.push_back({s.entry, p});
  if (spec && process_rank() == 0) warn_if_cond_missed(*spec, run.reference.cond);
  bool ok = true;
  for (auto& s : sel) {
    if (s.entry->family != d.family) continue;
    for (auto& p : s.param_sets) {
      progress.tick(s.entry->algo + " on " + s.entry->backend);
      run.rows.push_back(measure_entry(*s.entry, p, run, opt, pace_for(*s.entry, p, baselines)));
      ok &= run.rows.back().guarantee_met;  // a failed run or a VIOLATED row fails the bench
    }
  }
  attach_baselines(run.rows);
  progress.finish(fmt::format("{} n={} {}", d.family, format_size(d.n), d.generator));
  out.dataset_done(run);
  return ok;
}

// --generate=by-index keeps the entries that make their own data; one the user named that
// cannot is an error, baselines added for comparison that cannot are left out.
void keep_by_index_entries(std::vector<Selection>& sel, const std::string& algos) {
  const auto named = algos == "all" ? std::vector<std::string>{} : split_list(algos);
  std::vector<Selection> kept;
  for (auto& s : sel) {
    if (s.entry->makes_own_data) {
      kept.push_back(s);
    } else if (std::find(named.begin(), named.end(), s.entry->algo) != named.end()) {
      throw UsageError(s.entry->algo + " on " + s.entry->backend +
                       " needs its data in host memory; --generate=by-index runs only the algorithms marked "
                       "'by index' in `accsum list`");
    }
  }
  if (kept.empty()) throw UsageError("--generate=by-index: no selected algorithm makes its own data by index");
  sel = kept;
}

}  // namespace

int run_bench(const BenchArgs& a, const std::vector<std::string>& argv) {
  auto sel = select(a.algo, a.backend, a.params, /*add_baselines=*/true);
  if (a.reps < 1 || a.reps > 100000) throw UsageError("--reps must be in [1, 100000]");
  if (a.warmup < 0 || a.warmup > 1000) throw UsageError("--warmup must be in [0, 1000]");
  check_outputs(a.out, input_files(a.data.input));
  const bool by_index = a.generate == "by-index";
  if (by_index) {
    if (!a.data.input.empty()) throw UsageError("--generate=by-index makes generated data; it cannot read --input");
    keep_by_index_entries(sel, a.algo);
  }
  auto fams = families_of(sel);
  check_options_known(a.data, fams);
  if (!a.data.input.empty() && !a.data.dist.empty()) throw UsageError("--input cannot be combined with --dist");
  for (auto& [name, value] : a.data.options)
    if (!a.data.input.empty() && !option_for_files(name))
      throw UsageError("--input cannot be combined with --" + name + " (the file is the data)");

  MeasureOptions opt{a.reps, a.warmup, !a.no_repro_check};
  // The whole run is checked before anything runs (app/memcheck.hpp): every point of the sweep,
  // one dataset alive at a time; an input file is judged from its size and header, not read.
  std::vector<std::pair<const FamilyDescriptor*, GenSpec>> plan;
  if (a.data.input.empty()) {
    for (auto* f : fams)
      for (auto& spec : specs_of(a.data, *f)) {
        if (by_index && !f->generate_by_index)
          throw UsageError("--generate=by-index: the " + f->name + " family's data cannot be made by index");
        if (!by_index) check_run_memory(sel, *f, 0, spec_bytes(*f, spec), opt.repro_check);
        plan.push_back({f, spec});
      }
  } else {
    const double bytes = input_memory_bytes(a.data.input);
    for (auto* f : fams) check_run_memory(sel, *f, 0, bytes, opt.repro_check);
  }

  Reporters out(a.out, argv, backends_of(sel));
  bool ok = true;
  int64_t total = 0;
  if (a.data.input.empty())
    for (auto& [f, spec] : plan) total += rows_of(sel, f->name);
  else
    for (auto* f : fams) total += rows_of(sel, f->name);
  Progress progress("bench", total);
  try {
    if (!a.data.input.empty()) {
      // Each family's reading of the file, one at a time (read, measured, freed).
      std::string first_error;
      int fitted = 0;
      for (auto* f : fams) {
        std::unique_ptr<Dataset> d;
        try {
          d = read_input(a.data.input, a.data.options, *f);
        } catch (const UsageError& e) {
          if (a.algo != "all") throw;  // an explicit --algo list: every family must fit
          if (first_error.empty()) first_error = e.what();
          continue;
        }
        ++fitted;
        ok &= bench_dataset(*d, sel, opt, out, progress);
      }
      if (fitted == 0 && !fams.empty()) throw UsageError(first_error);
    } else {
      for (auto& [f, spec] : plan) {
        progress.status(fmt::format("generating {} n={} {}", f->name, format_size(spec.n), spec.dist));
        Dataset d = by_index ? f->generate_by_index(spec) : f->generate(spec);
        ok &= bench_dataset(d, sel, opt, out, progress, &spec);
      }
    }
  } catch (const UsageError& e) {
    keep_completed(out, e.what());  // the rows measured so far are written, marked incomplete
    throw;
  } catch (const std::bad_alloc&) {
    keep_completed(out, "out of memory");
    throw;
  }
  out.finish();
  return ok ? 0 : 1;
}

}  // namespace accsum::cli
