#include "git_rev.hpp"
#include "app/report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "app/output.hpp"
#include "app/parse.hpp"
#include "app/text_table.hpp"
#include "core/frame/machine.hpp"

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

json params_json(const Params& p) {
  json j = json::object();
  for (auto& [k, v] : p) {
    char* end = nullptr;
    long long iv = std::strtoll(v.c_str(), &end, 10);
    if (!v.empty() && *end == 0)
      j[k] = iv;
    else
      j[k] = v;
  }
  return j;
}

// FNV-1a, 64 bits (Fowler, Noll, Vo): identifies a file's data so that compare matches rows of
// the same input, whatever its name or format. Not a cryptographic digest.
class Fnv1a64 {
 public:
  void add(const void* p, size_t bytes) {
    auto* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < bytes; ++i) h_ = (h_ ^ c[i]) * kPrime;
  }
  template <class T>
  void add_array(const std::vector<T>& v) {
    const uint64_t count = v.size();  // the length first: x = {a} and y = {} differ from x = {}, y = {a}
    add(&count, sizeof count);
    add(v.data(), v.size() * sizeof(T));
  }
  uint64_t value() const { return h_; }

 private:
  static constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace

std::string content_hash(const Dataset& d) {
  Fnv1a64 h;
  h.add_array(d.x);
  h.add_array(d.y);
  h.add_array(d.a);
  h.add_array(d.b);
  h.add_array(d.c);
  if (!d.a64.empty()) {  // double matrices (dgemm); the hashes of all other data stay as they were
    h.add_array(d.a64);
    h.add_array(d.b64);
    h.add_array(d.c64);
  }
  for (auto& [k, v] : d.data) {  // e.g. the modulus: the same numbers mod another p are other data
    const std::string item = k + "=" + v + ";";
    h.add(item.data(), item.size());
  }
  return fmt::format("fnv1a64:{:016x}", h.value());
}

