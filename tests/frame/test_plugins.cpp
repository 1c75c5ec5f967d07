// Plugins (include/accsum/plugin.h): the example plugins load, run and verify like built-ins;
// every hostile plugin is one line and exit 2; a false claim is caught with a shrunk,
// reproducible counter-example; a plugin error marks its row; a crash names what was running.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/frame/registry.hpp"
#include "tests/cli_run.hpp"

#if defined(ACCSUM_HAVE_EXAMPLE_PLUGINS)

using nlohmann::json;

namespace {

std::string plugin(const std::string& name) { return std::string(ACCSUM_PLUGIN_DIR) + "/" + name + ".so"; }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The rows of a JSON report (every dataset's).
std::vector<json> rows_of(const std::string& text) {
  std::vector<json> rows;
  json doc = json::parse(text);
  for (auto& run : doc["runs"])
    for (auto& r : run["results"]) rows.push_back(r);
  return rows;
}

// accsum bench --plugin=NAME --algo=ALGOS --backend=cpu OPTIONS
cli_test::CliRun bench_plugin(const std::string& name, const std::string& algos, const std::string& options) {
  return cli_test::accsum("bench --plugin=" + plugin(name) + " --algo=" + algos + " --backend=cpu " + options);
}

// The rows of ALGO in the JSON report of bench_plugin (none where the run failed).
std::vector<json> bench_rows(const std::string& name, const std::string& algo, const std::string& options) {
  auto r = bench_plugin(name, algo, options + " --format=json");
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<json> rows;
  if (r.code != 0) return rows;
  for (auto& x : rows_of(r.out))
    if (x["algo"] == algo) rows.push_back(x);
  return rows;
}

const json* row(const std::vector<json>& rows, const std::string& algo) {
  for (auto& r : rows)
    if (r["algo"] == algo) return &r;
  return nullptr;
}

// `cmd` through the shell in directory `dir`.
cli_test::CliRun shell_in(const std::string& dir, const std::string& cmd) {
  std::string out = cli_test::tmpdir() + "/sh_out.txt", err = cli_test::tmpdir() + "/sh_err.txt";
  int status = std::system(("cd '" + dir + "' && " + cmd + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, cli_test::slurp(out), cli_test::slurp(err)};
}

std::string fresh_dir(const std::string& name) {
  std::string d = cli_test::tmpdir() + "/" + name;
  ::mkdir(d.c_str(), 0755);
  return d;
}

}  // namespace

TEST(Plugins, ListShowsEveryExamplePluginWithItsClaim) {
  auto r = cli_test::accsum("list --plugin=" + plugin("kahan_sum") + "," + plugin("dot2") + " --plugin " +
                            plugin("small_gemm") + " --plugin=" + plugin("false_claim_sum") + " --format=json");
  ASSERT_EQ(r.code, 0) << r.err;
  json doc = json::parse(r.out);
  std::map<std::string, json> by_name;
  for (auto& a : doc["algorithms"]) by_name[a["algo"]] = a;
  ASSERT_TRUE(by_name.count("kahan-plugin") && by_name.count("dot2-plugin") && by_name.count("gemm-plugin") &&
              by_name.count("overclaimed-sum"));
  EXPECT_EQ(by_name["kahan-plugin"]["guarantee"], "none");
  EXPECT_EQ(by_name["overclaimed-sum"]["guarantee"], "correctly-rounded");
  EXPECT_EQ(by_name["dot2-plugin"]["guarantee"], "bound");
  EXPECT_EQ(by_name["dot2-plugin"]["family"], "dot");
  EXPECT_EQ(by_name["gemm-plugin"]["backends"][0]["params"][0]["name"], "accumulate");
}

TEST(Plugins, EnvironmentVariableLoadsPluginsToo) {
  ::setenv("ACCSUM_PLUGINS", plugin("kahan_sum").c_str(), 1);
  auto r = cli_test::accsum("list");
  ::unsetenv("ACCSUM_PLUGINS");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("kahan-plugin"), std::string::npos);
  // The table shows each algorithm's summary, a plugin's as the plugin states it.
  EXPECT_NE(r.out.find("Kahan compensated summation (a plugin, claims nothing)"), std::string::npos) << r.out;
}

// The command verify prints names the plugin with --plugin; with $ACCSUM_PLUGINS naming the same
// file (or a link to it, or a second --plugin) it is loaded once, and the command runs.
TEST(Plugins, OneFileNamedTwiceIsLoadedOnce) {
  const std::string link = cli_test::tmpdir() + "/kahan_twice.so";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(plugin("kahan_sum").c_str(), link.c_str()), 0);
  ::setenv("ACCSUM_PLUGINS", plugin("kahan_sum").c_str(), 1);
  auto r = cli_test::accsum("bench --plugin=" + plugin("kahan_sum") + " --plugin=" + link + "," + plugin("kahan_sum") +
                            " --algo=kahan-plugin --backend=cpu --n=100 --reps=1");
  ::unsetenv("ACCSUM_PLUGINS");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("kahan-plugin"), std::string::npos) << r.out;
}

