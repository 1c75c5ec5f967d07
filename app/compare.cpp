#include "app/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "app/output.hpp"
#include "app/report.hpp"
#include "app/mann_whitney.hpp"
#include "app/report_reader.hpp"
#include "core/frame/registry.hpp"

namespace accsum::cli::compare {

using nlohmann::json;

namespace {

// ---- reading ----

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw UsageError(printable(path) + ": " + what);
}

const json& member(const json& obj, const char* key, json::value_t type, const std::string& path,
                   const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) bad(path, where + " has no '" + key + "'");
  const bool ok = it->type() == type || (type == json::value_t::number_float && it->is_number());
  if (!ok) bad(path, where + "." + key + " is a " + it->type_name() + ", not the expected type");
  return *it;
}

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "K=2 variant=fused" (keys sorted: nlohmann's objects are ordered maps).
std::string params_key(const json& params) {
  std::string s;
  for (auto it = params.begin(); it != params.end(); ++it) s += (s.empty() ? "" : " ") + it.key() + "=" + text_of(*it);
  return s;
}

std::string dataset_key(const json& d) {
  const std::string generator = text_of(d.value("generator", json("?")));
  std::string s = generator;
  if (generator == "file") {
    if (d.contains("content_hash"))
      s += " " + text_of(d["content_hash"]);
    else if (d.contains("source"))
      s += " " + text_of(d["source"]);  // older reports: the path
  }
  if (d.contains("n")) s += " n=" + text_of(d["n"]);
  if (d.contains("shape") && d["shape"].is_object())
    s += fmt::format(" shape={}x{}x{}", text_of(d["shape"].value("rows", json())),
                     text_of(d["shape"].value("cols", json())), text_of(d["shape"].value("inner", json())));
  if (d.contains("data_params") && d["data_params"].is_object() && !d["data_params"].empty())
    s += " " + params_key(d["data_params"]);
  if (d.contains("range_requested") && !d["range_requested"].is_null()) s += " range=" + text_of(d["range_requested"]);
  if (d.contains("cond_requested") && !d["cond_requested"].is_null()) s += " cond=" + text_of(d["cond_requested"]);
  if (generator != "file" && d.contains("seed")) s += " seed=" + text_of(d["seed"]);
  return s;
}

std::string row_key(const json& r, const json& dataset) {
  std::string s = text_of(r["family"]) + " " + text_of(r["algo"]) + "@" + text_of(r["backend"]);
  const std::string p = params_key(r["params"]);
  return s + (p.empty() ? "" : " [" + p + "]") + " | " + dataset_key(dataset);
}

// ---- judging ----

// A number a report writes as a JSON number, or as "nan" / "inf" / "-inf".
double number_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  return NAN;
}

