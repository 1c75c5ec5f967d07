#pragma once
// Reporting, separated from measuring as google/benchmark separates them: reporters receive
// each dataset's results as they are produced and know nothing of kernels. Console table, CSV,
// Markdown and the accsum-report/1 JSON document; on MPI ranks other than 0 there are none.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/harness.hpp"
#include "app/output.hpp"

namespace accsum::cli {

struct OutArgs;

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Every row of one dataset, baselines attached: the dataset is reported now, then may go.
  virtual void dataset_done(const RunRecord& run) = 0;
  // The run is over: the reporter adds its file (path, content), if it writes one; the
  // Reporters write every file of the run together (app/output.hpp).
  virtual void finish(std::vector<OutputItem>& files) = 0;
  // The run stopped before its end (before finish): `why` is said in the report.
  virtual void incomplete(const std::string& why) { (void)why; }
};

// Everything the commands print and write, in one place: the stdout format (or -o), and the
// JSON document for --json. Rank gating lives here: other ranks get no reporter at all.
class Reporters {
 public:
  Reporters(const OutArgs& out, std::vector<std::string> argv, std::vector<std::string> backends,
            bool text_to_stdout = true);
  void dataset_done(const RunRecord& run);
  // Writes every file together: the reporters' and `files` (a command's own, e.g. -o), then
  // prints `summary` on stdout.
  void finish(std::vector<OutputItem> files = {}, const std::string& summary = "");
  // The run stopped early (`why`): when some dataset was reported, its rows are written as
  // finish writes them, the report marked incomplete (JSON: "incomplete": why); else nothing.
  void finish_incomplete(const std::string& why, std::vector<OutputItem> files = {}, const std::string& summary = "");

 private:
  std::vector<std::unique_ptr<Reporter>> list_;
  int datasets_ = 0;
};

// The parts of a report, for the reporters and for commands with their own summary text.
// The machine: host, CPU, the backends' descriptions, and `devices`: the name of every accelerator
// named in `placements` (the rows' placement lines, every MPI rank's).
nlohmann::json machine_json(const std::vector<std::string>& backends, const std::vector<std::string>& placements = {});
// "NVIDIA H200" of a placement line such as "rank 1 on node7: cuda device 1 of 2: NVIDIA H200, PCI
// 0000:1b:00.0" or "device 0 of 1: ..."; "" when the line names no device.
std::string device_name(const std::string& placement);
// Identifies a dataset's numbers (x, y, matrices, data parameters): "fnv1a64:<16 hex digits>".
std::string content_hash(const Dataset& d);
nlohmann::json run_json(const RunRecord& run);
// The build: name, version, git revision, compiler, CUDA architectures ("" without CUDA).
nlohmann::json tool_json();
// How a row's repetitions alternate with its baseline's (app/harness.cpp measure_entry).
constexpr const char* kInterleaving = "ABBA";
std::string report_table(const RunRecord& run);  // console
std::string report_markdown(const RunRecord& run);
std::string csv_header();
std::string report_csv(const RunRecord& run);
// RFC 4180: a field quoted when it holds a comma, a double quote or a line break (quotes doubled);
// a record is its fields joined by commas, ended by CRLF.
std::string csv_field(const std::string& text);
std::string csv_record(const std::vector<std::string>& fields);
// A Markdown table cell: '|' escaped, line breaks as spaces, other control characters printable().
std::string markdown_cell(const std::string& text);

// Fails early (UsageError) when path cannot be written, before any long run.
void check_writable(const std::string& path);
// Writes path as app/output.hpp says (regular files: a temporary file renamed; never half-written).
void write_atomic(const std::string& path, const std::string& content);

std::string json_number_or_string(double v);  // for tables: "nan", "inf" or %.3g
nlohmann::json jnum(double v);                // NaN/inf as strings (JSON has no such numbers)

}  // namespace accsum::cli
