// accsum gen, list, info.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "git_rev.hpp"
#include "app/commands.hpp"
#include "app/harness.hpp"
#include "app/memcheck.hpp"
#include "app/output.hpp"
#include "app/parse.hpp"
#include "app/report.hpp"
#include "app/text_table.hpp"
#include "core/frame/plugins.hpp"

namespace accsum::cli {

namespace {
// Standard output through write_stdout: a full disk or a closed stdout is an error (exit 2), as
// for every command, not output silently lost.
template <class... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
  write_stdout(fmt::format(format, std::forward<Args>(args)...));
}
}  // namespace

int run_gen(const GenArgs& a) {
  const FamilyDescriptor& fam = family(a.family);
  if (a.output.empty()) throw UsageError("gen needs an output file (-o PATH)");
  format_from_path(a.output);  // rejects unknown extensions before generating
  check_output(a.output);
  auto specs = specs_of(a.data, fam);
  if (specs.size() != 1) throw UsageError("gen writes one dataset: give one value for --n and each data option");
  check_data_memory(fam, spec_bytes(fam, specs.front()));  // before anything is allocated
  Dataset d = fam.generate(specs.front());
  write_output(a.output, [&](const Sink& sink) { fam.encode(a.output, d, a.dtype, sink); });
  ExactValue ref = fam.oracle(d);  // of what was written (the output may be a FIFO: not read back)
  warn_if_cond_missed(specs.front(), ref.cond);
  say("wrote {} ({} n={} dist={} seed={}): exact cond {}, dynamic range {}, exact result {}\n", printable(a.output),
      a.family, d.n, specs.front().dist, specs.front().seed, json_number_or_string(ref.cond),
      fmt::format("10^{:.1f}", dynamic_range_log10_of(d)), ref.hex);
  return 0;
}

namespace {
// The suites `accsum table --suite=` takes for the family, each once: "fpe (5 tables)".
std::string table_names(const FamilyDescriptor& f) {
  std::vector<std::pair<std::string, int>> suites;
  for (auto& t : f.tables) {
    auto it = std::find_if(suites.begin(), suites.end(), [&](auto& s) { return s.first == t.name; });
    if (it == suites.end())
      suites.push_back({t.name, 1});
    else
      ++it->second;
  }
  std::string s;
  for (auto& [name, count] : suites)
    s += (s.empty() ? "" : ", ") + name + (count > 1 ? fmt::format(" ({} tables)", count) : "");
  return s.empty() ? "-" : s;
}

// The family's listing_rank (one not registered: last).
int listing_rank(const std::string& family) {
  const FamilyDescriptor* f = find_family(family);
  return f ? f->listing_rank : std::numeric_limits<int>::max();
}

// What the entry promises with its default parameters first, then what any one other choice of a parameter
// promises instead (sgemm-ozaki: none, faithful with --accuracy=faithful).
std::vector<std::string> guarantees_of(const AlgoEntry& e) {
  const Params defaults = registry().resolve_params(e, {});
  std::vector<Params> sets{defaults};
  if (e.guarantee_by_params)
    for (const ParamSpec& p : e.params)
      for (const std::string& choice : p.choices) {
        sets.push_back(defaults);
        sets.back()[p.name] = choice;
      }
  return e.guarantees_for(sets);
}

// The table's lines with lines[k] indented under its k-th row (the header row has none).
std::string with_lines_below(const std::string& table, const std::vector<std::string>& lines) {
  std::string out;
  size_t row = 0, start = 0;
  for (size_t end; (end = table.find('\n', start)) != std::string::npos; start = end + 1, ++row) {
    out += table.substr(start, end - start + 1);
    if (row > 0 && row - 1 < lines.size()) out += "  " + lines[row - 1] + "\n";
  }
  return out;
}

}  // namespace

