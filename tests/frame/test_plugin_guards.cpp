// What a plugin may reach outside its call (tests/plugins/escaping.c): writes past its output or
// into its const inputs, crashes and exit() while loading, registering or computing end the run
// with one line naming the plugin and exit 3; its locale and its stdout never reach the reports.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/frame/registry.hpp"
#include "tests/cli_run.hpp"

namespace {

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::vector<std::string> swept(long long min, long long max, const std::string& def) {
  accsum::ParamSpec s;
  s.min = min;
  s.max = max;
  s.def = def;
  return accsum::swept_values(s);
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST(PluginSweep, IntegerRangesAreSweptAtTheirEndsAndLogSpacedPoints) {
  EXPECT_EQ(swept(0, 3, "1"), (std::vector<std::string>{"0", "1", "2", "3"}));
  const auto wide = swept(1, 1000000000, "64");
  for (const char* v : {"1", "178", "31623", "5623413", "1000000000", "64"}) EXPECT_TRUE(has(wide, v)) << v;
  EXPECT_EQ(wide.size(), 6u);
  const auto both = swept(-1000, 1000, "7");
  for (const char* v : {"-1000", "-1", "0", "1", "1000", "7", "-32", "32"}) EXPECT_TRUE(has(both, v)) << v;
  const auto all = swept(LLONG_MIN, LLONG_MAX, "0");
  EXPECT_TRUE(has(all, std::to_string(LLONG_MIN)) && has(all, std::to_string(LLONG_MAX)) && has(all, "0"));
  EXPECT_LE(all.size(), 16u);
}

#if defined(ACCSUM_HAVE_EXAMPLE_PLUGINS)

namespace {

std::string plugin(const std::string& name) { return std::string(ACCSUM_PLUGIN_DIR) + "/" + name + ".so"; }

void expect_plugin_line(const cli_test::CliRun& r, const std::string& what, const std::string& context) {
  EXPECT_EQ(r.code, 3) << context << ": " << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1) << context << ": " << r.err;
  EXPECT_EQ(r.err.rfind("accsum: error: plugin '", 0), 0u) << context << ": " << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << context << ": " << r.err;
}

std::string bench(const std::string& name) {
  return "bench --plugin=" + plugin(name) + " --algo=escaping-algo --backend=cpu --n=100 --reps=1";
}

}  // namespace

TEST(PluginGuards, WritesOutsideTheOutputOrIntoAConstInputAreOneLineAndExitThree) {
  const std::pair<std::string, std::string> cases[] = {
      {"escaping_1", "crashed in algorithm 'escaping-algo' on dataset sum uniform n=100 seed=1 (SIGSEGV)"},
      {"escaping_2", "crashed in algorithm 'escaping-algo' on dataset sum uniform n=100 seed=1 (SIGSEGV)"},
      {"escaping_11",
       "crashed in algorithm 'escaping-algo' on dataset sum uniform n=100 seed=1 (wrote before its "
       "output buffer)"},
  };
  for (auto& [name, expected] : cases) expect_plugin_line(cli_test::accsum(bench(name)), expected, name);
  auto gemm = cli_test::accsum("bench --plugin=" + plugin("escaping_10") +
                               " --algo=escaping-algo --backend=cpu --shape=5,3,7 --reps=1");
  expect_plugin_line(gemm, "plugin 'escaping' (" + plugin("escaping_10") + ") crashed in algorithm 'escaping-algo'",
                     "gemm");
  EXPECT_NE(gemm.err.find("(SIGSEGV)"), std::string::npos) << gemm.err;
}

TEST(PluginGuards, ACrashOrExitWhileLoadingOrRegisteringIsOneLineAndExitThree) {
  const std::pair<std::string, std::string> cases[] = {
      {"escaping_3", "crashed while loading (SIGSEGV)"},
      {"escaping_4", "crashed while registering (SIGSEGV)"},
      {"escaping_6", "crashed while loading (called exit)"},
      {"escaping_7", "crashed while registering (called exit)"},
  };
  for (auto& [name, expected] : cases) {
    auto r = cli_test::accsum("list --plugin=" + plugin(name));
    expect_plugin_line(r, "plugin '" + plugin(name) + "' " + expected, name);
    EXPECT_TRUE(r.out.empty()) << name << ": " << r.out;
  }
}

TEST(PluginGuards, ExitInComputeIsOneLineAndExitThree) {
  for (const char* name : {"escaping_5", "escaping_8"}) {
    auto r = cli_test::accsum(bench(name) + " --format=json");
    expect_plugin_line(r, "crashed in algorithm 'escaping-algo' on dataset sum uniform n=100 seed=1 (called exit)",
                       name);
  }
}

// A plugin that sets a decimal-comma locale and prints to stdout, in its entry point and in
// compute: the command line still parses 2.5e3, the JSON on stdout stays JSON with hex floats
// written with a point, and the plugin's text goes to stderr (where its "2,5" shows the locale
// really was in force).
TEST(PluginGuards, APluginsLocaleAndStdoutNeverReachTheReports) {
  const std::string locales = cli_test::fresh_dir("locales");
  if (std::system(("localedef -i de_DE -f UTF-8 " + locales + "/de_DE.UTF-8 >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "localedef cannot make de_DE.UTF-8 here (package locales)";
  ::setenv("LOCPATH", locales.c_str(), 1);
  auto r = cli_test::accsum("bench --plugin=" + plugin("escaping_9") +
                            " --algo=escaping-algo,kahan --backend=cpu --dist=illcond --cond 2.5e3 --n=200 --reps=2"
                            " --format=json");
  auto l = cli_test::accsum("list --plugin=" + plugin("escaping_9") + " --format=json");
  ::unsetenv("LOCPATH");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("noise from compute 2,5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("noise from the entry point"), std::string::npos) << r.err;
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(r.out)) << r.out;
  int rows = 0;
  for (auto& run : doc["runs"])
    for (auto& row : run["results"]) {
      ++rows;
      const std::string hex = row["value_hex"];
      EXPECT_EQ(hex.find(','), std::string::npos) << hex;
      EXPECT_NE(hex.find('.'), std::string::npos) << hex;
    }
  EXPECT_GE(rows, 3);
  EXPECT_EQ(l.code, 0) << l.err;
  EXPECT_NO_THROW(nlohmann::json::parse(l.out)) << l.out;
}

TEST(PluginGuards, VerifySweepsAnIntegerParameterAtItsEndsAndLogSpacedPoints) {
  const std::string report = cli_test::fresh_dir("sweep") + "/v.json";
  auto r = cli_test::accsum("verify --plugin=" + plugin("escaping_12") +
                            " --algo=escaping-algo --backend=cpu --seeds=1 --json=" + report);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  std::set<std::string> seen;
  const nlohmann::json doc = nlohmann::json::parse(cli_test::slurp(report));
  for (auto& run : doc["runs"])
    for (auto& row : run["results"]) {
      const auto& b = row["params"]["blocks"];
      seen.insert(b.is_string() ? b.get<std::string>() : std::to_string(b.get<long long>()));
    }
  EXPECT_EQ(seen, (std::set<std::string>{"1", "178", "31623", "5623413", "1000000000", "64"}));
}

#endif
