// libFuzzer target: the command line. app/main.cpp is compiled with -Dmain=accsum_cli_main and
// linked with the stand-ins below instead of the commands, so fuzzed argv goes through the real
// CLI11 set-up, main's own checks (--param, exceptions -> exit codes) and the value parsers
// (sizes, lists, ranges, algorithm/backend/parameter selection on cpu and cpu-mt) without
// running anything. The input is split on '\n' and '\0' into at most 24 arguments.
// Exit code 3 (an internal error: an exception other than UsageError escaped) is a bug: abort.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/parse.hpp"
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

int accsum_cli_main(int argc, char** argv);

namespace accsum::cli {
namespace {

// Only backends that need no device or MPI runtime are selected for real.
bool host_only(const std::string& backends) {
  if (backends.empty()) return false;
  for (auto& b : split_list(backends))
    if (b != "cpu" && b != "cpu-mt") return false;
  return true;
}

// The datasets the data options ask for, for every family, through the real spec builder and
// generators (small sizes only: values are checked, nothing big is made).
void check_data(const DataArgs& d) {
  for (auto& f : families())
    for (auto& spec : specs_of(d, f))
      if (spec.n <= 1024) f.generate(spec);
}

}  // namespace

int run_bench(const BenchArgs& a, const std::vector<std::string>&) {
  check_data(a.data);
  if (host_only(a.backend)) select(a.algo, a.backend, a.params, true);
  return 0;
}
int run_verify(const VerifyArgs& a, const std::vector<std::string>&) {
  if (host_only(a.backend)) select(a.algo, a.backend, a.params, false);
  return 0;
}
int run_gen(const GenArgs& a) {
  for (auto& spec : specs_of(a.data, family(a.family)))
    if (spec.n <= 1024) family(a.family).generate(spec);
  return 0;
}
int run_list(const std::string&) { return 0; }
int run_compare(const CompareArgs&) { return 0; }  // reads files: the parsing of its options is what is fuzzed
int run_info(const std::string& n, int) {
  parse_size(n);
  return 0;
}
int run_table(const TableArgs& a, const std::vector<std::string>&) {
  parse_size(a.n);
  return 0;
}
void emit(const OutArgs&, const std::string&, const std::string&) {}
bool progress_enabled() { return false; }

}  // namespace accsum::cli

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"accsum"};
  std::string cur;
  for (size_t i = 0; i < size && args.size() < 24; ++i) {
    char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty() && args.size() < 24) args.push_back(cur);
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  int rc = accsum_cli_main(static_cast<int>(args.size()), argv.data());
  if (rc == 3) std::abort();
  return 0;
}
