// accsum compare on hostile reports: nesting deep enough to overflow a recursive walk, numbers
// beyond the double range, files too large to read, documents that are not reports in a
// directory compare, and row names with control characters. Each is one line and exit 2, or a
// listed change, never a crash, an internal error or a silent pass.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_run.hpp"

using namespace cli_test;
using nlohmann::json;

namespace {

// A small report of the cpu backend (two repetitions: compare's speed judging is not the point).
const std::string& report_text() {
  static const std::string text = [] {
    const std::string path = tmpdir() + "/hostile_base.json";
    CliRun r = accsum("bench --algo=sumk --backend=cpu --n=100 --reps=2 --warmup=0 --json=" + path);
    EXPECT_EQ(r.code, 0) << r.err;
    return slurp(path);
  }();
  return text;
}

std::string save_text(const std::string& text, const std::string& name) {
  const std::string path = tmpdir() + "/" + name;
  write_file(path, text);
  return path;
}

// Sets the value of the first member named `key` (in the order of the dumped text) to `with`.
bool replace_first(json& j, const std::string& key, const json& with) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == key) {
        it.value() = with;
        return true;
      }
      if (replace_first(it.value(), key, with)) return true;
    }
  } else if (j.is_array()) {
    for (auto& v : j)
      if (replace_first(v, key, with)) return true;
  }
  return false;
}

// The report with `value` (raw JSON text, valid or not) as the value of the first occurrence of "key".
std::string with_raw_value(const std::string& key, const std::string& value) {
  // The JSON library cannot hold invalid text: a unique string stands in for it, then its quoted
  // spelling in the dumped text is swapped for `value`.
  const std::string stand_in = "accsum-test-raw-value";
  json doc = json::parse(report_text());
  EXPECT_TRUE(replace_first(doc, key, stand_in)) << key;
  std::string text = doc.dump();
  const size_t at = text.find("\"" + stand_in + "\"");
  return at == std::string::npos ? text : text.replace(at, stand_in.size() + 2, value);
}

// compare GOOD BAD and BAD GOOD: exit 2, one line naming `fragment`, nothing on stdout.
void expect_refused_both_ways(const std::string& bad, const std::string& fragment) {
  const std::string good = save_text(report_text(), "hostile_good.json");
  for (const std::string& args : {good + " " + bad, bad + " " + good}) {
    CliRun r = accsum("compare " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err.substr(0, 300);
    EXPECT_EQ(lines(r.err), 1) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 2200u) << "an error line echoes its input whole";
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 300);
  }
}

}  // namespace