TEST(Plugins, AFaithfulViolationShowsTheValues) {
  const std::string dir = fresh_dir("faithful_claim");
  auto r = shell_in(dir, std::string(ACCSUM_BIN) + " verify --plugin=" + plugin("hostile_13") +
                             " --algo=hostile-sum --backend=cpu --seeds=1");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const auto at = r.out.find("not faithful (0x");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" vs ", at), std::string::npos) << r.out;
}

TEST(Plugins, BenchRunsAPluginBesideTheBaselineAndJudgesIt) {
  auto r = bench_plugin("kahan_sum", "kahan-plugin", "--n=1000 --dist=illcond --cond=1e20 --reps=3 --format=json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto rows = rows_of(r.out);
  const json* k = row(rows, "kahan-plugin");
  ASSERT_TRUE(k && row(rows, "naive"));
  EXPECT_EQ((*k)["baseline"], "naive");
  EXPECT_GT((*k)["ratio_to_baseline"].get<double>(), 0);
  EXPECT_EQ((*k)["time_s"]["reps"], 3);
  EXPECT_TRUE((*k)["guarantee_met"].get<bool>());
  EXPECT_FALSE((*k)["correctly_rounded"].get<bool>());  // cond 1e20: Kahan loses every digit
}

TEST(Plugins, ParametersSweepLikeBuiltInOnesAndBoundsAreHeld) {
  const auto rows =
      bench_rows("dot2", "dot2-plugin", "--n=2000 --dist=illcond --cond=1e12 --reps=1 --param twoprod=fma,split");
  EXPECT_EQ(rows.size(), 2u);
  for (auto& x : rows) {
    EXPECT_TRUE(x["within_bound"].get<bool>()) << x.dump();
    EXPECT_EQ(x["bound_cite"], "stated by plugin dot2-example");
  }
  auto bad = bench_plugin("dot2", "dot2-plugin", "--n=10 --param twoprod=magic");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("not allowed"), std::string::npos) << bad.err;
}

TEST(Plugins, VerifyHoldsHonestPluginsToTheirClaims) {
  auto r =
      cli_test::accsum("verify --plugin=" + plugin("kahan_sum") + "," + plugin("dot2") + "," + plugin("small_gemm") +
                       " --algo=kahan-plugin,dot2-plugin,gemm-plugin --backend=cpu --seeds=1");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 result(s) broke their guarantee"), std::string::npos) << r.out;
  for (const char* name : {"kahan-plugin", "dot2-plugin", "gemm-plugin"}) {
    auto at = r.out.find(std::string(name) + " ");
    ASSERT_NE(at, std::string::npos) << name;
    int cases = 0;
    std::sscanf(r.out.c_str() + at, "%*s %*s %*s %d", &cases);
    EXPECT_GT(cases, 10) << name << ": " << r.out;  // a sweep that ran no case is a failure
  }
}

