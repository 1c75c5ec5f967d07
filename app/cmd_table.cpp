// accsum table: paper-style tables, one per family that has the suite (core/frame/family.hpp): a row
// per generated dataset, a column per algorithm of the backend, each cell the family's cell of
// the result (e.g. correct digits) or, in a timed table, its time or rate; "!" where a result broke
// its guarantee, "*" where the column does not apply to the row. With --reps, every cell of an
// accuracy table also shows the median throughput (like the GFLOP/s columns of Badin et al.).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "app/commands.hpp"
#include "app/harness.hpp"
#include "app/memcheck.hpp"
#include "app/parse.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "core/frame/plugins.hpp"

namespace accsum::cli {

namespace {

struct Column {
  const AlgoEntry* entry;
  Params params;
  std::string label;
  int reps;
};

// The suite's columns that exist on the backend, parameters resolved.
std::vector<Column> columns_of(const TableSuite& t, const std::string& family, const std::string& backend) {
  std::vector<Column> cols;
  for (auto& c : t.columns(backend, registry().entries_of(family, backend))) {
    const AlgoEntry* e = registry().find(c.algo, c.backend.empty() ? backend : c.backend);
    if (e && e->family == family) cols.push_back({e, registry().resolve_params(*e, c.params), c.label, c.reps});
  }
  // Loaded plugins' algorithms of this family and backend: one more column each (--plugin),
  // unless the suite lists every entry already.
  for (auto& a : plugins::loaded()) {
    const AlgoEntry* e = registry().find(a->name, backend);
    bool listed = std::any_of(cols.begin(), cols.end(), [&](const Column& c) { return c.entry == e; });
    if (e && e->family == family && !listed) cols.push_back({e, registry().resolve_params(*e, {}), a->name, 0});
  }
  return cols;
}

// The rows made so far are kept when a later row stops the table: the table so far, marked
// incomplete, and the JSON.
void keep_table_rows(Reporters& reporters, std::string md, const std::string& why, const OutArgs& out) {
  md += "\nINCOMPLETE: the table stopped early: " + printable(why) + "\n";
  keep_completed(reporters, why, {{out.out, md}}, out.out.empty() ? md : "");
}

std::string known_suites() {
  std::vector<std::string> names;
  for (auto& f : families())
    for (auto& t : f.tables)
      if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

int run_table(const TableArgs& a, const std::vector<std::string>& argv) {
  std::vector<std::pair<const FamilyDescriptor*, const TableSuite*>> suites;
  for (auto& f : families())
    for (auto& t : f.tables)
      if (t.name == a.suite) suites.push_back({&f, &t});
  if (suites.empty()) throw UsageError("unknown table suite '" + a.suite + "' (known: " + known_suites() + ")");
  require_backend(a.backend);
  check_outputs(a.out);
  int64_t n = parse_size(a.n);

  std::string md = fmt::format(
      "# accsum table --suite={} (backend {}, n = {}, seed {}{})\n\n{}\n\n", a.suite, a.backend, format_size(n), a.seed,
      a.reps > 0 ? fmt::format(", throughput: median of {} runs", a.reps) : "", suites.front().second->intro);
  OutArgs json_only;
  json_only.json = a.out.json;
  Reporters reporters(json_only, argv, {a.backend}, /*text_to_stdout=*/false);
  bool all_met = true;
  int64_t rows = 0;
  for (auto [fam, suite] : suites) rows += static_cast<int64_t>(suite->rows(n, a.seed).size());
  // Every row of every table fits before any is made (app/memcheck.hpp); one dataset at a time.
  for (auto [fam, suite] : suites)
    if (!columns_of(*suite, fam->name, a.backend).empty())
      for (auto& spec : suite->rows(n, a.seed)) check_data_memory(*fam, spec_bytes(*fam, spec));
  Progress progress("table", rows);
  const MeasureOptions timing{std::max(1, a.reps), a.reps > 0 ? 2 : 0, false};
  size_t md_done = md.size();  // the text up to the last completed row
  try {
    for (auto [fam, suite] : suites) {
      auto cols = columns_of(*suite, fam->name, a.backend);
      if (cols.empty()) continue;
      md += fmt::format("## {}{}\n\n|", fam->name, suite->title.empty() ? "" : ": " + suite->title);
      for (auto& h : suite->row_head) md += " " + markdown_cell(h) + " |";
      for (auto& c : cols) md += " " + markdown_cell(c.label) + " |";
      md += "\n|";
      for (size_t i = 0; i < suite->row_head.size() + cols.size(); ++i) md += " --- |";
      md += "\n";
      for (auto& spec : suite->rows(n, a.seed)) {
        progress.tick(fam->name + " " + spec.dist);
        Dataset d = fam->generate(spec);
        RunRecord run = begin_run(d);
        md += "|";
        for (auto& cell : suite->row_cells(spec, run.reference)) md += " " + markdown_cell(cell) + " |";
        for (auto& c : cols) {
          if (suite->applies && !suite->applies(TableColumn{c.entry->algo, c.params, c.label}, spec)) {
            md += " * |";
            continue;
          }
          const bool timed = static_cast<bool>(suite->timed_cell);
          const int reps = timed ? (c.reps > 0 ? c.reps : suite->reps) : timing.reps;
          ResultRow r =
              measure_entry(*c.entry, c.params, run, timed ? MeasureOptions{reps, reps > 1 ? 1 : 0, false} : timing);
          if (timed && reps < suite->reps && r.error.empty() && r.time.median < kShortRunSeconds)  // cheap after all
            r = measure_entry(*c.entry, c.params, run, MeasureOptions{suite->reps, 1, false});
          all_met &= r.guarantee_met;
          std::string text = "error";
          if (r.error.empty() && timed) {
            const double ref_s = run.rows.empty() ? r.time.median : run.rows.front().time.median;
            text = suite->timed_cell(r.metrics, CellTime{r.time.median, r.transfer_s, ref_s, r.units_per_s});
          } else if (r.error.empty()) {
            text = suite->cell(r.metrics) + (r.guarantee_met ? "" : "!");
            if (a.reps > 0) text += fmt::format(", {:.1f} G{}/s", r.units_per_s / 1e9, fam->unit);
          }
          md += " " + markdown_cell(text) + (r.error.empty() && timed && !r.guarantee_met ? "!" : "") + " |";
          run.rows.push_back(std::move(r));
        }
        md += "\n";
        md_done = md.size();
        reporters.dataset_done(run);
      }
      md += "\n";
    }
  } catch (const UsageError& e) {
    keep_table_rows(reporters, md.substr(0, md_done), e.what(), a.out);
    throw;
  } catch (const std::bad_alloc&) {  // as bench: out of memory is one line, and the rows made so far stay
    keep_table_rows(reporters, md.substr(0, md_done), "out of memory", a.out);
    throw;
  }
  progress.finish();
  md += all_met ? "Every result is within its algorithm's proven bound.\n"
                : "Cells marked ! broke their algorithm's guarantee.\n";
  reporters.finish({{a.out.out, md}}, a.out.out.empty() ? md : "");
  return all_met ? 0 : 1;
}

}  // namespace accsum::cli
