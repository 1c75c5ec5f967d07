// accsum compare end to end: a report against itself, against edited copies (a value moved off
// the correctly rounded result, times scaled, another machine, a row gone), and bad inputs.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_run.hpp"

using namespace cli_test;
using nlohmann::json;

namespace {

// A report of the cpu backend with a correctly rounded row (superacc), 10 repetitions each.
const json& base_report() {
  static const json doc = [] {
    const std::string path = tmpdir() + "/cmp_base.json";
    CliRun r = accsum("bench --algo=superacc,sumk --backend=cpu --n=2000 --reps=10 --warmup=0 --K=2 --json=" + path);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(slurp(path));
  }();
  return doc;
}

json& row_of(json& doc, const std::string& algo) {
  for (auto& r : doc["runs"][0]["results"])
    if (r["algo"] == algo) return r;
  ADD_FAILURE() << "no row " << algo;
  static json none;
  return none;
}

// Fixed times, so the rank test sees exactly the intended change: 1.00 ms .. 1.09 ms for the row,
// `baseline_scale` times 2 ms for its baseline at every repetition; the ratios are their quotients.
void set_samples(json& row, double scale, double baseline_scale = 1.0) {
  json s = json::array(), b = json::array(), q = json::array();
  for (int i = 0; i < 10; ++i) {
    const double t = 1e-3 * (1 + 0.01 * i) * scale, base = 2e-3 * baseline_scale;
    s.push_back(t);
    b.push_back(base);
    q.push_back(base / t);
  }
  row["time_s"]["samples"] = s;
  row["time_s"]["median"] = 1.045e-3 * scale;
  row["time_s"]["min"] = 1e-3 * scale;
  row["time_s"]["max"] = 1.09e-3 * scale;
  row["time_s"]["reps"] = 10;
  if (row["time_s"].contains("ratio_samples")) {  // a row timed beside its baseline
    row["time_s"]["baseline_samples"] = b;
    row["time_s"]["ratio_samples"] = q;
  }
}

// A one-dataset report holds its rows twice (top level and runs[0]); the edits go to runs[0].
std::string save(json doc, const std::string& name) {
  if (doc.contains("results") && doc["runs"].size() == 1)
    for (const char* k : {"dataset", "reference", "results"}) doc[k] = doc["runs"][0][k];
  const std::string path = tmpdir() + "/" + name;
  write_file(path, doc.dump(1));
  return path;
}

// Base and new with the same fixed samples everywhere; `edit` changes the new one.
template <class Edit>
CliRun compare_edited(Edit edit, const std::string& options = "", double base_scale = 1.0) {
  json base = base_report(), fresh = base_report();
  for (auto* d : {&base, &fresh})
    for (auto& r : (*d)["runs"][0]["results"]) set_samples(r, base_scale);
  edit(fresh);
  return accsum("compare " + save(base, "b.json") + " " + save(fresh, "n.json") + " " + options);
}

// Runs `accsum compare ARGS`: exit code `code` and `fragment` in what it prints.
void expect_compare(const std::string& args, int code, const std::string& fragment) {
  CliRun r = accsum("compare " + args);
  EXPECT_EQ(r.code, code) << r.out;
  EXPECT_NE(r.out.find(fragment), std::string::npos) << r.out;
}

}  // namespace

TEST(Compare, AReportAgainstItselfHasNoChanges) {
  const std::string path = save(base_report(), "self.json");
  CliRun r = accsum("compare " + path + " " + path);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no changes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK: 0 regression(s)"), std::string::npos) << r.out;
  // The bench wrote a sample per repetition, and compare judged the speed of every row.
  for (auto& row : base_report()["results"]) EXPECT_EQ(row["time_s"]["samples"].size(), 10u) << row["algo"];
  EXPECT_EQ(r.out.find("not judged"), std::string::npos) << r.out;
}

TEST(Compare, AValueMovedOffTheCorrectlyRoundedResultIsARegression) {
  // Only the value is edited (the stale flags still say correctly rounded): compare checks the
  // value against the report's exact reference.
  CliRun r = compare_edited([](json& d) {
    json& row = row_of(d, "superacc");
    const double v = std::strtod(row["value_hex"].get<std::string>().c_str(), nullptr);
    char hex[64];
    std::snprintf(hex, sizeof hex, "%a", std::nextafter(v, INFINITY));
    row["value_hex"] = hex;
  });
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("superacc@cpu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("correct rounding lost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("REGRESSION"), std::string::npos) << r.out;
}

