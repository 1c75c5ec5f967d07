// The reporters: each receives a dataset's rows when they are complete and writes its format.
#include <algorithm>
#include <iostream>

#include "app/commands.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "git_rev.hpp"

namespace accsum::cli {

namespace {

using nlohmann::json;

// Text to stdout as each dataset completes, or to a file (-o) handed over at the end, when
// every file of the run is written together (app/output.hpp).
class TextSink {
 public:
  explicit TextSink(std::string path) : path_(std::move(path)) {}
  void put(const std::string& text) {
    if (path_.empty())
      write_stdout(text);
    else
      buffer_ += text;
  }
  void close(std::vector<OutputItem>& files) {
    if (!path_.empty()) files.push_back({path_, std::move(buffer_)});
  }

 private:
  std::string path_, buffer_;
};

class TextReporter : public Reporter {
 public:
  TextReporter(std::string format, std::string path) : format_(std::move(format)), sink_(std::move(path)) {}
  void dataset_done(const RunRecord& run) override {
    if (format_ == "csv" && first_) sink_.put(csv_header());
    first_ = false;
    sink_.put(format_ == "csv" ? report_csv(run) : format_ == "md" ? report_markdown(run) : report_table(run));
  }
  void finish(std::vector<OutputItem>& files) override {
    if (format_ == "csv" && first_) sink_.put(csv_header());
    sink_.close(files);
  }
  void incomplete(const std::string& why) override {
    if (format_ != "csv") sink_.put("INCOMPLETE: the run stopped early: " + printable(why) + "\n");
  }

 private:
  std::string format_;
  TextSink sink_;
  bool first_ = true;
};

// The accsum-report/1 document. Each dataset is serialised when it completes, so datasets need
// not outlive their run.
class JsonReporter : public Reporter {
 public:
  JsonReporter(std::string path, const std::vector<std::string>& argv, const std::vector<std::string>& backends)
      : sink_(std::move(path)), backends_(backends) {
    doc_["schema"] = "accsum-report/1";
    doc_["tool"] = tool_json();
    doc_["command"] = argv;
    runs_ = json::array();
  }
  void dataset_done(const RunRecord& run) override {
    runs_.push_back(run_json(run));
    for (auto& r : run.rows) {
      all_met_ &= r.guarantee_met;
      for (auto& line : r.placement)
        if (std::find(placements_.begin(), placements_.end(), line) == placements_.end()) placements_.push_back(line);
    }
  }
  void finish(std::vector<OutputItem>& files) override {
    // After the runs: backends describe what they started and bound (MPI's ranks, the devices).
    doc_["machine"] = machine_json(backends_, placements_);
    // One dataset: its keys at the top level too, so simple scripts read doc["results"].
    if (runs_.size() == 1)
      for (const char* k : {"dataset", "reference", "results"}) doc_[k] = runs_[0][k];
    doc_["runs"] = runs_;
    doc_["all_guarantees_met"] = all_met_;
    if (!incomplete_.empty()) doc_["incomplete"] = incomplete_;
    // Invalid UTF-8 (a file name in the command) is replaced, not fatal.
    sink_.put(doc_.dump(runs_.size() > 1 ? 1 : 2, ' ', false, json::error_handler_t::replace) + "\n");
    sink_.close(files);
  }

 private:
  void incomplete(const std::string& why) override { incomplete_ = utf8_safe(why); }

  TextSink sink_;
  std::vector<std::string> backends_, placements_;
  json doc_, runs_;
  bool all_met_ = true;
  std::string incomplete_;  // why the run stopped early ("" when complete)
};

}  // namespace

Reporters::Reporters(const OutArgs& out, std::vector<std::string> argv, std::vector<std::string> backends,
                     bool text_to_stdout) {
  if (process_rank() != 0) return;  // other MPI ranks report nothing
  if (text_to_stdout) {
    if (out.format == "json")
      list_.push_back(std::make_unique<JsonReporter>(out.out, argv, backends));
    else
      list_.push_back(std::make_unique<TextReporter>(out.format, out.out));
  }
  if (!out.json.empty()) list_.push_back(std::make_unique<JsonReporter>(out.json, argv, backends));
}

void Reporters::dataset_done(const RunRecord& run) {
  for (auto& r : list_) r->dataset_done(run);
  ++datasets_;
}

void Reporters::finish_incomplete(const std::string& why, std::vector<OutputItem> files, const std::string& summary) {
  if (datasets_ == 0) return;
  for (auto& r : list_) r->incomplete(why);
  finish(std::move(files), summary);
}

void Reporters::finish(std::vector<OutputItem> files, const std::string& summary) {
  if (process_rank() != 0) return;
  for (auto& r : list_) r->finish(files);
  write_outputs(files);
  if (!summary.empty()) write_stdout(summary);
}

}  // namespace accsum::cli
