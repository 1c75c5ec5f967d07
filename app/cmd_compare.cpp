// accsum compare BASE NEW: two reports (or two directories of reports, matched by file name)
// judged row by row (app/compare.hpp); exit 1 on any regression, 2 on bad input.
#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "git_rev.hpp"
#include "app/commands.hpp"
#include "app/compare.hpp"
#include "app/output.hpp"
#include "app/parse.hpp"
#include "app/report.hpp"
#include "app/text_table.hpp"
#include "app/report_reader.hpp"

namespace accsum::cli {

using nlohmann::json;
using namespace compare;

namespace {

// "5%" or "0.05": a fraction, finite and non-negative.
double parse_fraction(const std::string& text, const char* option) {
  std::string s = text;
  double scale = 1;
  if (!s.empty() && s.back() == '%') {
    s.pop_back();
    scale = 0.01;
  }
  char* end = nullptr;
  errno = 0;
  const double v = s.empty() ? NAN : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno != 0 || !std::isfinite(v) || v < 0)
    throw UsageError(std::string(option) + " expects a non-negative fraction such as 0.05 or 5%, got '" + text + "'");
  return v * scale;
}

enum class Kind { file, directory };

Kind kind_of(const std::string& path, const char* which) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UsageError(std::string(which) + " " + printable(path) + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return Kind::directory;
  if (S_ISREG(st.st_mode)) return Kind::file;
  throw UsageError(std::string(which) + " " + printable(path) + ": neither a report file nor a directory");
}

// The *.json files of a directory (not recursive), sorted.
std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw UsageError(printable(dir) + ": " + std::strerror(errno));
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
      struct stat st {};
      if (::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) names.push_back(name);
    }
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// A file present in one directory only: missing from NEW is a regression (its rows went), new in
// NEW is listed.
Change file_presence(const std::string& name, bool in_base, const std::string& other_dir) {
  Change c;
  c.file = name;
  c.row = "(the whole file)";
  c.aspect = "presence";
  c.old_value = in_base ? "present" : "missing";
  c.new_value = in_base ? "missing" : "present";
  c.verdict = in_base ? "only in base" : "only in new";
  c.regression = in_base;
  c.detail = "no file of this name in " + other_dir;
  return c;
}

// A file that is a report on one side only. A report in BASE that NEW has replaced with another
// document ({}, null, another schema) is a regression, as a missing file is: its rows are gone.
Change not_a_report(const std::string& name, const std::string& what_b, const std::string& what_n) {
  Change c;
  c.file = name;
  c.row = "(the whole file)";
  c.aspect = "presence";
  c.old_value = what_b.empty() ? "a report" : what_b;
  c.new_value = what_n.empty() ? "a report" : what_n;
  c.regression = what_b.empty();
  c.verdict = what_b.empty() ? "no longer a report" : what_n.empty() ? "now a report" : "not a report";
  c.detail = what_b.empty() || what_n.empty() ? "an accsum-report/1 document on one side only"
                                              : "no accsum-report/1 document on either side: no rows to compare";
  return c;
}

void compare_directories(const std::string& base, const std::string& fresh, const Options& o, uint64_t max_bytes,
                         Outcome& out) {
  const auto nb = json_files(base), nn = json_files(fresh);
  for (auto& name : nb) {
    if (!std::binary_search(nn.begin(), nn.end(), name)) {
      ++out.files_only_base;
      out.changes.push_back(file_presence(name, true, fresh));
      continue;
    }
    std::string what_b, what_n;
    Report rb = load(base + "/" + name, max_bytes, &what_b), rn = load(fresh + "/" + name, max_bytes, &what_n);
    if (!what_b.empty() || !what_n.empty()) {
      out.changes.push_back(not_a_report(name, what_b, what_n));
      continue;
    }
    compare_reports(rb, rn, o, name, out);
  }
  for (auto& name : nn)
    if (!std::binary_search(nb.begin(), nb.end(), name)) {
      ++out.files_only_new;
      out.changes.push_back(file_presence(name, false, base));
    }
}

std::string p_text(double p) { return p < 0 ? "" : fmt::format("{:.2g}", p); }

std::string row_label(const Change& c) { return c.file.empty() ? c.row : c.file + ": " + c.row; }

const std::vector<std::string> kColumns{"row", "aspect", "old", "new", "delta", "p", "verdict", "detail"};

// Every cell printable (app/output.hpp): a report's row names and texts are read from a file, and
// a control character or a line break in one must not make one change print as several lines.
std::vector<std::string> cells(const Change& c) {
  std::vector<std::string> v{row_label(c),
                             c.aspect,
                             c.old_value,
                             c.new_value,
                             c.delta,
                             p_text(c.p_value),
                             c.verdict + (c.regression ? " (regression)" : ""),
                             c.detail};
  for (auto& cell : v) cell = printable(cell);
  return v;
}

TextRows change_rows(const Outcome& out) {
  TextRows rows{kColumns};
  for (auto& c : out.changes) rows.push_back(cells(c));
  return rows;
}