TEST(Compare, BrokenGuaranteeAndGrownErrorAreRegressions) {
  CliRun r = compare_edited([](json& d) {
    json& row = row_of(d, "superacc");
    row["guarantee_met"] = false;
    row["violation"] = "not correctly-rounded";
    json& sumk = row_of(d, "sumk");
    sumk["ulps"] = sumk["ulps"].get<double>() + 3;
  });
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("guarantee broken"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error grew"), std::string::npos) << r.out;
}

TEST(Compare, AccuracyToleranceAllowsASmallGrowth) {
  json base = base_report(), fresh = base_report();
  row_of(base, "sumk")["ulps"] = 2.0;
  row_of(fresh, "sumk")["ulps"] = 2.5;
  const std::string b = save(base, "tol_b.json"), n = save(fresh, "tol_n.json");
  expect_compare("--accuracy-only " + b + " " + n, 1, "error grew");
  expect_compare("--accuracy-only --accuracy-tolerance=50% " + b + " " + n, 0, "error within tolerance");
}

TEST(Compare, SamplesScaledByOneAndAHalfAreSlower) {
  CliRun r = compare_edited([](json& d) { set_samples(row_of(d, "sumk"), 1.5); });
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("sumk@cpu [K=2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("slower"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+50.0 %"), std::string::npos) << r.out;
  // The rank test's p-value is printed: 10 against 10, no overlap (scipy: 0.00018267...).
  EXPECT_NE(r.out.find("0.00018"), std::string::npos) << r.out;
}

TEST(Compare, SamplesScaledByOnePercentAreNoVerdict) {
  // scipy.stats.mannwhitneyu(x, 1.01 * x): U = 36.5, p = 0.3256; and +1 % is below the 5 % tolerance.
  CliRun r = compare_edited([](json& d) { set_samples(row_of(d, "sumk"), 1.01); });
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("slower"), std::string::npos) << r.out;
  // ... unless the tolerance is below the change and the change is significant.
  CliRun faster = compare_edited([](json& d) { set_samples(row_of(d, "sumk"), 0.5); });
  EXPECT_EQ(faster.code, 0) << faster.out;
  EXPECT_NE(faster.out.find("faster"), std::string::npos) << faster.out;
}

TEST(Compare, ReportsOfTwoMachinesSkipSpeedWithANote) {
  auto other_machine = [](json& d) {
    d["machine"]["cpu"] = "Another CPU";
    set_samples(row_of(d, "sumk"), 1.5);
  };
  CliRun r = compare_edited(other_machine);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("speed not compared"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Another CPU"), std::string::npos) << r.out;
  CliRun forced = compare_edited(other_machine, "--force");
  EXPECT_EQ(forced.code, 1) << forced.out;
  EXPECT_NE(forced.out.find("slower"), std::string::npos) << forced.out;
  // Accuracy is still judged across machines.
  CliRun acc = compare_edited([&](json& d) {
    other_machine(d);
    row_of(d, "superacc")["correctly_rounded"] = false;
  });
  EXPECT_EQ(acc.code, 1) << acc.out;
  EXPECT_NE(acc.out.find("correct rounding lost"), std::string::npos) << acc.out;
}

TEST(Compare, TooFewSamplesAreNotJudged) {
  CliRun r = compare_edited([](json& d) {
    json& row = row_of(d, "sumk");
    row["time_s"]["samples"] = json::array({5e-3, 5e-3, 5e-3});
    row["time_s"]["ratio_samples"] = json::array({0.4, 0.4, 0.4});
  });
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("not speed-comparable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fewer than 5 on a side"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 not speed-comparable (listed)"), std::string::npos) << r.out;
  CliRun off = compare_edited([](json& d) { set_samples(row_of(d, "sumk"), 1.5); }, "--accuracy-only");
  EXPECT_EQ(off.code, 0) << off.out;
  EXPECT_NE(off.out.find("--accuracy-only"), std::string::npos) << off.out;
}

TEST(Compare, UnmatchedRowsAreListed) {
  CliRun r = compare_edited([](json& d) {
    auto& rows = d["runs"][0]["results"];
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i]["algo"] == "sumk") rows.erase(i);
    json extra = row_of(d, "superacc");
    extra["params"]["fpe"] = 99;
    rows.push_back(extra);
  });
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("only in base"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only in new"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fpe=99"), std::string::npos) << r.out;
}

