// libFuzzer target: the command line. app/main.cpp is compiled with -Dmain=accsum_cli_main and
// linked with the stubs below instead of the commands, so fuzzed argv goes through the real
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

void check_data(const DataArgs& d) {
  parse_sizes(d.n);
  for (auto& r : split_list(d.range)) parse_positive(r, "--range");
  for (auto& c : split_list(d.cond)) parse_positive(c, "--cond");
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
  check_data(a.data);
  for (int64_t n : parse_sizes(a.data.n)) {
    GenSpec s{a.data.dist.empty() ? "uniform" : a.data.dist, a.family, n, a.data.seed, 1e16, 1e16};
    validate(s);
  }
  return 0;
}
int run_list(const std::string&) { return 0; }
int run_info(const std::string& n, int) {
  parse_size(n);
  return 0;
}
int run_table(const TableArgs& a, const std::vector<std::string>&) {
  parse_size(a.n);
  return 0;
}
void emit(const OutArgs&, const std::string&) {}
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