// The value as one double when the report's hex text is one (not e.g. a matrix summary).
bool scalar_hex(const json& v, double& out) {
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool flag(const json& r, const char* key) { return r.contains(key) && r[key].is_boolean() && r[key].get<bool>(); }

// Correctly rounded as the report states it: the flag, and, for a scalar result, the value
// itself equal to the exact result rounded (so an edited value cannot keep a stale flag).
bool correctly_rounded(const json& r, const json& ref) {
  if (!flag(r, "correctly_rounded")) return false;
  double v = 0, x = 0;
  if (scalar_hex(r.value("value_hex", json()), v) && scalar_hex(ref.value("rounded_hex", json()), x))
    return r["value_hex"] == ref["rounded_hex"];
  return true;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

void add(Outcome& out, const std::string& file, const std::string& row, const std::string& aspect, std::string old_v,
         std::string new_v, std::string verdict, int sign, std::string detail = "", std::string delta = "",
         double p = -1) {
  Change c;
  c.file = file;
  c.row = row;
  c.aspect = aspect;
  c.old_value = std::move(old_v);
  c.new_value = std::move(new_v);
  c.delta = std::move(delta);
  c.p_value = p;
  c.verdict = std::move(verdict);
  c.regression = sign < 0;
  c.improvement = sign > 0;
  c.detail = std::move(detail);
  out.changes.push_back(std::move(c));
}

void judge_accuracy(const Row& b, const Row& n, const Options& o, const std::string& file, Outcome& out) {
  const json &rb = b.row, &rn = n.row;
  const std::string& key = b.key;
  const bool err_b = rb.contains("error"), err_n = rn.contains("error");
  if (err_b || err_n) {
    if (!err_b)
      add(out, file, key, "accuracy", "ran", "error", "run failed", -1, text_of(rn["error"]));
    else if (!err_n)
      add(out, file, key, "accuracy", "error", "ran", "run fixed", +1, text_of(rb["error"]));
    return;
  }
  // Another exact result: the data or the oracle changed, so no row of it can be compared.
  const std::string ref_b = text_of(b.reference.value("rounded_hex", json())),
                    ref_n = text_of(n.reference.value("rounded_hex", json()));
  const std::string dec_b = text_of(b.reference.value("exact_decimal", json())),
                    dec_n = text_of(n.reference.value("exact_decimal", json()));
  if (ref_b != ref_n || dec_b != dec_n) {
    add(out, file, key, "accuracy", ref_b, ref_n, "reference changed", -1,
        "the exact result differs: the data or the oracle changed");
    return;
  }
  struct Claim {
    const char* what;
    bool before, after;
    const char* lost;
    const char* gained;
    bool lost_is_regression;
  };
  const bool promised_repro = flag(rb, "promises_reproducible") || flag(rn, "promises_reproducible");
  const Claim claims[] = {
      {"guarantee_met", flag(rb, "guarantee_met"), flag(rn, "guarantee_met"), "guarantee broken", "guarantee now met",
       true},
      {"correctly_rounded", correctly_rounded(rb, b.reference), correctly_rounded(rn, n.reference),
       "correct rounding lost", "now correctly rounded", true},
      {"faithful", flag(rb, "faithful"), flag(rn, "faithful"), "faithfulness lost", "now faithful", true},
      {"reproducible", flag(rb, "reproducible"), flag(rn, "reproducible"),
       promised_repro ? "reproducibility lost" : "no longer reproducible (not promised)", "now reproducible",
       promised_repro},
  };
  bool claim_changed = false;
  for (auto& c : claims)
    if (c.before != c.after) {
      claim_changed = true;
      std::string detail = c.what, old_v = yes_no(c.before), new_v = yes_no(c.after);
      if (std::string(c.what) == "correctly_rounded") {  // show the values beside the exact result
        old_v = text_of(rb.value("value_hex", json()));
        new_v = text_of(rn.value("value_hex", json()));
        detail = "exact result rounded: " + text_of(n.reference.value("rounded_hex", json()));
      }
      if (!c.after && rn.contains("violation")) detail += ": " + text_of(rn["violation"]);
      add(out, file, key, "accuracy", old_v, new_v, c.before ? c.lost : c.gained,
          c.before ? (c.lost_is_regression ? -1 : 0) : +1, detail);
    }
  // The proven bound: only where both reports claim one (null: no bound, or outside its domain).
  const json wb = rb.value("within_bound", json()), wn = rn.value("within_bound", json());
  if (wb.is_boolean() && wn.is_boolean() && wb != wn)
    add(out, file, key, "accuracy", yes_no(wb.get<bool>()), yes_no(wn.get<bool>()),
        wb.get<bool>() ? "bound exceeded" : "now within bound", wb.get<bool>() ? -1 : +1,
        fmt::format("bound {}", text_of(rn.value("bound", json()))));
  // The error in ulps (the worst entry's, for families of many results); digits beside it.
  const double ub = number_of(rb.value("ulps", json())), un = number_of(rn.value("ulps", json()));
  const std::string digits =
      fmt::format("digits {} -> {}", text_of(rb.value("digits", json())), text_of(rn.value("digits", json())));
  const std::string ulps_b = text_of(rb.value("ulps", json())), ulps_n = text_of(rn.value("ulps", json()));
  const bool special = flag(b.reference, "special");
  if (!special && std::isfinite(ub) && !std::isfinite(un)) {
    add(out, file, key, "accuracy", ulps_b + " ulps", ulps_n + " ulps", "error grew", -1, digits);
  } else if (!special && !std::isfinite(ub) && std::isfinite(un)) {
    add(out, file, key, "accuracy", ulps_b + " ulps", ulps_n + " ulps", "error shrank", +1, digits);
  } else if (std::isfinite(ub) && std::isfinite(un) && ub != un) {
    const std::string delta = fmt::format("{:+.3g} ulps", un - ub);
    if (un > ub * (1 + o.accuracy_tolerance))
      add(out, file, key, "accuracy", ulps_b + " ulps", ulps_n + " ulps", "error grew", -1, digits, delta);
    else if (un * (1 + o.accuracy_tolerance) < ub)
      add(out, file, key, "accuracy", ulps_b + " ulps", ulps_n + " ulps", "error shrank", +1, digits, delta);
    else
      add(out, file, key, "accuracy", ulps_b + " ulps", ulps_n + " ulps", "error within tolerance", 0, digits, delta);
  } else if (!claim_changed && text_of(rb.value("value_hex", json())) != text_of(rn.value("value_hex", json()))) {
    add(out, file, key, "accuracy", text_of(rb.value("value_hex", json())), text_of(rn.value("value_hex", json())),
        "value changed", 0, "same error, another value");
  }
}

std::vector<std::string> devices_of(const json& machine, const std::vector<Row>& rows) {
  std::vector<std::string> d;
  if (machine.contains("devices") && machine["devices"].is_array()) {
    for (auto& v : machine["devices"]) d.push_back(text_of(v));
  } else {  // reports written before machine.devices: the rows' placement lines
    for (auto& r : rows)
      if (r.row.contains("placement") && r.row["placement"].is_array())
        for (auto& line : r.row["placement"]) {
          std::string name = device_name(text_of(line));
          if (!name.empty() && std::find(d.begin(), d.end(), name) == d.end()) d.push_back(name);
        }
  }
  std::sort(d.begin(), d.end());
  return d;
}

// What a valid JSON document that is not an accsum report is: "null", "schema accsum-peers/1", ...
std::string kind_of_document(const json& doc) {
  if (!doc.is_object()) return doc.type_name();
  if (!doc.contains("schema")) return "an object without 'schema'";
  return "schema " + clipped(text_of(doc["schema"]), 80);
}

}  // namespace

Report load(const std::string& path, uint64_t max_bytes, std::string* not_report) {
  return report_of(read_json_file(path, max_bytes), path, not_report);
}

Report report_of(const json& doc, const std::string& path, std::string* not_report) {
  const bool is_report = doc.is_object() && doc.contains("schema") && doc["schema"] == "accsum-report/1";
  if (!is_report) {
    if (not_report) {
      *not_report = kind_of_document(doc);
      return {};
    }
    bad(path, "not an accsum-report/1 document (" + kind_of_document(doc) + ")");
  }
  if (not_report) not_report->clear();
  Report rep;
  rep.path = path;
  rep.machine =
      doc.contains("machine") ? member(doc, "machine", json::value_t::object, path, "the report") : json::object();
  rep.tool = doc.contains("tool") ? member(doc, "tool", json::value_t::object, path, "the report") : json::object();
  // A one-dataset report has its rows at the top level and in runs[0]: both are read, and a
  // document where they differ is not one accsum wrote.
  if (doc.contains("runs") && doc.contains("results")) {
    const json& runs = member(doc, "runs", json::value_t::array, path, "the report");
    if (runs.size() != 1 || !runs[0].is_object())
      bad(path, "top-level results beside runs[] of " + std::to_string(runs.size()) + " datasets");
    for (const char* key : {"dataset", "reference", "results"})
      if (doc.value(key, json()) != runs[0].value(key, json()))
        bad(path, std::string("the top-level '") + key + "' differs from runs[0]'s");
  }
  // Every dataset's rows are in runs[]; a one-dataset report has them at the top level too.
  json runs = doc.contains("runs") ? member(doc, "runs", json::value_t::array, path, "the report")
                                   : json::array({json{{"dataset", doc.value("dataset", json())},
                                                       {"reference", doc.value("reference", json())},
                                                       {"results", doc.value("results", json())}}});
  std::map<std::string, int> seen;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string where = fmt::format("runs[{}]", i);
    if (!runs[i].is_object()) bad(path, where + " is not an object");
    const json& dataset = member(runs[i], "dataset", json::value_t::object, path, where);
    const json& reference = member(runs[i], "reference", json::value_t::object, path, where);
    const json& results = member(runs[i], "results", json::value_t::array, path, where);
    for (size_t k = 0; k < results.size(); ++k) {
      const std::string rw = fmt::format("{}.results[{}]", where, k);
      const json& r = results[k];
      if (!r.is_object()) bad(path, rw + " is not an object");
      for (const char* key : {"family", "algo", "backend"}) member(r, key, json::value_t::string, path, rw);
      member(r, "params", json::value_t::object, path, rw);
      if (r.contains("time_s")) {
        const json& t = member(r, "time_s", json::value_t::object, path, rw);
        if (t.contains("samples")) member(t, "samples", json::value_t::array, path, rw + ".time_s");
      }
      Row row;
      row.key = row_key(r, dataset);
      // The same configuration twice in one report (e.g. a repeated sweep value): matched in order.
      const int count = ++seen[row.key];
      if (count > 1) row.key += fmt::format(" #{}", count);
      row.row = r;
      row.reference = reference;
      rep.rows.push_back(std::move(row));
    }
  }
  return rep;
}