TEST(Compare, MachineReadableFormatsParse) {
  auto slower = [](json& d) { set_samples(row_of(d, "sumk"), 1.5); };
  CliRun j = compare_edited(slower, "--format=json");
  EXPECT_EQ(j.code, 1);
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["schema"], "accsum-compare/1");
  EXPECT_EQ(doc["regressions"], 1);
  ASSERT_EQ(doc["changes"].size(), 1u);
  EXPECT_EQ(doc["changes"][0]["verdict"], "slower");
  // scipy.stats.mannwhitneyu(x, 1.5 * x) for these samples: U = 0, p = 0.00018267179110955002
  EXPECT_NEAR(doc["changes"][0]["p_value"].get<double>(), 0.00018267179110955002, 1e-12);
  EXPECT_EQ(lines(j.err), 1) << j.err;  // the summary, on stderr
  CliRun c = compare_edited(slower, "--format=csv");
  EXPECT_EQ(c.code, 1);
  EXPECT_EQ(c.out.find("file,row,aspect,old,new,delta,p_value,verdict,regression,detail\r\n"), 0u) << c.out;
  CliRun m = compare_edited(slower, "--format=md");
  EXPECT_NE(m.out.find("| row | aspect |"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("\\| "), std::string::npos) << "the row's '|' is escaped: " << m.out;
}

TEST(Compare, DirectoriesAreMatchedByFileName) {
  const std::string b = tmpdir() + "/cmp_dir_base", n = tmpdir() + "/cmp_dir_new";
  mkdir(b.c_str(), 0755);
  mkdir(n.c_str(), 0755);
  write_file(b + "/a.json", base_report().dump());
  write_file(n + "/a.json", base_report().dump());
  write_file(b + "/notes.json", "{\"what\": \"not a report\"}");
  write_file(n + "/notes.json", "{\"what\": \"not a report\"}");
  CliRun same = accsum("compare " + b + " " + n);
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("notes.json: (the whole file)"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("not a report"), std::string::npos) << same.out;
  write_file(b + "/gone.json", base_report().dump());
  expect_compare(b + " " + n, 1, "gone.json");
  expect_compare(b + " " + n, 1, "1 file(s) only in base, 0 only in new");  // the summary counts it
}

TEST(Compare, BadInputIsOneLineAndExitTwo) {
  const std::string good = save(base_report(), "good.json");
  expect_usage_error("compare /nonexistent/base.json " + good, "nonexistent");
  expect_usage_error("compare " + good + " /nonexistent/new.json", "nonexistent");
  const std::string truncated = tmpdir() + "/truncated.json";
  write_file(truncated, base_report().dump().substr(0, 200));
  expect_usage_error("compare " + good + " " + truncated, "not valid JSON");
  const std::string other = tmpdir() + "/other.json";
  write_file(other, "{\"schema\": \"accsum-peers/1\", \"runs\": []}");
  expect_usage_error("compare " + other + " " + good, "not an accsum-report/1 document");
  const std::string no_rows = tmpdir() + "/no_rows.json";
  write_file(no_rows, "{\"schema\": \"accsum-report/1\", \"runs\": [{\"dataset\": {}, \"reference\": {}}]}");
  expect_usage_error("compare " + good + " " + no_rows, "results");
  expect_usage_error("compare " + good + " " + tmpdir(), "both");
  expect_usage_error("compare " + good + " /dev/null", "neither");
  expect_usage_error("compare " + good + " " + good + " --speed-tolerance=-1", "speed-tolerance");
  expect_usage_error("compare " + good + " " + good + " --speed-tolerance=5%%", "speed-tolerance");
  expect_usage_error("compare " + good, "NEW");
}

TEST(Compare, FileInputsAreMatchedByContentNotName) {
  const std::string a = tmpdir() + "/in_a.npy", b = tmpdir() + "/in_b.npy", c = tmpdir() + "/in_c.npy";
  ASSERT_EQ(accsum("gen --n=500 --seed=3 -o " + a).code, 0);
  ASSERT_EQ(accsum("gen --n=500 --seed=3 -o " + b).code, 0);
  ASSERT_EQ(accsum("gen --n=500 --seed=4 -o " + c).code, 0);
  auto report = [](const std::string& input, const std::string& name) {
    const std::string path = tmpdir() + "/" + name;
    CliRun r = accsum("bench --algo=superacc --backend=cpu --reps=1 --input=" + input + " --json=" + path);
    EXPECT_EQ(r.code, 0) << r.err;
    return path;
  };
  const std::string ra = report(a, "in_a.json"), rb = report(b, "in_b.json"), rc = report(c, "in_c.json");
  const json doc = json::parse(slurp(ra));
  EXPECT_EQ(doc["dataset"]["content_hash"].get<std::string>().rfind("fnv1a64:", 0), 0u) << doc["dataset"];
  expect_compare("--accuracy-only " + ra + " " + rb, 0, " 0 only in base, 0 only in new");
  expect_compare("--accuracy-only " + ra + " " + rc, 1, "only in base");
}

