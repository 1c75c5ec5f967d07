// What a plugin's own bytes (tests/plugins/hostile_text.cpp) and a hostile file name do to what the
// tool prints: control characters are escaped in list, --help, info, the tables and the crash line,
// so one entry stays one line; and a table that stops at a later row keeps the rows it made.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_run.hpp"

#if defined(ACCSUM_HAVE_EXAMPLE_PLUGINS)

using namespace cli_test;
using nlohmann::json;

namespace {

std::string plugin(const std::string& name) { return std::string(ACCSUM_PLUGIN_DIR) + "/" + name + ".so"; }

// No raw control character but the line breaks of the output itself.
void expect_no_raw_controls(const std::string& what, const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char u = static_cast<unsigned char>(text[i]);
    if (u == '\n' || (u == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) continue;  // CSV ends lines CRLF
    ASSERT_FALSE(u < 0x20 || u == 0x7f) << what << ": raw byte " << int(u) << " in\n" << text;
  }
}

}  // namespace

TEST(HostileText, PluginTextsAreEscapedWhereverTheyArePrinted) {
  const std::string p = "--plugin=" + plugin("hostile_text");
  CliRun list = accsum("list " + p);
  ASSERT_EQ(list.code, 0) << list.err;
  expect_no_raw_controls("list", list.out);
  size_t ctl_lines = 0;  // the entry is one line
  for (size_t at = 0; (at = list.out.find("\nctl-sum ", at)) != std::string::npos; ++at) ++ctl_lines;
  EXPECT_EQ(ctl_lines, 1u) << list.out;
  EXPECT_NE(list.out.find("\\x1b[1mbold"), std::string::npos) << list.out;

  CliRun help = accsum("bench --help " + p);
  ASSERT_EQ(help.code, 0) << help.err;
  expect_no_raw_controls("--help", help.out);
  EXPECT_NE(help.out.find("how to \\x1b[31mfail\\x07\\x0afor real"), std::string::npos) << help.out;

  for (const char* format : {"table", "md", "csv"}) {
    CliRun b = accsum("bench " + p + " --algo=ctl-sum --backend=cpu --n=100 --reps=1 --format=" + format);
    EXPECT_EQ(b.code, 1) << format << ": the plugin's row failed\n" << b.err;
    expect_no_raw_controls(format, b.out);
    EXPECT_NE(b.out.find("\\x1b[31mred\\x07\\x0asecond line\\x0dback"), std::string::npos) << format << "\n" << b.out;
  }
  CliRun v = accsum("verify " + p + " --algo=ctl-sum --backend=cpu --seeds=1");
  EXPECT_EQ(v.code, 1) << v.err;
  expect_no_raw_controls("verify", v.out);
  EXPECT_NE(v.out.find("\\x1b[31mred\\x07\\x0asecond line"), std::string::npos) << v.out;
  // The JSON report keeps the message as it was (JSON escapes it).
  CliRun j = accsum("bench " + p + " --algo=ctl-sum --backend=cpu --n=100 --reps=1 --format=json");
  EXPECT_NE(j.out.find("\\u001b[31mred"), std::string::npos) << j.out;
}

TEST(HostileText, APluginPathWithControlCharactersIsEscapedInInfoAndTheCrashLine) {
  const std::string d = fresh_dir("ctl_path");
  const std::string evil = d + "/evil\x1b[2J\nname.so", crashing = d + "/crash\x1b[2J\nname.so";
  ASSERT_EQ(symlink(plugin("hostile_text").c_str(), evil.c_str()), 0);
  ASSERT_EQ(symlink(plugin("hostile_8").c_str(), crashing.c_str()), 0);
  CliRun info = accsum_argv({"info", "--n=1000", "--reps=1", "--plugin=" + evil});
  ASSERT_EQ(info.code, 0) << info.err;
  expect_no_raw_controls("info", info.out);
  EXPECT_NE(info.out.find("evil\\x1b[2J\\x0aname.so"), std::string::npos) << info.out;
  CliRun crash =
      accsum_argv({"bench", "--plugin=" + crashing, "--algo=hostile-sum", "--backend=cpu", "--n=100", "--reps=1"});
  EXPECT_EQ(crash.code, 3) << crash.err;
  EXPECT_EQ(lines(crash.err), 1) << crash.err;
  expect_no_raw_controls("crash line", crash.err);
  EXPECT_NE(crash.err.find("crash\\x1b[2J\\x0aname.so"), std::string::npos) << crash.err;
}

TEST(HostileText, ATableThatStopsAtALaterRowKeepsTheRowsItMade) {
  const std::string d = fresh_dir("table_keeps");
  const std::string md = d + "/t.md", report = d + "/t.json";
  CliRun r = accsum("table --suite=kfold --backend=cpu --n=1000 --plugin=" + plugin("hostile_text") + " -o " + md +
                    " --json=" + report);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("out of memory"), std::string::npos) << r.err;
  const std::string table = slurp(md);
  EXPECT_NE(table.find("INCOMPLETE: the table stopped early: out of memory"), std::string::npos) << table;
  const json doc = json::parse(slurp(report));
  EXPECT_EQ(doc["incomplete"], "out of memory");
  ASSERT_EQ(doc["runs"].size(), 1u) << "the first row, complete";
  bool has_plugin_column = false;
  for (auto& row : doc["runs"][0]["results"]) has_plugin_column |= row["algo"] == "late-oom-sum";
  EXPECT_TRUE(has_plugin_column);
}

#endif