TEST(CompareHostile, DeepNestingAnywhereIsOneLineAndExitTwo) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const char* key : {"cpu", "params", "n", "ulps", "results"}) {
    SCOPED_TRACE(key);
    expect_refused_both_ways(save_text(with_raw_value(key, deep), "deep.json"), "nested deeper than 64");
  }
  // Nested objects, and a whole document that is one deep array.
  std::string objects;
  for (int i = 0; i < 50000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(50000, '}');
  expect_refused_both_ways(save_text(with_raw_value("seed", objects), "deep_objects.json"), "nested deeper");
  expect_refused_both_ways(save_text(deep, "deep_doc.json"), "nested deeper");
  // 64 levels is the limit, not less: a report nested that deep in a value is read.
  const std::string at_limit = std::string(60, '[') + std::string(60, ']');
  const std::string ok = save_text(with_raw_value("cpu", at_limit), "at_limit.json");
  CliRun r = accsum("compare --accuracy-only " + ok + " " + ok);
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(CompareHostile, ALongFlatArrayIsReadInLinearTime) {
  // 500 000 empty objects in one array (1.5 MB): nlohmann::json's callback parser, one way to bound
  // the depth, scans the array at every element's end (quadratic: hours); the reader takes seconds.
  std::string flat = "[{}";
  for (int i = 1; i < 500000; ++i) flat += ",{}";
  const std::string path = save_text(with_raw_value("cpu", flat + "]"), "flat.json");
  const auto t0 = std::chrono::steady_clock::now();
  CliRun r = accsum("compare --accuracy-only " + path + " " + path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

TEST(CompareHostile, NumbersBeyondTheDoubleRangeAreOneLineAndExitTwo) {
  for (const std::string& number : {std::string("1e400"), std::string("-1e400"), std::string(5000, '7')}) {
    for (const char* key : {"ulps", "n", "cpu"}) {
      SCOPED_TRACE(std::string(key) + " = " + number.substr(0, 10));
      expect_refused_both_ways(save_text(with_raw_value(key, number), "big_number.json"), "double range");
    }
  }
}

TEST(CompareHostile, ReportsAreJudgedBySizeBeforeReading) {
  // A 12 GiB sparse report: refused from its size at once, not read until memory runs out.
  const std::string huge = tmpdir() + "/huge_report.json";
  int fd = open(huge.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const bool sparse = ftruncate(fd, off_t(12) << 30) == 0;
  close(fd);
  if (!sparse) GTEST_SKIP() << "no sparse files here";
  const auto t0 = std::chrono::steady_clock::now();
  expect_refused_both_ways(huge, "larger than the 67108864 bytes");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  unlink(huge.c_str());
  // --max-size moves the limit both ways, with the size syntax of --n.
  const std::string good = save_text(report_text(), "sized.json");
  expect_usage_error("compare --max-size=1000 " + good + " " + good, "--max-size sets the limit");
  EXPECT_EQ(accsum("compare --accuracy-only --max-size=2^30 " + good + " " + good).code, 0);
  expect_usage_error("compare --max-size=-1 " + good + " " + good, "invalid size");
}

TEST(CompareHostile, ANewFileThatIsNoLongerAReportIsARegression) {
  const std::string b = fresh_dir("notreport_base"), n = fresh_dir("notreport_new");
  write_file(b + "/a.json", report_text());
  for (const std::string& replacement :
       {std::string("{}"), std::string("null"), std::string("[]"), std::string("{\"schema\": \"accsum-peers/1\"}")}) {
    SCOPED_TRACE(replacement);
    write_file(n + "/a.json", replacement);
    CliRun r = accsum("compare --accuracy-only " + b + " " + n);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("no longer a report (regression)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("REGRESSION: 1 regression(s)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("skipped"), std::string::npos) << r.out;
  }
  // The converse is listed, not a regression; a file that is a report on neither side is listed too.
  CliRun back = accsum("compare --accuracy-only " + n + " " + b);
  EXPECT_EQ(back.code, 0) << back.out;
  EXPECT_NE(back.out.find("now a report"), std::string::npos) << back.out;
  write_file(b + "/a.json", "{}");
  write_file(n + "/a.json", "null");
  CliRun neither = accsum("compare " + b + " " + n);
  EXPECT_EQ(neither.code, 0) << neither.out;
  EXPECT_NE(neither.out.find("not a report"), std::string::npos) << neither.out;
  EXPECT_NE(neither.out.find("no accsum-report/1 document on either side"), std::string::npos) << neither.out;
  // Malformed JSON in a directory is bad input, as for single files.
  write_file(n + "/a.json", "{");
  expect_usage_error("compare " + b + " " + n, "not valid JSON");
}

TEST(CompareHostile, ControlCharactersInRowNamesAreEscapedInEveryFormat) {
  json doc = json::parse(report_text());
  for (auto& r : doc["runs"][0]["results"]) r["algo"] = r["algo"].get<std::string>() + "\x1b[31m\nX\x07\r";
  doc["machine"]["cpu"] = "evil\x1b]0;title\x07\nCPU";
  doc.erase("results");  // the top-level copy of runs[0]
  const std::string base = save_text(report_text(), "ctl_base.json"), fresh = save_text(doc.dump(), "ctl_new.json");
  CliRun j = accsum("compare " + base + " " + fresh + " --format=json");
  ASSERT_EQ(j.code, 1) << j.err;
  const json out = json::parse(j.out);
  const size_t changes = out["changes"].size(), notes = out["notes"].size();
  ASSERT_GT(changes, 0u);
  CliRun t = accsum("compare " + base + " " + fresh);
  EXPECT_EQ(t.out.find('\x1b'), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find('\x07'), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find('\r'), std::string::npos) << t.out;
  // A header, a line per change, a line per note and the summary: no row spills over lines.
  EXPECT_EQ(lines(t.out), static_cast<int>(1 + changes + notes + 1)) << t.out;
  EXPECT_NE(t.out.find("\\x1b[31m\\x0aX\\x07\\x0d"), std::string::npos) << t.out;
  for (const char* format : {"md", "csv"}) {
    CliRun f = accsum("compare " + base + " " + fresh + " --format=" + format);
    EXPECT_EQ(f.out.find('\x1b'), std::string::npos) << format << "\n" << f.out;
    EXPECT_EQ(f.out.find('\x07'), std::string::npos) << format << "\n" << f.out;
  }
}