namespace {
// What else moves timings besides the change itself, said when it differs: the build (revision,
// compiler, CUDA architectures) and the host's thread count. Thread counts of cpu-mt rows and
// the device of every row are part of the row (its parameters, its placement).
void note_identity(const Report& b, const Report& n, const std::string& prefix, Outcome& out) {
  std::vector<std::string> diffs;
  for (const char* key : {"git", "compiler", "cuda_arch"}) {
    const json vb = b.tool.value(key, json()), vn = n.tool.value(key, json());
    if (vb != vn) diffs.push_back(fmt::format("{} {} -> {}", key, text_of(vb), text_of(vn)));
  }
  const json hb = b.machine.value("hardware_threads", json()), hn = n.machine.value("hardware_threads", json());
  if (hb != hn) diffs.push_back(fmt::format("hardware threads {} -> {}", text_of(hb), text_of(hn)));
  if (!diffs.empty())
    out.notes.push_back(
        prefix + "the runs differ in more than the change under test: " + fmt::format("{}", fmt::join(diffs, "; ")));
}

std::string describe_machine(const json& m, const std::vector<std::string>& devices) {
  std::string s = "CPU " + (m.contains("cpu") ? text_of(m["cpu"]) : std::string("unknown"));
  if (!devices.empty()) s += fmt::format(", devices {}", fmt::join(devices, ", "));
  return s;
}
}  // namespace