std::string as_table(const Outcome& out) {
  std::string s = out.changes.empty() ? "no changes\n" : aligned_table(change_rows(out));
  for (auto& n : out.notes) s += "note: " + printable(n) + "\n";
  return s + out.summary() + "\n";
}

std::string as_markdown(const Outcome& out) {
  std::string s = out.changes.empty() ? "No changes.\n\n" : markdown_table(change_rows(out)) + "\n";
  for (auto& n : out.notes) s += "- " + markdown_cell(printable(n)) + "\n";
  if (!out.notes.empty()) s += "\n";
  return s + "**" + markdown_cell(out.summary()) + "**\n";
}

std::string as_csv(const Outcome& out) {
  std::vector<std::string> head{"file",  "row",     "aspect",  "old",        "new",
                                "delta", "p_value", "verdict", "regression", "detail"};
  std::string s = csv_record(head);
  for (auto& c : out.changes)
    s += csv_record({printable(c.file), printable(c.row), c.aspect, printable(c.old_value), printable(c.new_value),
                     c.delta, p_text(c.p_value), c.verdict, c.regression ? "true" : "false", printable(c.detail)});
  return s;
}

std::string as_json(const Outcome& out, const CompareArgs& a, const Options& o, int code) {
  json j;
  j["schema"] = "accsum-compare/1";
  j["tool"] = tool_json();
  j["base"] = utf8_safe(a.base);
  j["new"] = utf8_safe(a.fresh);
  j["options"] = {{"speed", o.speed_basis == SpeedBasis::ratio ? "ratio" : "time"},
                  {"speed_tolerance", o.speed_tolerance},
                  {"accuracy_tolerance", o.accuracy_tolerance},
                  {"accuracy_only", o.accuracy_only},
                  {"force", o.force},
                  {"alpha", kAlpha},
                  {"min_samples", kMinSamples}};
  j["rows"] = {{"matched", out.matched}, {"only_in_base", out.only_base}, {"only_in_new", out.only_new}};
  j["files"] = {{"only_in_base", out.files_only_base}, {"only_in_new", out.files_only_new}};
  j["speed"] = {{"compared", out.speed_compared},
                {"judged", out.speed_judged},
                {"too_few_samples", out.speed_too_few},
                {"without_samples", out.speed_without_samples},
                {"baselines", out.speed_baselines},
                {"not_comparable", out.speed_not_comparable},
                {"method", out.speed_method}};
  json changes = json::array();
  for (auto& c : out.changes)
    changes.push_back({{"file", c.file},
                       {"row", c.row},
                       {"aspect", c.aspect},
                       {"old", c.old_value},
                       {"new", c.new_value},
                       {"delta", c.delta},
                       {"p_value", c.p_value < 0 ? json(nullptr) : json(c.p_value)},
                       {"verdict", c.verdict},
                       {"regression", c.regression},
                       {"improvement", c.improvement},
                       {"detail", c.detail}});
  j["changes"] = changes;
  j["notes"] = out.notes;
  j["regressions"] = out.regressions();
  j["improvements"] = out.improvements();
  j["summary"] = out.summary();
  j["exit_code"] = code;
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

int run_compare(const CompareArgs& a) {
  Options o;
  o.speed_tolerance = parse_fraction(a.speed_tolerance, "--speed-tolerance");
  o.accuracy_tolerance = parse_fraction(a.accuracy_tolerance, "--accuracy-tolerance");
  o.accuracy_only = a.accuracy_only;
  o.speed_basis = a.speed == "time" ? SpeedBasis::time : SpeedBasis::ratio;
  o.force = a.force;
  if (o.accuracy_only && o.force) throw UsageError("--force compares speed, --accuracy-only leaves it out: give one");
  const uint64_t max_bytes = a.max_size.empty() ? kJsonMaxBytes : static_cast<uint64_t>(parse_size(a.max_size));
  const Kind kb = kind_of(a.base, "BASE"), kn = kind_of(a.fresh, "NEW");
  if (kb != kn) throw UsageError("BASE and NEW must both be report files or both directories");
  Outcome out;
  if (kb == Kind::directory) {
    compare_directories(a.base, a.fresh, o, max_bytes, out);
  } else {
    Report rb = load(a.base, max_bytes), rn = load(a.fresh, max_bytes);
    compare_reports(rb, rn, o, "", out);
  }
  const int code = out.regressions() > 0 ? 1 : 0;
  std::string text;
  if (a.format == "json")
    text = as_json(out, a, o, code);
  else if (a.format == "csv")
    text = as_csv(out);
  else if (a.format == "md")
    text = as_markdown(out);
  else
    text = as_table(out);
  write_stdout(text);
  // Machine-readable formats keep stdout to themselves; the summary goes to stderr.
  if (a.format == "csv" || a.format == "json") std::cerr << out.summary() << "\n";
  return code;
}

}  // namespace accsum::cli
