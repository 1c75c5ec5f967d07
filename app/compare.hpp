#pragma once
// accsum compare: two accsum-report/1 documents (or two directories of them) judged row by row.
// Rows are matched by configuration (family, algorithm, backend, parameters, dataset); accuracy is
// judged from what each report states (guarantee, correct rounding, faithfulness, bound,
// reproducibility, error), speed by default from each repetition's ratio to the baseline timed
// beside it in the same run (raw times on request), with a two-sided Mann-Whitney U test plus a
// minimum effect. docs/compare.md explains every verdict.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace accsum::cli::compare {

// What speed is judged on: each repetition's ratio to the baseline timed beside it (a machine's
// drift moves both alike), or the raw times.
enum class SpeedBasis { ratio, time };

struct Options {
  SpeedBasis speed_basis = SpeedBasis::ratio;
  double speed_tolerance = 0.05;  // a speed change smaller than this fraction is no verdict
  double accuracy_tolerance = 0;  // error growth (ulps) beyond this fraction is a regression
  bool accuracy_only = false;     // no speed verdicts
  bool force = false;             // compare speed across machines
};

// Significance level of the rank test (at 0.05, google/benchmark's level, 4 of 200 same-build pairs
// measured by scripts/speed_gate_rates.py raised a false alarm; at 0.01 none did), and the fewest
// repetitions per side it judges: with 5 and
// 5 the smallest two-sided exact p-value is 2/252 = 0.008; with 3 and 3 it is 0.1 and no change
// could ever be significant.
constexpr double kAlpha = 0.01;
constexpr size_t kMinSamples = 5;

// One row of a report, with what it is matched by.
struct Row {
  std::string key;           // configuration: "sum sumk@cpu [K=2] | illcond n=65536 cond=1e+10 seed=1"
  nlohmann::json row;        // the result object
  nlohmann::json reference;  // its dataset's exact reference
};

struct Report {
  std::string path;
  nlohmann::json machine = nlohmann::json::object(), tool = nlohmann::json::object();  // objects, also when absent
  std::vector<Row> rows;
};

// Reads and checks an accsum-report/1 document (app/report_reader.hpp: at most max_bytes, nesting
// bounded); UsageError (one line) for a missing or unreadable file, malformed JSON, or another
// document (`not_report` set instead when it is given: what the valid JSON document is, for
// directory mode; "" for a report).
Report load(const std::string& path, uint64_t max_bytes, std::string* not_report = nullptr);
// The same checks on a parsed document; `path` names it in errors.
Report report_of(const nlohmann::json& doc, const std::string& path, std::string* not_report = nullptr);

struct Change {
  std::string file;    // directory mode: the file name; else ""
  std::string row;     // the row's configuration key
  std::string aspect;  // "accuracy", "speed", "presence"
  std::string old_value, new_value, delta;
  double p_value = -1;  // speed: the rank test's p (< 0: none)
  std::string verdict;  // "guarantee broken", "slower", "only in base", ...
  bool regression = false, improvement = false;
  std::string detail;
};

struct Outcome {
  std::vector<Change> changes;
  std::vector<std::string> notes;  // why speed was not judged, skipped files, ...
  size_t matched = 0, only_base = 0, only_new = 0;
  size_t files_only_base = 0, files_only_new = 0;  // directory mode
  size_t speed_judged = 0, speed_too_few = 0, speed_without_samples = 0;
  size_t speed_baselines = 0;       // ratio basis: the baselines themselves (the ratios' yardstick)
  size_t speed_not_comparable = 0;  // listed rows that could not be judged (too few, no samples, ...)
  bool speed_compared = false;
  std::string speed_method;  // what speed was judged on, and by which test (one line)
  int regressions() const;
  int improvements() const;
  std::string summary() const;  // one line
};

// Compares two loaded reports; `file` labels the changes (directory mode).
void compare_reports(const Report& base, const Report& fresh, const Options& o, const std::string& file, Outcome& out);

// The speed verdict of one matched row (app/compare_speed.cpp): a "slower" / "faster" change, a
// "not speed-comparable" one with the reason, or nothing (no significant change).
void judge_speed(const Row& base, const Row& fresh, const Options& o, const std::string& file, Outcome& out);
// "ratio to the same-run baseline; two-sided Mann-Whitney U, p < 0.01, change > 5 %".
std::string speed_method(const Options& o);

}  // namespace accsum::cli::compare
