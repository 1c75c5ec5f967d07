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
#include "app/output.hpp"
#include "app/parse.hpp"
#include "app/report.hpp"

namespace accsum::cli {

bool progress_enabled() { return isatty(2) && process_rank() == 0; }

void emit(const OutArgs& o, const std::string& text, const std::string& json) {
  if (process_rank() != 0) return;
  write_outputs({{o.out, text}, {o.json, json}});
  if (o.out.empty()) write_stdout(text);
}

namespace {

const DataOption* option_of(const FamilyDescriptor& f, const std::string& name) {
  for (auto& o : f.options)
    if (o.name == name) return &o;
  return nullptr;
}

std::string pick_dist(const DataArgs& d, const FamilyDescriptor& f) {
  if (!d.dist.empty()) return d.dist;
  for (auto& [name, value] : d.options)
    if (auto* o = option_of(f, name); o && !o->implies_dist.empty()) return o->implies_dist;
  return f.dists.front();
}

}  // namespace

std::vector<GenSpec> specs_of(const DataArgs& d, const FamilyDescriptor& f) {
  const std::string dist = pick_dist(d, f);
  // Every data option this family has, as a list; the sweep is their product.
  std::vector<Params> combos{Params{}};
  for (auto& [name, list] : d.options) {
    const DataOption* o = option_of(f, name);
    if (!o) continue;  // another family's option
    if (!o->dists.empty() && std::find(o->dists.begin(), o->dists.end(), dist) == o->dists.end())
      throw UsageError("--" + name + " applies to --dist=" + fmt::format("{}", fmt::join(o->dists, "|")) + " only");
    std::vector<Params> next;
    for (auto& base : combos)
      for (auto& v : o->sweeps ? split_list(list) : std::vector<std::string>{list}) {
        Params p = base;
        p[name] = v;
        next.push_back(p);
      }
    combos = next;
  }
  std::vector<GenSpec> out;
  for (int64_t n : parse_sizes(d.n))
    for (auto& opts : combos) {
      GenSpec s;
      s.dist = dist;
      s.family = f.name;
      s.n = n;
      s.seed = d.seed;
      s.options = opts;
      out.push_back(s);
    }
  return out;
}

namespace {

// Every family the selection touches, in registration order.
std::vector<const FamilyDescriptor*> families_of(const std::vector<Selection>& sel) {
  std::vector<const FamilyDescriptor*> out;
  for (auto& f : families())
    if (std::any_of(sel.begin(), sel.end(), [&](const Selection& s) { return s.entry->family == f.name; }))
      out.push_back(&f);
  return out;
}

void check_options_known(const DataArgs& d, const std::vector<const FamilyDescriptor*>& fams) {
  for (auto& [name, list] : d.options) {
    bool known = std::any_of(fams.begin(), fams.end(), [&](auto* f) { return option_of(*f, name) != nullptr; });
    if (!known) throw UsageError("no selected algorithm's family takes --" + name);
  }
}

// Measures every selected entry of family f on one dataset and reports it.
bool bench_dataset(const Dataset& d, const std::vector<Selection>& sel, const MeasureOptions& opt, Reporters& out) {
  if (progress_enabled()) fmt::print(stderr, "exact reference of {} n={}...\n", d.family, format_size(d.n));
  RunRecord run = begin_run(d);
  size_t total = 0, done = 0;
  for (auto& s : sel)
    if (s.entry->family == d.family) total += s.param_sets.size();
  bool any_error = false;
  for (auto& s : sel) {
    if (s.entry->family != d.family) continue;
    for (auto& p : s.param_sets) {
      if (progress_enabled()) fmt::print(stderr, "[{}/{}] {} on {}\n", ++done, total, s.entry->algo, s.entry->backend);
      run.rows.push_back(measure_entry(*s.entry, p, run, opt));
      any_error |= !run.rows.back().error.empty();
    }
  }
  attach_baselines(run.rows);
  out.dataset_done(run);
  return any_error;
}

}  // namespace

int run_bench(const BenchArgs& a, const std::vector<std::string>& argv) {
  auto sel = select(a.algo, a.backend, a.params, /*add_baselines=*/true);
  if (a.reps < 1 || a.reps > 100000) throw UsageError("--reps must be in [1, 100000]");
  if (a.warmup < 0 || a.warmup > 1000) throw UsageError("--warmup must be in [0, 1000]");
  check_outputs(a.out, a.data.input);
  auto fams = families_of(sel);
  check_options_known(a.data, fams);
  if (!a.data.input.empty() && (!a.data.dist.empty() || !a.data.options.empty()))
    throw UsageError("--input cannot be combined with --dist or data options");

  Reporters out(a.out, argv, backends_of(sel));
  MeasureOptions opt{a.reps, a.warmup, !a.no_repro_check};
  bool any_error = false;
  if (!a.data.input.empty()) {
    for (auto& d : read_input_families(a.data.input, fams, a.algo == "all")) any_error |= bench_dataset(*d, sel, opt, out);
    out.finish();
    return any_error ? 1 : 0;
  }
  for (auto* f : fams) {
    for (auto& spec : specs_of(a.data, *f)) {
      if (progress_enabled()) fmt::print(stderr, "generating {} n={} {}...\n", f->name, format_size(spec.n), spec.dist);
      Dataset d = f->generate(spec);  // one dataset alive at a time
      any_error |= bench_dataset(d, sel, opt, out);
    }
  }
  out.finish();
  return any_error ? 1 : 0;
}

}  // namespace accsum::cli