namespace {

enum class Shape { rounding, expansion, residue };

Shape shape_of(const std::string& family) {
  if (family == "fpe") return Shape::expansion;
  if (family == "moddot") return Shape::residue;
  return Shape::rounding;
}

// A moddot row that promises nothing computes no residue: cuBLAS ddot on the same vectors, timed
// as the family's bandwidth yardstick.
bool is_yardstick(const ResultRow& r) {
  return shape_of(r.entry->family) == Shape::residue && r.entry->guarantee_for(r.params) == Guarantee::none;
}

json row_json(const RunRecord& run, const ResultRow& r) {
  const AlgoEntry& e = *r.entry;
  json j;
  j["algo"] = e.algo;
  j["family"] = e.family;
  j["backend"] = e.backend;
  j["params"] = params_json(r.params);
  j["guarantee"] = to_string(e.guarantee_for(r.params));
  j["promises_reproducible"] = e.reproducible;
  j["is_baseline"] = e.is_baseline;
  if (is_yardstick(r)) j["yardstick"] = true;  // computes no result of the family: timed for scale only
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
  j["time_s"] = {{"median", r.time.median},
                 {"min", r.time.min},
                 {"max", r.time.max},
                 {"reps", r.time.reps},
                 {"samples", r.time.samples}};
  if (!r.ratio_samples.empty()) {  // timed beside its baseline, repetitions interleaved
    j["time_s"]["interleaving"] = kInterleaving;
    j["time_s"]["paired_with"] = {{"algo", r.paired_baseline}, {"params", params_json(r.paired_baseline_params)}};
    j["time_s"]["baseline_samples"] = r.paired_baseline_samples;
    j["time_s"]["ratio_samples"] = r.ratio_samples;
  }
  j["timer"] = r.device_timed ? "device-events" : "steady-clock";
  j["transfer_s"] = r.transfer_s;
  if (!r.placement.empty()) j["placement"] = r.placement;
  const std::string& unit = run.family->unit;
  j["throughput"] = {{unit + "_per_s", r.units_per_s},
                     {"bytes_per_s", r.bytes_per_s},
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
  if (d.generator == "file") j["content_hash"] = content_hash(d);
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

json tool_json() {
  return {{"name", "accsum"},
          {"version", ACCSUM_VERSION},
          {"git", ACCSUM_GIT_REV},
          {"compiler", ACCSUM_COMPILER},
          {"cuda_arch", ACCSUM_CUDA_ARCH}};
}

json run_json(const RunRecord& run) {
  json r;
  r["dataset"] = dataset_json(run);
  r["reference"] = reference_json(run);
  json rows = json::array();
  for (auto& row : run.rows) rows.push_back(row_json(run, row));
  r["results"] = rows;
  return r;
}

std::string device_name(const std::string& placement) {
  static const std::regex device(R"(device [0-9]+ of [0-9]+: (.*?)(, PCI .*)?$)");
  std::smatch m;
  return std::regex_search(placement, m, device) ? m[1].str() : "";
}

json machine_json(const std::vector<std::string>& backends, const std::vector<std::string>& placements) {
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
  // The accelerators the rows ran on, every MPI rank's included ("rank r on HOST: ..." lines are
  // per host and device; lines without a rank are this host's), one name per device.
  std::vector<std::string> seen;
  json devices = json::array();
  for (auto& line : placements) {
    const std::string name = device_name(line);
    if (name.empty()) continue;
    static const std::regex ranked(R"(^rank [0-9]+ on ([^:]*): [^ ]+ (device .*)$)");
    std::smatch m;
    const std::string where =
        std::regex_search(line, m, ranked) ? m[1].str() + " " + m[2].str() : std::string(host) + " " + line;
    if (std::find(seen.begin(), seen.end(), where) != seen.end()) continue;
    seen.push_back(where);
    devices.push_back(name);
  }
  j["devices"] = devices;
  return j;
}

namespace {
// The console and Markdown columns of a family's rows: each column means something for every row
// it is shown for. Sums, dots and GEMMs (one number, or the worst entry): correct digits, ulps,
// correctly rounded, the proven bound. fpe: the worst relative error of the expansions in bits
// against the exact one, and the bound; no ulps or correct rounding of one double. moddot: the
// residue and whether it is exact. The CSV and JSON keep every column for every family.
constexpr const char* kNotApplicable = "—";

std::vector<std::string> head_of(Shape shape) {
  std::vector<std::string> h{"algo", "backend", "params", "guarantee"};
  switch (shape) {
    case Shape::rounding:
      h.insert(h.end(), {"digits", "ulps", "CR", "bound"});
      break;
    case Shape::expansion:
      h.insert(h.end(), {"max rel err", "bound"});
      break;
    case Shape::residue:
      h.insert(h.end(), {"residue", "exact"});
      break;
  }
  h.insert(h.end(), {"repro", "median", "ns/unit", "vs base"});
  return h;
}

std::string bound_cell(const Metrics& m) {
  if (!m.has_bound) return "-";
  if (!m.outside_domain.empty()) return "no claim";
  return m.within_bound ? "within" : "EXCEEDED";
}

double extra_of(const Metrics& m, const char* key) {
  for (auto& [k, v] : m.extra)
    if (k == key) return v;
  return NAN;
}

// "2^-104.3", or "exact" when every expansion is.
std::string relative_error_bits(const Metrics& m) {
  const double e = extra_of(m, "max_rel_err_log2");
  if (std::isinf(e) && e < 0) return "exact";
  return std::isfinite(e) ? fmt::format("2^{:.1f}", e) : json_number_or_string(e);
}

std::vector<std::string> accuracy_cells(const ResultRow& r, Shape shape) {
  const Metrics& m = r.metrics;
  if (is_yardstick(r)) return {kNotApplicable, kNotApplicable};
  switch (shape) {
    case Shape::expansion:
      return {relative_error_bits(m), bound_cell(m)};
    case Shape::residue:
      return {fmt::format("{:.0f}", m.value), m.correctly_rounded ? "yes" : "NO"};
    case Shape::rounding:
      break;
  }
  return {fmt::format("{:.1f}", m.digits), json_number_or_string(m.ulps), m.correctly_rounded ? "yes" : "no",
          bound_cell(m)};
}

std::vector<std::string> row_cells(const ResultRow& r, Shape shape) {
  const AlgoEntry& e = *r.entry;
  const std::string algo = e.algo + (is_yardstick(r) ? " (yardstick)" : "");
  if (!r.error.empty())
    return {algo, e.backend, params_str(r.params, " "), std::string(to_string(e.guarantee_for(r.params))),
            "ERROR: " + printable(r.error)};
  std::string ratio = r.baseline.empty()     ? "-"
                      : r.entry->is_baseline ? "baseline"
                                             : fmt::format("{:.3f}x", r.ratio_to_baseline);
  std::vector<std::string> cells{
      algo, e.backend, params_str(r.params, " "),
      std::string(to_string(e.guarantee_for(r.params))) + (r.guarantee_met ? "" : " VIOLATED")};
  for (auto& c : accuracy_cells(r, shape)) cells.push_back(c);
  cells.insert(cells.end(), {r.reproducible ? "yes" : "no", fmt::format("{:.4g} s", r.time.median),
                             fmt::format("{:.4g}", r.units_per_s > 0 ? 1e9 / r.units_per_s : 0.0), ratio});
  return cells;
}

// The dataset's exact facts as far as they mean something for its family.
std::string facts_of(const RunRecord& run, Shape shape) {
  switch (shape) {
    case Shape::residue:
      return fmt::format("exact residue {:.0f}", run.reference.rounded);
    case Shape::expansion:
      return "exact reference: " + run.reference.hex;
    case Shape::rounding:
      break;
  }
  return fmt::format("exact cond={} dynamic range=10^{:.1f} | exact result (RN) {}",
                     json_number_or_string(run.reference.cond), run.dynamic_range_log10, run.reference.hex);
}

std::string dataset_line(const RunRecord& run) {
  const Dataset& d = *run.dataset;
  std::string s = fmt::format("{} n={} dist={}", d.family, format_size(d.n), d.generator);
  if (d.rows > 0) s += fmt::format(" shape={}x{}x{}", d.rows, d.cols, d.inner);
  for (auto& [k, v] : d.data) s += fmt::format(" {}={}", k, v);
  if (d.range > 0) s += fmt::format(" range={:g}", d.range);
  if (d.target_cond > 0) s += fmt::format(" cond_target={:g}", d.target_cond);
  s += fmt::format(" seed={} | {} | throughput unit: {}", d.seed, facts_of(run, shape_of(d.family)), run.family->unit);
  std::string outside;
  for (auto& r : run.rows)
    if (r.error.empty() && !r.metrics.outside_domain.empty() &&
        outside.find(r.metrics.outside_domain) == std::string::npos)
      outside += "\n  no bound claimed (" + r.entry->algo + " ...): " + r.metrics.outside_domain;
  return s + outside;
}
}  // namespace

std::string report_table(const RunRecord& run) {
  const Shape shape = shape_of(run.dataset->family);
  TextRows rows{head_of(shape)};
  for (auto& r : run.rows) rows.push_back(row_cells(r, shape));
  return dataset_line(run) + "\n" + aligned_table(rows) + "\n";
}

std::string markdown_cell(const std::string& text) {
  std::string lines = text, out;
  for (char& c : lines)
    if (c == '\n' || c == '\r') c = ' ';
  for (char c : printable(lines)) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string report_markdown(const RunRecord& run) {
  const Shape shape = shape_of(run.dataset->family);
  TextRows rows{head_of(shape)};
  for (auto& r : run.rows) {
    rows.push_back(row_cells(r, shape));
    rows.back().resize(rows[0].size());  // a failed row's message fills one cell
  }
  return "**" + markdown_cell(dataset_line(run)) + "**\n\n" + markdown_table(rows) + "\n";
}

namespace {
// The CSV columns, the same for every family and every row (a failed run leaves its measurements
// empty). Columns are only ever added at the end, so scripts that read by position keep working.
const std::vector<std::string> kCsvColumns{"family",
                                           "n",
                                           "dist",
                                           "range",
                                           "cond",
                                           "seed",
                                           "algo",
                                           "backend",
                                           "params",
                                           "guarantee",
                                           "value_hex",
                                           "exact_hex",
                                           "abs_err",
                                           "rel_err",
                                           "ulps",
                                           "digits",
                                           "correctly_rounded",
                                           "within_bound",
                                           "reproducible",
                                           "guarantee_met",
                                           "median_s",
                                           "min_s",
                                           "max_s",
                                           "reps",
                                           "ns_per_unit",
                                           "ratio_to_baseline",
                                           "error",
                                           "shape",
                                           "data_params",
                                           "content_hash",
                                           "faithful",
                                           "baseline",
                                           "violation"};
const char* yes_no(bool b) { return b ? "true" : "false"; }
}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_record(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
  return out + "\r\n";
}

std::string csv_header() { return csv_record(kCsvColumns); }

std::string report_csv(const RunRecord& run) {
  std::string out;
  const Dataset& d = *run.dataset;
  std::string data_params;
  for (auto& [k, v] : d.data) data_params += (data_params.empty() ? "" : " ") + k + "=" + v;
  for (auto& r : run.rows) {
    std::map<std::string, std::string> f{{"family", d.family},
                                         {"n", std::to_string(d.n)},
                                         {"dist", d.generator},
                                         {"range", d.range > 0 ? fmt::format("{:g}", d.range) : ""},
                                         {"cond", json_number_or_string(run.reference.cond)},
                                         {"seed", std::to_string(d.seed)},
                                         {"algo", r.entry->algo},
                                         {"backend", r.entry->backend},
                                         {"params", params_str(r.params, " ")},
                                         {"guarantee", to_string(r.entry->guarantee_for(r.params))},
                                         {"exact_hex", run.reference.hex},
                                         {"guarantee_met", yes_no(r.guarantee_met)},
                                         {"error", printable(r.error)},
                                         {"shape", d.rows > 0 ? fmt::format("{}x{}x{}", d.rows, d.cols, d.inner) : ""},
                                         {"data_params", data_params},
                                         {"content_hash", d.generator == "file" ? content_hash(d) : ""},
                                         {"violation", printable(r.violation)}};
    if (r.error.empty()) {  // a failed run has no measurements: their cells stay empty
      const Metrics& m = r.metrics;
      const bool claim = m.has_bound && m.outside_domain.empty();
      f["value_hex"] = m.hex;
      f["abs_err"] = json_number_or_string(m.abs_err);
      f["rel_err"] = json_number_or_string(m.rel_err);
      f["ulps"] = json_number_or_string(m.ulps);
      f["digits"] = fmt::format("{:.2f}", m.digits);
      f["correctly_rounded"] = yes_no(m.correctly_rounded);
      f["faithful"] = yes_no(m.faithful);
      f["within_bound"] = claim ? yes_no(m.within_bound) : "";
      f["reproducible"] = yes_no(r.reproducible);
      f["median_s"] = fmt::format("{:.6g}", r.time.median);
      f["min_s"] = fmt::format("{:.6g}", r.time.min);
      f["max_s"] = fmt::format("{:.6g}", r.time.max);
      f["reps"] = std::to_string(r.time.reps);
      f["ns_per_unit"] = fmt::format("{:.6g}", r.units_per_s > 0 ? 1e9 / r.units_per_s : 0.0);
      f["baseline"] = r.baseline;
      f["ratio_to_baseline"] = r.baseline.empty() ? "" : fmt::format("{:.4f}", r.ratio_to_baseline);
    }
    std::vector<std::string> record;
    for (auto& column : kCsvColumns) record.push_back(f[column]);
    out += csv_record(record);
  }
  return out;
}

// Both kept for callers; the policy (symlinks, devices, FIFOs, temporary files) is app/output.hpp.
void check_writable(const std::string& path) { check_output(path); }

void write_atomic(const std::string& path, const std::string& content) { write_outputs({{path, content}}); }

}  // namespace accsum::cli