int run_list(const std::string& format) {
  using nlohmann::json;
  Registry& reg = registry();
  json j = json::array();
  TextRows table{{"algo", "family", "guarantee", "repro", "backends", "parameters"}};
  std::vector<std::string> summaries;  // one indented line under each algorithm's row
  std::vector<std::string> names = reg.algo_names();
  auto family_of = [&](const std::string& algo) {
    for (auto& e : reg.entries())
      if (e.algo == algo) return e.family;
    return std::string();
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return listing_rank(family_of(a)) < listing_rank(family_of(b));
  });
  for (auto& name : names) {
    std::vector<const AlgoEntry*> es;
    for (auto& e : reg.entries())
      if (e.algo == name) es.push_back(&e);
    const AlgoEntry& first = *es.front();
    std::string backends, params;
    json jb = json::array();
    for (auto* e : es) {
      const BackendInfo* info = reg.backend(e->backend);  // a plugin's backend may not be compiled in
      bool here = info && (!info->available || info->available());
      backends += (backends.empty() ? "" : ",") + e->backend + (here ? "" : "(absent)") +
                  (e->makes_own_data ? "(by index)" : "");
      json entry{{"backend", e->backend},
                 {"present", here},
                 {"summary", e->summary},
                 {"baseline", e->is_baseline},
                 {"by_index", e->makes_own_data}};
      json jp = json::array();
      for (auto& p : e->params) {
        std::string allowed =
            !p.choices.empty() ? fmt::format("{}", fmt::join(p.choices, "|")) : fmt::format("{}..{}", p.min, p.max);
        jp.push_back({{"name", p.name}, {"allowed", allowed}, {"default", p.def}, {"help", p.help}});
        // One item per parameter; a backend whose default differs says so: "(0; opencl: 8)".
        std::string item = p.name + "=" + allowed + " (" + p.def + ")";
        size_t at = params.find(p.name + "=");
        if (at == std::string::npos) {
          params += (params.empty() ? "" : " ") + item;
        } else {
          size_t close = params.find(')', at);
          size_t open = params.find('(', at);
          std::string first_def = params.substr(open + 1, params.find_first_of(";)", open) - open - 1);
          if (first_def != p.def) params.insert(close, "; " + e->backend + ": " + p.def);
        }
      }
      entry["params"] = jp;
      if (e->bound) entry["bound_cite"] = e->bound_cite;
      jb.push_back(entry);
    }
    const std::vector<std::string> promised = guarantees_of(first);
    table.push_back({name, first.family, fmt::format("{}", fmt::join(promised, "|")), first.reproducible_word(),
                     backends, printable(params)});
    summaries.push_back(printable(first.summary));
    j.push_back({{"algo", name},
                 {"family", first.family},
                 {"guarantee", promised.front()},
                 {"guarantees", promised},
                 {"reproducible", first.reproducible},
                 {"reproducible_any_order", first.reproducible && first.reproducible_any_order},
                 {"summary", first.summary},
                 {"backends", jb}});
  }
  std::string text = with_lines_below(aligned_table(table), summaries) + "\nfamilies:\n";
  json jf = json::array();
  for (auto* fp : families_in_listing_order()) {
    const FamilyDescriptor& f = *fp;
    text += fmt::format("  {:<6} {} | inputs {} | result {} | unit {} | tables {}\n", f.name, f.summary, f.inputs,
                        f.result, f.unit, table_names(f));
    json options = json::array();
    for (auto& o : f.options) options.push_back(o.name);
    jf.push_back({{"name", f.name},
                  {"summary", f.summary},
                  {"inputs", f.inputs},
                  {"result", f.result},
                  {"unit", f.unit},
                  {"dists", f.dists},
                  {"data_options", options},
                  {"file_formats", f.file_formats}});
  }
  if (format == "json")
    write_stdout(json{{"algorithms", j}, {"families", jf}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
  else if (format == "table")
    write_stdout(text);
  else
    throw UsageError("list --format must be table or json");
  return 0;
}

int run_info(const std::string& n_str, int reps) {
  int64_t n = parse_size(n_str);
  if (reps < 1 || reps > 10000) throw UsageError("--reps must be in [1, 10000]");
  say("accsum {} (git {})\n", ACCSUM_VERSION, ACCSUM_GIT_REV);
  auto m = machine_json(registry().backend_names());
  say("host {}: {}, {} hardware threads\n", printable(m["hostname"].get<std::string>()),
      printable(m["cpu"].get<std::string>()), m["hardware_threads"].get<unsigned>());
  for (auto& e : registry().entries())
    if (const plugins::PluginAlgo* a = plugins::find(e.algo))
      say("plugin {} ({}): {} ({}) on {}, claims {}{}\n", a->plugin, printable(a->path), e.algo, e.family, e.backend,
          to_string(e.guarantee), e.reproducible ? ", reproducible" : "");
  // The yardstick: the baselines of the families flagged for it, on uniform [-1, 1) data.
  std::vector<std::unique_ptr<Dataset>> data;
  std::vector<RunRecord> runs;
  double held = 0;  // every probe's data is held at once
  for (auto& f : families())
    if (f.info_probe) {
      const GenSpec spec{"uniform-sym", f.name, n, 1, 1e16, 1e16, {}};
      held += spec_bytes(f, spec);
      check_data_memory(f, held);  // before anything is allocated
      data.push_back(std::make_unique<Dataset>(f.generate(spec)));
      runs.push_back(begin_run(*data.back()));
    }
  for (auto& b : registry().backend_names()) {
    const BackendInfo* info = registry().backend(b);
    bool here = !info->available || info->available();
    say("backend {:<7} {}: {}\n", b, here ? "present" : "absent ", m["backends"].value(b, std::string("")));
    if (!here) continue;
    bool ok = !info->self_test || info->self_test();
    say("  EFT self-test: {}\n", ok ? "passed" : "FAILED (this backend refuses to run)");
    if (!ok) continue;
    for (auto& run : runs) {
      const AlgoEntry* base = registry().baseline(run.family->name, b);
      if (!base) continue;
      ResultRow r = measure_entry(*base, registry().resolve_params(*base, {}), run, MeasureOptions{reps, 2, false});
      if (!r.error.empty()) {
        say("  {} failed: {}\n", base->algo, printable(r.error));
        continue;
      }
      say("  measured: {} ({}) on n={}: median {:.4g} s = {:.3g} G {}/s = {:.3g} GB/s\n", base->algo, run.family->name,
          format_size(n), r.time.median, r.units_per_s * 1e-9, run.family->unit, r.bytes_per_s * 1e-9);
    }
  }
  return 0;
}

}  // namespace accsum::cli