void compare_reports(const Report& base, const Report& fresh, const Options& o, const std::string& file, Outcome& out) {
  std::map<std::string, const Row*> by_key;
  for (auto& r : fresh.rows) by_key[r.key] = &r;
  std::map<std::string, bool> used;
  const std::vector<std::string> dev_b = devices_of(base.machine, base.rows),
                                 dev_n = devices_of(fresh.machine, fresh.rows);
  const std::string cpu_b = base.machine.contains("cpu") ? text_of(base.machine["cpu"]) : "",
                    cpu_n = fresh.machine.contains("cpu") ? text_of(fresh.machine["cpu"]) : "";
  const bool same_machine = cpu_b == cpu_n && dev_b == dev_n;
  const bool speed = !o.accuracy_only && (same_machine || o.force);
  const std::string prefix = file.empty() ? "" : file + ": ";
  if (o.accuracy_only) {
    out.notes.push_back(prefix + "speed not compared (--accuracy-only)");
  } else if (!same_machine) {
    out.notes.push_back(prefix + (o.force ? "speed compared across machines (--force): " : "speed not compared: ") +
                        "the reports come from different machines (" + describe_machine(base.machine, dev_b) + " vs " +
                        describe_machine(fresh.machine, dev_n) + ")" + (o.force ? "" : "; --force compares anyway"));
  }
  out.speed_compared |= speed;
  out.speed_method = speed_method(o);
  if (speed) note_identity(base, fresh, prefix, out);
  for (auto& b : base.rows) {
    auto it = by_key.find(b.key);
    if (it == by_key.end()) {
      ++out.only_base;
      add(out, file, b.key, "presence", "present", "missing", "only in base", -1,
          "the new report has no row of this configuration");
      continue;
    }
    ++out.matched;
    used[b.key] = true;
    judge_accuracy(b, *it->second, o, file, out);
    if (speed) judge_speed(b, *it->second, o, file, out);
  }
  for (auto& n : fresh.rows)
    if (!used.count(n.key)) {
      ++out.only_new;
      add(out, file, n.key, "presence", "missing", "present", "only in new", 0,
          "a configuration the base report has not");
    }
}

int Outcome::regressions() const {
  return static_cast<int>(std::count_if(changes.begin(), changes.end(), [](const Change& c) { return c.regression; }));
}

int Outcome::improvements() const {
  return static_cast<int>(std::count_if(changes.begin(), changes.end(), [](const Change& c) { return c.improvement; }));
}

std::string Outcome::summary() const {
  const int reg = regressions(), imp = improvements();
  const size_t other = changes.size() - static_cast<size_t>(reg + imp);
  std::string s = fmt::format(
      "{}: {} regression(s), {} improvement(s), {} other change(s); {} row(s) matched, {} only in "
      "base, {} only in new",
      reg ? "REGRESSION" : "OK", reg, imp, other, matched, only_base, only_new);
  if (files_only_base || files_only_new)
    s += fmt::format("; {} file(s) only in base, {} only in new", files_only_base, files_only_new);
  s += "; speed: ";
  if (!speed_compared) return s + "not compared";
  s += fmt::format("{} row(s) judged", speed_judged);
  if (speed_baselines) s += fmt::format(", {} baseline(s) (the ratios' yardstick)", speed_baselines);
  if (speed_not_comparable) s += fmt::format(", {} not speed-comparable (listed)", speed_not_comparable);
  return s + " [" + speed_method + "]";
}

}  // namespace accsum::cli::compare
