#pragma once
// The subcommands. main.cpp parses with CLI11 into these structs; each run_* returns the exit
// code (0 ok, 1 a guarantee broken / a run failed, 2 bad input via UsageError).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/output.hpp"
#include "app/select.hpp"
#include "core/frame/family.hpp"

namespace accsum::cli {

// --n=small: each family's own small size (app/data_specs.cpp).
constexpr const char* kSmallSizesKeyword = "small";

struct DataArgs {
  std::string n;                               // "" = the family's default_n, else 2^24; "small"
  std::string dist;                            // "" = the family's first generator, or the one a data option implies
  std::map<std::string, std::string> options;  // family data options (--range, --cond, ...): lists
  std::string input;                           // a file instead of a generator
  uint64_t seed = 1;
};

// The datasets DataArgs asks for, for one family (generated or read): a sweep over sizes and
// every data option's list. Throws UsageError for options that do not apply.
std::vector<GenSpec> specs_of(const DataArgs& d, const FamilyDescriptor& f);
// A warning on stderr when the generated data's exact condition number `achieved` is far from the
// --cond that spec asked for (gen and bench).
void warn_if_cond_missed(const GenSpec& spec, double achieved);

struct OutArgs {
  std::string format = "table";  // table, json, csv, md (stdout)
  std::string json;              // also write the JSON report here
  std::string out;               // write the stdout format here instead of stdout
};

struct BenchArgs {
  std::string algo = "all";
  std::string backend;  // "" = best available
  DataArgs data;
  int reps = 10, warmup = 2;
  bool no_repro_check = false;
  std::string generate = "host";  // or "by-index": no process holds the data (Dataset::generated_by)
  ParamLists params;
  OutArgs out;
};
int run_bench(const BenchArgs& a, const std::vector<std::string>& argv);

struct VerifyArgs {
  std::string algo = "all";
  std::string backend = "all";
  bool full = false;
  bool dry_run = false;  // count each algorithm's cases without running them
  int seeds = 0;         // 0 = default for the mode
  ParamLists params;
  OutArgs out;
};
int run_verify(const VerifyArgs& a, const std::vector<std::string>& argv);

struct GenArgs {
  DataArgs data;
  std::string family = "sum";  // a family descriptor's name
  std::string output;
  std::string dtype = "f8";
};
int run_gen(const GenArgs& a);

int run_list(const std::string& format);
int run_info(const std::string& n, int reps);

struct TableArgs {
  std::string suite = "kfold";
  std::string backend = "cpu";
  std::string n = "10000";
  uint64_t seed = 1;
  int reps = 0;  // > 0: every cell also shows the median throughput of reps timed runs
  OutArgs out;
};
int run_table(const TableArgs& a, const std::vector<std::string>& argv);

struct CompareArgs {
  std::string base, fresh;  // report files, or directories of them matched by file name
  std::string format = "table";
  std::string speed_tolerance = "5%", accuracy_tolerance = "0";
  std::string speed = "ratio";  // ratio: to the baseline timed beside each row; time: raw times
  bool accuracy_only = false, force = false;
  std::string max_size;  // the largest report read, bytes ("": app/report_reader.hpp kJsonMaxBytes)
};
int run_compare(const CompareArgs& a);

// Shared by the commands: emit `text` to --out or stdout (rank 0 only), `json` to --json
// (app/output.hpp: files first, together, then stdout; a closed stdout pipe is not an error).
void emit(const OutArgs& o, const std::string& text, const std::string& json = "");
// Checks --json and --out before any long run: writable, distinct, and none of `inputs` (every
// file the run reads: input_files below, and any other file a command is given).
void check_outputs(const OutArgs& o, const std::vector<NamedPath>& inputs = {});
bool progress_enabled();  // stderr is a terminal and this is rank 0
class Reporters;
// A run stopped by `why` part way: the datasets already reported are written, marked
// incomplete (app/report.hpp Reporters::finish_incomplete); a failure to write joins `why`.
void keep_completed(Reporters& out, const std::string& why, std::vector<OutputItem> files = {},
                    const std::string& summary = "");

}  // namespace accsum::cli
