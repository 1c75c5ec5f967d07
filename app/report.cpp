#include "git_rev.hpp"
#include "app/report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/output.hpp"
#include "app/parse.hpp"
#include "core/machine.hpp"

namespace accsum::cli {

using nlohmann::json;

json jnum(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string json_number_or_string(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.3g}", v);
}

namespace {

std::string params_str(const Params& p) {
  std::string s;
  for (auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

json params_json(const Params& p) {
  json j = json::object();
  for (auto& [k, v] : p) {
    char* end = nullptr;
    long long iv = std::strtoll(v.c_str(), &end, 10);
    if (!v.empty() && *end == 0) j[k] = iv;
    else j[k] = v;
  }
  return j;
}

json row_json(const RunRecord& run, const ResultRow& r) {
  const AlgoEntry& e = *r.entry;
  json j;
  j["algo"] = e.algo;
  j["family"] = e.family;
  j["backend"] = e.backend;
  j["params"] = params_json(r.params);
  j["guarantee"] = to_string(e.guarantee);
  j["promises_reproducible"] = e.reproducible;
  j["is_baseline"] = e.is_baseline;
  if (!r.error.empty()) {
    j["error"] = r.error;
    j["guarantee_met"] = false;
    return j;
  }
  const Metrics& m = r.metrics;
  const bool claim = m.has_bound && m.outside_domain.empty();
  j["value"] = jnum(m.value);
  j["value_hex"] = m.hex;
  j["abs_err"] = jnum(m.abs_err);
  j["rel_err"] = jnum(m.rel_err);
  j["ulps"] = jnum(m.ulps);
  j["digits"] = m.digits;
  j["correctly_rounded"] = m.correctly_rounded;
  j["faithful"] = m.faithful;
  j["bound"] = m.has_bound ? jnum(m.bound) : json(nullptr);
  j["bound_cite"] = m.has_bound ? json(e.bound_cite) : json(nullptr);
  j["within_bound"] = claim ? json(m.within_bound) : json(nullptr);
  if (!m.outside_domain.empty()) j["bound_outside_domain"] = m.outside_domain;
  for (auto& [k, v] : m.extra) j[k] = jnum(v);
  j["reproducible"] = r.reproducible;
  j["reproducible_checks"] = r.repro_checks;
  j["guarantee_met"] = r.guarantee_met;
  if (!r.violation.empty()) j["violation"] = r.violation;
  j["time_s"] = {{"median", r.time.median}, {"min", r.time.min}, {"max", r.time.max}, {"reps", r.time.reps}};
  j["timer"] = r.device_timed ? "device-events" : "steady-clock";
  j["transfer_s"] = r.transfer_s;
  if (!r.placement.empty()) j["placement"] = r.placement;
  const std::string& unit = run.family->unit;
  j["throughput"] = {{unit + "_per_s", r.units_per_s}, {"bytes_per_s", r.bytes_per_s},
                     {"ns_per_unit", r.units_per_s > 0 ? 1e9 / r.units_per_s : 0.0}};
  if (!r.baseline.empty()) {
    j["baseline"] = r.baseline;
    j["ratio_to_baseline"] = r.ratio_to_baseline;
  }
  return j;
}

json dataset_json(const RunRecord& run) {
  const Dataset& d = *run.dataset;
  json j;
  j["family"] = d.family;
  j["generator"] = d.generator;
  if (!d.source.empty()) j["source"] = d.source;
  j["seed"] = d.seed;
  j["n"] = d.n;
  if (d.rows > 0) j["shape"] = {{"rows", d.rows}, {"cols", d.cols}, {"inner", d.inner}};
  if (!d.data.empty()) j["data_params"] = params_json(d.data);
  j["range_requested"] = d.range > 0 ? json(d.range) : json(nullptr);
  j["cond_requested"] = d.target_cond > 0 ? json(d.target_cond) : json(nullptr);
  j["dynamic_range"] = jnum(std::pow(10.0, run.dynamic_range_log10));  // "inf" beyond DBL_MAX
  j["dynamic_range_log10"] = run.dynamic_range_log10;
  j["cond"] = jnum(run.reference.cond);
  j["cond_method"] = run.reference.cond_definition + ", from exact sums";
  return j;
}

json reference_json(const RunRecord& run) {
  json j;
  j["method"] = run.reference.method;
  j["rounded_hex"] = run.reference.hex;
  j["rounded"] = jnum(run.reference.rounded);
  j["exact_decimal"] = run.reference.decimal;
  j["special"] = run.reference.special;
  return j;
}

}  // namespace

json run_json(const RunRecord& run) {
  json r;
  r["dataset"] = dataset_json(run);
  r["reference"] = reference_json(run);
  json rows = json::array();
  for (auto& row : run.rows) rows.push_back(row_json(run, row));
  r["results"] = rows;
  return r;
}

json machine_json(const std::vector<std::string>& backends) {
  json j;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  j["hostname"] = host;
  j["cpu"] = cpu_model();
  j["hardware_threads"] = std::thread::hardware_concurrency();
  json b = json::object();
  for (auto& name : backends) {
    const BackendInfo* info = registry().backend(name);
    if (!info) continue;
    try {
      b[name] = info->available && !info->available() ? "not present" : info->describe ? info->describe() : name;
    } catch (const std::exception& ex) {
      b[name] = std::string("error: ") + ex.what();
    }
  }
  j["backends"] = b;
  return j;
}

namespace {
struct Cols {
  std::vector<std::string> head{"algo",   "backend", "params", "guarantee", "digits", "ulps",
                                "CR",     "bound",   "repro",  "median",    "ns/unit", "vs base"};
};
std::string bound_cell(const Metrics& m) {
  if (!m.has_bound) return "-";
  if (!m.outside_domain.empty()) return "no claim";
  return m.within_bound ? "within" : "EXCEEDED";
}
std::vector<std::string> row_cells(const ResultRow& r) {
  const AlgoEntry& e = *r.entry;
  if (!r.error.empty()) return {e.algo, e.backend, params_str(r.params), std::string(to_string(e.guarantee)), "ERROR: " + r.error};
  const Metrics& m = r.metrics;
  std::string ratio = r.baseline.empty() ? "-" : r.entry->is_baseline ? "baseline" : fmt::format("{:.3f}x", r.ratio_to_baseline);
  return {e.algo,
          e.backend,
          params_str(r.params),
          std::string(to_string(e.guarantee)) + (r.guarantee_met ? "" : " VIOLATED"),
          fmt::format("{:.1f}", m.digits),
          json_number_or_string(m.ulps),
          m.correctly_rounded ? "yes" : "no",
          bound_cell(m),
          r.reproducible ? "yes" : "no",
          fmt::format("{:.4g} s", r.time.median),
          fmt::format("{:.4g}", r.units_per_s > 0 ? 1e9 / r.units_per_s : 0.0),
          ratio};
}
std::string dataset_line(const RunRecord& run) {
  const Dataset& d = *run.dataset;
  std::string s = fmt::format("{} n={} dist={}", d.family, format_size(d.n), d.generator);
  if (d.rows > 0) s += fmt::format(" shape={}x{}x{}", d.rows, d.cols, d.inner);
  for (auto& [k, v] : d.data) s += fmt::format(" {}={}", k, v);
  if (d.range > 0) s += fmt::format(" range={:g}", d.range);
  if (d.target_cond > 0) s += fmt::format(" cond_target={:g}", d.target_cond);
  s += fmt::format(" seed={} | exact cond={} dynamic range={} | exact result (RN) {} | throughput unit: {}", d.seed,
                   json_number_or_string(run.reference.cond), fmt::format("1e{:.1f}", run.dynamic_range_log10),
                   run.reference.hex, run.family->unit);
  std::string outside;
  for (auto& r : run.rows)
    if (r.error.empty() && !r.metrics.outside_domain.empty() && outside.find(r.metrics.outside_domain) == std::string::npos)
      outside += "\n  no bound claimed (" + r.entry->algo + " ...): " + r.metrics.outside_domain;
  return s + outside;
}
}  // namespace

std::string report_table(const RunRecord& run) {
  std::ostringstream out;
  out << dataset_line(run) << "\n";
  std::vector<std::vector<std::string>> rows{Cols{}.head};
  for (auto& r : run.rows) rows.push_back(row_cells(r));
  std::vector<size_t> w(rows[0].size(), 0);
  for (auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  for (auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) out << fmt::format("{:<{}}  ", r[i], i < w.size() ? w[i] : 0);
    out << "\n";
  }
  out << "\n";
  return out.str();
}

std::string report_markdown(const RunRecord& run) {
  std::ostringstream out;
  out << "**" << dataset_line(run) << "**\n\n";
  auto head = Cols{}.head;
  out << "|";
  for (auto& h : head) out << " " << h << " |";
  out << "\n|";
  for (size_t i = 0; i < head.size(); ++i) out << " --- |";
  out << "\n";
  for (auto& r : run.rows) {
    out << "|";
    auto cells = row_cells(r);
    for (size_t i = 0; i < head.size(); ++i) out << " " << (i < cells.size() ? cells[i] : "") << " |";
    out << "\n";
  }
  out << "\n";
  return out.str();
}

std::string csv_header() {
  return "family,n,dist,range,cond,seed,algo,backend,params,guarantee,value_hex,exact_hex,abs_err,rel_err,ulps,digits,"
         "correctly_rounded,within_bound,reproducible,guarantee_met,median_s,min_s,max_s,reps,ns_per_unit,"
         "ratio_to_baseline,error\n";
}

std::string report_csv(const RunRecord& run) {
  std::ostringstream out;
  const Dataset& d = *run.dataset;
  for (auto& r : run.rows) {
    const Metrics& m = r.metrics;
    const bool claim = m.has_bound && m.outside_domain.empty();
    out << fmt::format("{},{},{},{},{},{},{},{},\"{}\",{},{},{},{},{},{},{:.2f},{},{},{},{},{:.6g},{:.6g},{:.6g},{},{:.6g},{:.4f},\"{}\"\n",
                       d.family, d.n, d.generator, d.range, json_number_or_string(run.reference.cond), d.seed,
                       r.entry->algo, r.entry->backend, params_str(r.params), to_string(r.entry->guarantee), m.hex,
                       run.reference.hex, json_number_or_string(m.abs_err), json_number_or_string(m.rel_err),
                       json_number_or_string(m.ulps), m.digits, m.correctly_rounded,
                       claim ? (m.within_bound ? "true" : "false") : "", r.reproducible, r.guarantee_met,
                       r.time.median, r.time.min, r.time.max, r.time.reps,
                       r.units_per_s > 0 ? 1e9 / r.units_per_s : 0.0, r.ratio_to_baseline, r.error);
  }
  return out.str();
}

// Both kept for callers; the policy (symlinks, devices, FIFOs, temporary files) is app/output.hpp.
void check_writable(const std::string& path) { check_output(path); }

void write_atomic(const std::string& path, const std::string& content) { write_outputs({{path, content}}); }

}  // namespace accsum::cli