TEST(Compare, ListNamesFamiliesAndSuitesOnce) {
  CliRun l = accsum("list");
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_EQ(l.out.find("fpe,fpe"), std::string::npos) << l.out;
  const size_t families = l.out.find("\nfamilies:\n");
  ASSERT_NE(families, std::string::npos);
  const std::string tail = l.out.substr(families);
  EXPECT_LT(tail.find("  sum "), tail.find("  dot ")) << tail;
  EXPECT_LT(tail.find("  dot "), tail.find("  gemm ")) << tail;
  // The first algorithm listed is of the sum family.
  const std::string first = l.out.substr(l.out.find('\n') + 1);
  EXPECT_NE(first.substr(0, first.find('\n')).find(" sum "), std::string::npos) << first.substr(0, 200);
}

// The ratio to the baseline timed beside each row is the default basis: a machine slowed as a
// whole (row and baseline alike) is no verdict; the raw times on request see it.
TEST(Compare, DriftThatMovesRowAndBaselineAlikeIsNoVerdictOnRatios) {
  auto machine_slowed = [](json& d) {
    for (auto& r : d["runs"][0]["results"]) set_samples(r, 1.5, 1.5);
  };
  CliRun r = compare_edited(machine_slowed);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("slower"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ratio to the baseline timed beside each row"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("baseline(s) (the ratios' yardstick)"), std::string::npos) << r.out;
  CliRun t = compare_edited(machine_slowed, "--speed=time");
  EXPECT_EQ(t.code, 1) << t.out;
  EXPECT_NE(t.out.find("slower"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("raw times"), std::string::npos) << t.out;
  // The row alone slowed: its ratio falls, a regression on either basis.
  CliRun row = compare_edited([](json& d) { set_samples(row_of(d, "sumk"), 1.5, 1.0); });
  EXPECT_EQ(row.code, 1) << row.out;
  EXPECT_NE(row.out.find("median ratio to naive"), std::string::npos) << row.out;
  expect_usage_error("compare " + save(base_report(), "x.json") + " " + save(base_report(), "y.json") + " --speed=fast",
                     "--speed");
}

// Reports written before the ratios were recorded still compare: accuracy as ever, speed listed
// as not speed-comparable with the reason (never silently passed), and judged with --speed=time.
TEST(Compare, RowsWithoutRatiosAreListedNotPassed) {
  auto old_report = [](json& d) {
    d["tool"].erase("compiler");
    d["tool"].erase("cuda_arch");
    for (auto& r : d["runs"][0]["results"])
      for (const char* k : {"interleaving", "paired_with", "baseline_samples", "ratio_samples"}) r["time_s"].erase(k);
    set_samples(row_of(d, "sumk"), 1.5);
  };
  CliRun r = compare_edited(old_report);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("not speed-comparable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no per-repetition ratios"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 not speed-comparable (listed)"), std::string::npos) << r.out;  // superacc, sumk
  EXPECT_NE(r.out.find("compiler"), std::string::npos) << "the build difference is noted: " << r.out;
  CliRun t = compare_edited(old_report, "--speed=time");
  EXPECT_EQ(t.code, 1) << t.out;
  EXPECT_NE(t.out.find("slower"), std::string::npos) << t.out;
}

TEST(Compare, TheBuildAndTheDeviceArePartOfTheJudgement) {
  CliRun r = compare_edited([](json& d) { d["tool"]["git"] = "0123456789ab"; });
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("note: the runs differ in more than the change under test: git"), std::string::npos) << r.out;
  CliRun dev = compare_edited([](json& d) {
    row_of(d, "sumk")["placement"] = json::array({"cuda device 1 of 2: NVIDIA H100, PCI 0000:1b:00.0"});
  });
  EXPECT_NE(dev.out.find("ran on other devices"), std::string::npos) << dev.out;
}

TEST(Compare, TopLevelRowsAreReadToo) {
  json doc = base_report();
  const std::string b = save(doc, "top_b.json");
  json edited = json::parse(slurp(b));
  edited["results"][0]["ulps"] = 12345.0;  // the top-level copy only
  write_file(tmpdir() + "/top_n.json", edited.dump());
  expect_usage_error("compare " + b + " " + tmpdir() + "/top_n.json", "differs from runs[0]");
}
