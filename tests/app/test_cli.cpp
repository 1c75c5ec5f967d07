// The CLI end to end: exit codes, one-line errors, JSON report keys, gen -> bench --input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/cli_run.hpp"

using namespace cli_test;  // accsum(), slurp(), tmpdir(), expect_usage_error (tests/cli_run.hpp)

TEST(Cli, HelpVersionAndList) {
  EXPECT_EQ(accsum("--help").code, 0);
  CliRun v = accsum("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find("accsum"), std::string::npos);
  CliRun l = accsum("list --format json");
  ASSERT_EQ(l.code, 0) << l.err;
  auto j = nlohmann::json::parse(l.out);
  bool has_sumk = false;
  for (auto& a : j["algorithms"]) has_sumk |= a["algo"] == "sumk";
  EXPECT_TRUE(has_sumk);
  // Every algorithm's family is a registered family descriptor.
  std::set<std::string> fams;
  for (auto& f : j["families"]) fams.insert(f["name"].get<std::string>());
  for (auto& a : j["algorithms"]) EXPECT_TRUE(fams.count(a["family"].get<std::string>())) << a["algo"];
}

TEST(Cli, BadInputIsOneLineAndExitTwo) {
  expect_usage_error("bench --algo=nosuch --n=100", "unknown algorithm");
  expect_usage_error("bench --algo=naive --backend=nosuch --n=100", "backend");
  expect_usage_error("bench --algo=naive --backend=cpu --dist=nosuch --n=100", "nosuch");
  expect_usage_error("bench --algo=sumk --backend=cpu --K=1 --n=100", "K");
  expect_usage_error("bench --algo=sumk --backend=cpu --K=x --n=100", "K");
  expect_usage_error("bench --algo=naive --backend=cpu --n=0", "size");
  expect_usage_error("bench --algo=naive --backend=cpu --n=-5", "size");
  expect_usage_error("bench --algo=naive --backend=cpu --n=2^60", "memory");
  expect_usage_error("bench --algo=naive --backend=cpu --range=0.5 --n=100", "range");
  expect_usage_error("bench --algo=naive --backend=cpu --cond=0.1 --n=100", "cond");
  expect_usage_error("bench --algo=naive --backend=cpu --K=2 --n=100", "parameter");
  expect_usage_error("bench --algo=naive --backend=cpu --n=100 --json=/nonexistent/dir/r.json", "cannot write");
  expect_usage_error("bench --algo=naive --backend=cpu --input=/nonexistent.npy", "nonexistent");
  expect_usage_error("bench --nosuchflag", "nosuchflag");
  expect_usage_error("gen --n=10 -o " + tmpdir() + "/x.weird", "weird");
}

// --generate=by-index: only entries that make their own data run; asking for one that
// cannot, or for a file, or for data that cannot be sliced, is a usage error.
TEST(Cli, GenerateByIndexRunsOnlyEntriesThatMakeTheirOwnData) {
  expect_usage_error("bench --generate=by-index --algo=naive --backend=cpu --n=100", "by-index");
  expect_usage_error("bench --generate=by-index --algo=superacc --backend=mpi --dist=illcond --n=100", "illcond");
  expect_usage_error("bench --generate=by-index --algo=superacc --backend=mpi --input=/nonexistent.npy", "input");
  expect_usage_error("bench --generate=elsewhere --algo=superacc --n=100", "generate");
  CliRun l = accsum("list --format json");
  ASSERT_EQ(l.code, 0) << l.err;
  bool mpi_sum_by_index = false;
  const auto listed = nlohmann::json::parse(l.out);
  for (auto& a : listed["algorithms"])
    if (a["algo"] == "superacc")
      for (auto& b : a["backends"])
        if (b["backend"] == "mpi") mpi_sum_by_index = b["by_index"].get<bool>();
  if (l.out.find("\"mpi\"") == std::string::npos) return;
  EXPECT_TRUE(mpi_sum_by_index);
  // The same data made whole on the host and by index: the same correctly rounded bits.
  std::string value[2];
  const char* where[2] = {"host", "by-index"};
  for (int i = 0; i < 2; ++i) {
    std::string path = tmpdir() + "/by_index_" + where[i] + ".json";
    CliRun r =
        accsum(std::string("bench --generate=") + where[i] +
               " --algo=superacc --backend=mpi --dist=loguniform --range=1e250 --n=100003 --reps=2 --json=" + path);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(slurp(path));
    for (auto& res : doc["results"])
      if (res["algo"] == "superacc" && res["backend"] == "mpi") {
        EXPECT_TRUE(res["correctly_rounded"].get<bool>()) << where[i];
        value[i] = res["value_hex"];
      }
  }
  EXPECT_FALSE(value[0].empty());
  EXPECT_EQ(value[0], value[1]);
}

TEST(Cli, MissingBackendIsAClearError) {
  // CUDA is compiled in CI but no GPU is present: asking for it must say so, not crash.
  CliRun r = accsum("bench --algo=cub-sum --backend=cuda --n=100");
  if (r.code == 0) GTEST_SKIP() << "a CUDA device is present here";
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(Cli, BenchWritesACompleteJsonReport) {
  std::string path = tmpdir() + "/r.json";
  CliRun r = accsum("bench --algo=naive,sumk --backend=cpu --n=1000 --reps=3 --K=2,3 --json=" + path);
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(doc["schema"], "accsum-report/1");
  for (auto key : {"tool", "machine", "command", "dataset", "reference", "results", "runs"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["dataset"]["n"], 1000);
  ASSERT_EQ(doc["results"].size(), 3u);  // naive (baseline) + sumk K=2 + K=3
  for (auto& res : doc["results"]) {
    for (auto key : {"algo", "backend", "params", "value_hex", "abs_err", "rel_err", "ulps", "digits",
                     "correctly_rounded", "faithful", "bound", "within_bound", "reproducible", "time_s", "throughput",
                     "guarantee", "ratio_to_baseline"})
      EXPECT_TRUE(res.contains(key)) << key;
    EXPECT_EQ(res["time_s"]["reps"], 3);
    EXPECT_TRUE(res["guarantee_met"].get<bool>());
  }
  EXPECT_EQ(doc["results"][1]["params"]["K"], 2);
  EXPECT_EQ(doc["results"][2]["within_bound"], true);
}

TEST(Cli, GenThenBenchInputRoundTrip) {
  std::string path = tmpdir() + "/ill.npy";
  CliRun g = accsum("gen --dist=illcond --cond=1e30 --n=2000 -o " + path);
  ASSERT_EQ(g.code, 0) << g.err;
  std::string json = tmpdir() + "/in.json";
  CliRun b = accsum("bench --algo=naive --backend=cpu --reps=1 --input=" + path + " --json=" + json);
  ASSERT_EQ(b.code, 0) << b.err;
  auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["dataset"]["n"], 2000);
  EXPECT_EQ(doc["dataset"]["generator"], "file");
  EXPECT_GT(doc["dataset"]["cond"].get<double>(), 1e25);
}

TEST(Cli, VerifyPassesOnTheSerialBackend) {
  CliRun r = accsum("verify --backend=cpu --algo=naive,sumk,dotk --seeds=1");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 result(s) broke"), std::string::npos) << r.out;
}

// The committed accuracy tables' reports are regenerated and compared by `accsum compare`, so an
// accuracy regression of any cpu algorithm (or of the generators or the oracle) fails CI.
TEST(Cli, CommittedAccuracyTablesAreReproduced) {
  expect_committed_report_reproduced("table --suite=accuracy --n=2^16", "results/accuracy_cpu_illcond.json");
  expect_committed_report_reproduced("table --suite=kfold --n=1e5", "results/kfold_table_cpu.json");
}