TEST(Plugins, TableHasAColumnPerPlugin) {
  for (const char* suite : {"accuracy", "kfold"}) {  // a suite of every entry, and one of fixed columns
    auto r = cli_test::accsum(std::string("table --suite=") + suite + " --n=300 --plugin=" + plugin("kahan_sum"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto at = r.out.find("| kahan-plugin |");
    EXPECT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("| kahan-plugin |", at + 1), std::string::npos) << "one column: " << r.out;
  }
}

TEST(Plugins, GemmPluginIsJudgedEntryByEntry) {
  const auto rows =
      bench_rows("small_gemm", "gemm-plugin", "--shape=24,16,40 --reps=1 --param accumulate=float,double");
  EXPECT_EQ(rows.size(), 2u);
  for (auto& x : rows) EXPECT_TRUE(x.contains("value_hex") || x.contains("abs_err")) << x.dump();
}

TEST(Plugins, FalseClaimIsCaughtWithAShrunkCounterExampleThatBenchReproduces) {
  const std::string dir = fresh_dir("false_claim");
  const std::string verify = std::string(ACCSUM_BIN) + " verify --plugin=" + plugin("false_claim_sum") +
                             " --algo=overclaimed-sum --backend=cpu --seeds=1";
  auto r = shell_in(dir, verify);
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  auto at = r.out.find("reproduce: accsum bench --input=");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string command = r.out.substr(at + 11, r.out.find('\n', at) - at - 11);
  const std::string file = command.substr(21, command.find(' ', 21) - 21);
  EXPECT_EQ(file.rfind("counterexample-overclaimed-sum-cpu", 0), 0u) << command;
  EXPECT_NE(command.find("--plugin=" + plugin("false_claim_sum")), std::string::npos) << command;

  // The printed command, run where verify ran, reproduces the broken claim on <= 64 elements.
  auto again = shell_in(dir, std::string(ACCSUM_BIN) + command.substr(6) + " --format=json");
  ASSERT_EQ(again.code, 1) << again.err;
  json doc = json::parse(again.out);
  EXPECT_LE(doc["dataset"]["n"].get<int64_t>(), 64);
  EXPECT_GE(doc["dataset"]["n"].get<int64_t>(), 2);
  const auto again_rows = rows_of(again.out);
  const json* x = row(again_rows, "overclaimed-sum");
  ASSERT_TRUE(x);
  EXPECT_FALSE((*x)["guarantee_met"].get<bool>());
  EXPECT_FALSE((*x)["correctly_rounded"].get<bool>());

  // A second run never overwrites the first file; with a report the file goes next to it.
  const std::string first = cli_test::slurp(dir + "/" + file);
  auto second = shell_in(dir, verify);
  EXPECT_EQ(second.code, 1);
  EXPECT_EQ(cli_test::slurp(dir + "/" + file), first);
  EXPECT_NE(second.out.find("counterexample-overclaimed-sum-cpu-1.npy"), std::string::npos) << second.out;
  const std::string reports = fresh_dir("false_claim_reports");
  auto third = shell_in(dir, verify + " --json=" + reports + "/v.json");
  EXPECT_EQ(third.code, 1);
  struct stat st;
  EXPECT_EQ(::stat((reports + "/counterexample-overclaimed-sum-cpu.npy").c_str(), &st), 0) << third.out;
}

// A gemm counter-example is the matrices A and B, written as .npy files that `bench --input=A,B`
// reads, with the command that reproduces the broken claim.
TEST(Plugins, AGemmCounterExampleIsWrittenAsTwoMatricesThatReproduceIt) {
  const std::string dir = fresh_dir("gemm_claim");
  auto r = shell_in(dir, std::string(ACCSUM_BIN) + " verify --plugin=" + plugin("hostile_11") +
                             " --algo=hostile-sum --backend=cpu --seeds=1");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  auto at = r.out.find(
      "reproduce: accsum bench --input=counterexample-hostile-sum-cpu-A.npy,"
      "counterexample-hostile-sum-cpu-B.npy ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(shell_in(dir, "ls").out, "counterexample-hostile-sum-cpu-A.npy\ncounterexample-hostile-sum-cpu-B.npy\n");
  const std::string command = r.out.substr(at + 11, r.out.find('\n', at) - at - 11);
  auto again = shell_in(dir, std::string(ACCSUM_BIN) + command.substr(6) + " --format=json");
  ASSERT_EQ(again.code, 1) << command << ": " << again.err;
  const auto rows = rows_of(again.out);
  const json* x = row(rows, "hostile-sum");
  ASSERT_TRUE(x) << again.out;
  EXPECT_FALSE((*x)["guarantee_met"].get<bool>()) << x->dump();
}

TEST(Plugins, AReproducibilityClaimIsCheckedOverRunsPermutationAndParameterValues) {
  auto r = bench_plugin("hostile_12", "hostile-sum", "--n=1000 --dist=uniform-sym --reps=2 --format=json");
  EXPECT_EQ(r.code, 1) << r.err;
  auto rows = rows_of(r.out);
  const json* x = row(rows, "hostile-sum");
  ASSERT_TRUE(x) << r.out;
  EXPECT_TRUE((*x)["promises_reproducible"].get<bool>());
  EXPECT_FALSE((*x)["reproducible"].get<bool>());
  EXPECT_EQ((*x)["reproducible_checks"], json::array({"runs", "order=backward", "permutation"})) << x->dump();
  EXPECT_NE((*x)["violation"].get<std::string>().find("not reproducible"), std::string::npos);
}

TEST(Plugins, HostilePluginsAreOneLineAndExitTwo) {
  const std::string text_file = cli_test::tmpdir() + "/not_a_library.so";
  {
    std::ofstream f(text_file);
    f << "this is not an ELF file\n";
  }
  const std::pair<std::string, std::string> cases[] = {
      {text_file, "not a loadable shared library"},
      {cli_test::tmpdir() + "/missing.so", "No such file"},
      {plugin("hostile_1"), "no entry point accsum_plugin_register"},
      {plugin("hostile_2"), "ABI version 2"},
      {plugin("hostile_3"), "empty or invalid name"},
      {plugin("hostile_4"), "unknown family 77"},
      {plugin("hostile_5"), "unknown backend 99"},
      {plugin("hostile_6"), "taken by a built-in"},
      {plugin("hostile_9") + "," + plugin("hostile_10"), "taken by plugin"},
      {plugin("hostile_14"), "claims a bound, which only a sum or dot plugin may"},
      {plugin("hostile_15"), "states a bound but claims none"},
      {"", "non-empty path"},
  };
  // Every subcommand that takes plugins, in turn (they share the loading path).
  const char* commands[] = {"list", "bench --n=10 --reps=1", "verify --seeds=1", "info --n=1000 --reps=1",
                            "table --n=100"};
  size_t i = 0;
  for (auto& [paths, expected] : cases) {
    const char* cmd = commands[i++ % 5];
    auto r = cli_test::accsum(std::string(cmd) + " --plugin='" + paths + "'");
    EXPECT_EQ(r.code, 2) << cmd << " " << paths << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("accsum: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << paths << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  ::setenv("ACCSUM_PLUGINS", plugin("hostile_2").c_str(), 1);
  auto r = cli_test::accsum("list");
  ::unsetenv("ACCSUM_PLUGINS");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("ABI version"), std::string::npos) << r.err;
}

// A plugin is an input like any --input file: no --json or --out may replace it, by its own name
// or through a link, and the library is left as it was.
TEST(Plugins, APluginFileIsAnInputNoOutputMayReplace) {
  const std::string copy = cli_test::tmpdir() + "/kahan_copy.so", link = cli_test::tmpdir() + "/kahan_link.so";
  std::ifstream src(plugin("kahan_sum"), std::ios::binary);
  std::ofstream(copy, std::ios::binary) << src.rdbuf();
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(copy.c_str(), link.c_str()), 0);
  const std::string before = cli_test::slurp(copy);
  for (const std::string out : {" --json=" + copy, " --out=" + link})
    for (const char* cmd : {"bench --algo=kahan-plugin --backend=cpu --n=10 --reps=1",
                            "verify --algo=kahan-plugin --seeds=1", "table --n=100"}) {
      auto r = cli_test::accsum(std::string(cmd) + " --plugin=" + copy + out);
      EXPECT_EQ(r.code, 2) << cmd << out << ": " << r.err;
      EXPECT_NE(r.err.find("--plugin"), std::string::npos) << r.err;
    }
  EXPECT_EQ(cli_test::slurp(copy), before);
}

TEST(Plugins, AnErrorReturnedByAPluginMarksItsRowAndTheRunGoesOn) {
  auto r = bench_plugin("hostile_7", "hostile-sum,kahan", "--n=100 --reps=1 --format=json");
  EXPECT_EQ(r.code, 1) << r.err;
  auto rows = rows_of(r.out);
  const json* bad = row(rows, "hostile-sum");
  const json* good = row(rows, "kahan");
  ASSERT_TRUE(bad && good) << r.out;
  EXPECT_NE((*bad)["error"].get<std::string>().find("returned error 42: the device is on fire"), std::string::npos);
  EXPECT_TRUE((*good)["guarantee_met"].get<bool>());
}

TEST(Plugins, ACrashNamesThePluginTheAlgorithmAndTheDataset) {
  auto r = bench_plugin("hostile_8", "hostile-sum", "--n=100 --dist=uniform --reps=1");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("plugin 'hostile' (" + plugin("hostile_8") + ") crashed in algorithm 'hostile-sum'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("on dataset sum uniform n=100 seed=1 (SIGSEGV)"), std::string::npos) << r.err;
}

// On a GPU: the atomicAdd sum claims reproducibility and verify must catch it (exit 1, a
// counter-example bench reproduces); bench shows it beside CUB, its baseline.
TEST(Plugins, CudaAtomicSumClaimingReproducibilityIsCaught) {
  const accsum::BackendInfo* cuda = accsum::registry().backend("cuda");
  if (!cuda || (cuda->available && !cuda->available())) GTEST_SKIP() << "no CUDA backend or device here";
  auto b = cli_test::accsum(
      "bench --plugin=" + plugin("atomic_sum") +
      " --backend=cuda --algo=atomic-sum-plugin --n=2^22 --reps=5 --param blocks=120,1024 --format=json");
  auto rows = rows_of(b.out);
  const json* x = row(rows, "atomic-sum-plugin");
  ASSERT_TRUE(x && row(rows, "cub-sum")) << b.out << b.err;
  EXPECT_EQ((*x)["baseline"], "cub-sum");
  const std::string dir = fresh_dir("cuda_plugin");
  auto v = shell_in(dir, std::string(ACCSUM_BIN) + " verify --plugin=" + plugin("atomic_sum") +
                             " --backend=cuda --algo=atomic-sum-plugin --seeds=1");
  EXPECT_EQ(v.code, 1) << v.out << v.err;
  EXPECT_NE(v.out.find("not reproducible"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("reproduce: accsum bench --input="), std::string::npos) << v.out;
}

#else
TEST(Plugins, Skipped) { GTEST_SKIP() << "example plugins not built (ACCSUM_EXAMPLES=OFF)"; }
#endif
