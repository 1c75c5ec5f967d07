// What a new user sees first: every console column means something for the family it is shown
// for, verify and list format like the other commands, data options sweep in every family, and
// the default run's order follows `accsum list`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_run.hpp"

using namespace cli_test;
using nlohmann::json;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The cells of one Markdown table line "| a | b |".
std::vector<std::string> md_cells(const std::string& line) {
  std::vector<std::string> cells;
  size_t at = 2;
  for (size_t bar; (bar = line.find(" |", at)) != std::string::npos; at = bar + 3)
    cells.push_back(line.substr(at, bar - at));
  return cells;
}

// The first Markdown table of `text` (--format=md): header cells, then each row's cells.
std::vector<std::vector<std::string>> md_table(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (auto& line : split_lines(text)) {
    if (line.rfind("| ", 0) != 0) {
      if (!rows.empty()) break;
      continue;
    }
    if (line.rfind("| ---", 0) == 0) continue;
    rows.push_back(md_cells(line));
  }
  return rows;
}

// Every Markdown table of `text`: each a list of rows, each row its cells by the header's names.
std::vector<std::vector<std::map<std::string, std::string>>> md_tables(const std::string& text) {
  std::vector<std::vector<std::map<std::string, std::string>>> out;
  std::vector<std::string> head;
  for (auto& line : split_lines(text)) {
    if (line.rfind("| ", 0) != 0) {
      head.clear();
      continue;
    }
    if (line.rfind("| ---", 0) == 0) continue;
    std::vector<std::string> cells = md_cells(line);
    if (head.empty()) {
      head = cells;
      out.emplace_back();
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < head.size() && i < cells.size(); ++i) row[head[i]] = cells[i];
    out.back().push_back(row);
  }
  return out;
}

}  // namespace

TEST(FirstScreen, FpeRowsShowErrorInBitsNotUlpsOrCorrectRounding) {
  CliRun r = accsum("bench --algo=fpe-add-safe,fpe-seq-add --backend=cpu --n=2^10 --reps=1 --warmup=0 --format=md");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = md_table(r.out);
  ASSERT_GE(t.size(), 3u) << r.out;
  const std::vector<std::string> head = t[0];
  EXPECT_NE(std::find(head.begin(), head.end(), "max rel err"), head.end()) << r.out;
  for (const char* gone : {"ulps", "CR", "digits"})
    EXPECT_EQ(std::find(head.begin(), head.end(), gone), head.end()) << gone;
  for (size_t i = 1; i < t.size(); ++i) {
    ASSERT_EQ(t[i].size(), head.size()) << r.out;
    EXPECT_TRUE(std::regex_match(t[i][4], std::regex("exact|2\\^-[0-9.]+"))) << t[i][4];
  }
  EXPECT_EQ(r.out.find("dynamic range=1e"), std::string::npos) << r.out;
}

TEST(FirstScreen, ModdotRowsShowTheResidueAndNoCondition) {
  CliRun r = accsum("bench --algo=moddot-abgd --backend=cpu --n=2^10 --reps=1 --warmup=0 --format=md");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("exact residue "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cond="), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(RN)"), std::string::npos) << r.out;
  const auto t = md_table(r.out);
  ASSERT_GE(t.size(), 2u) << r.out;
  EXPECT_EQ(t[0][4], "residue");
  EXPECT_EQ(t[0][5], "exact");
  for (size_t i = 1; i < t.size(); ++i) {
    EXPECT_TRUE(std::regex_match(t[i][4], std::regex("[0-9]+"))) << t[i][4];
    EXPECT_EQ(t[i][5], "yes");
  }
}

TEST(FirstScreen, SumRowsKeepDigitsUlpsAndTheDynamicRangeAsAPowerOfTen) {
  CliRun r = accsum("bench --algo=kahan --backend=cpu --n=2^10 --range=1e20 --reps=1 --warmup=0 --format=md");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("dynamic range=10^"), std::string::npos) << r.out;
  const auto t = md_table(r.out);
  for (const char* col : {"digits", "ulps", "CR", "bound"})
    EXPECT_NE(std::find(t[0].begin(), t[0].end(), col), t[0].end()) << col;
}

TEST(FirstScreen, VerifyHonoursFormatAndOut) {
  const std::string args = "verify --algo=kahan --backend=cpu --seeds=1";
  CliRun csv = accsum(args + " --format=csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("algo,backend,guarantee,cases,violations,worst ulps,min digits,first violation\r\n", 0), 0u)
      << csv.out;
  EXPECT_NE(csv.err.find("broke their guarantee"), std::string::npos) << "the summary goes to stderr";
  CliRun md = accsum(args + " --format=md");
  EXPECT_EQ(md.out.rfind("| algo | backend |", 0), 0u) << md.out;
  CliRun js = accsum(args + " --format=json");
  ASSERT_EQ(js.code, 0) << js.err;
  EXPECT_EQ(json::parse(js.out)["schema"], "accsum-report/1");
  const std::string path = tmpdir() + "/verify_out.md";
  CliRun to_file = accsum(args + " --format=md -o " + path);
  EXPECT_EQ(to_file.code, 0);
  EXPECT_TRUE(to_file.out.empty()) << to_file.out;
  EXPECT_EQ(slurp(path).rfind("| algo | backend |", 0), 0u) << slurp(path);
}

TEST(FirstScreen, ListColumnsStayInPlaceWhateverTheNameLength) {
  CliRun r = accsum("list");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::set<std::string> families{"sum", "dot", "gemm", "dgemm", "moddot", "fpe"};
  const std::vector<std::string> all = split_lines(r.out);
  const size_t family_at = all.at(0).find("family");
  size_t rows = 0, summaries = 0;
  for (size_t i = 1; i < all.size() && !all[i].empty(); ++i) {
    if (all[i].rfind("  ", 0) == 0) {  // the algorithm's summary, indented under its row
      EXPECT_EQ(summaries++, rows - 1) << "a summary line not under its own row: " << all[i];
      continue;
    }
    ++rows;
    // Every row's family starts in the header's column, after at least two spaces.
    ASSERT_GT(all[i].size(), family_at) << all[i];
    EXPECT_EQ(all[i].substr(family_at - 2, 2), "  ") << "a name runs into the family column: " << all[i];
    EXPECT_TRUE(families.count(all[i].substr(family_at, all[i].find(' ', family_at) - family_at))) << all[i];
  }
  EXPECT_GT(rows, 10u);
  EXPECT_EQ(summaries, rows);
}

TEST(FirstScreen, DistListsSweepForGemmToo) {
  CliRun r = accsum(
      "bench --algo=openblas-sgemm --backend=cpu --n=16 --dist=uniform,uniform-sym --reps=1 --warmup=0 "
      "--format=csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(",uniform,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",uniform-sym,"), std::string::npos) << r.out;
  CliRun sums = accsum("bench --algo=naive --backend=cpu --n=100 --dist=uniform,loguniform --reps=1 --format=csv");
  ASSERT_EQ(sums.code, 0) << sums.err;
  EXPECT_NE(sums.out.find(",loguniform,"), std::string::npos) << sums.out;
}

// --n=small gives every family a size it accepts (docs/compare.md's CI recipe), and bench runs the
// families in `accsum list`'s order: sums and dots first, fpe last.
TEST(FirstScreen, AllAlgorithmsAtSmallSizesInListOrder) {
  CliRun r = accsum("bench --algo=all --backend=cpu --n=small --reps=2 --warmup=0 --no-repro-check --format=csv");
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> order;
  for (auto& line : split_lines(r.out)) {
    const std::string family = line.substr(0, line.find(','));
    if (family != "family" && !family.empty() && (order.empty() || order.back() != family)) order.push_back(family);
  }
  const std::vector<std::string> want{"sum", "dot", "gemm", "dgemm", "moddot", "fpe"};
  std::vector<std::string> seen;
  for (auto& f : want)
    if (std::find(order.begin(), order.end(), f) != order.end()) seen.push_back(f);
  EXPECT_EQ(order, seen) << r.out.substr(0, 400);
  EXPECT_EQ(order.front(), "sum");
  EXPECT_EQ(order.back(), "fpe");
}

// No console column contradicts another, on every row of every family and backend present: a
// bound the row is held to (within, EXCEEDED, no claim) never stands beside the guarantee `none`,
// and a `bound` or `k-fold` guarantee shows it; correct rounding agrees with the ulps (a
// correctly rounded double is within half an ulp, one further away is not, zero ulps is);
// a correctly-rounded or exact guarantee kept shows CR or exact; EXCEEDED marks the row VIOLATED.
TEST(FirstScreen, NoColumnContradictsAnotherOnAnyRow) {
  CliRun r = accsum("bench --algo=all --backend=all --n=small --reps=1 --warmup=0 --no-repro-check --format=md");
  ASSERT_EQ(r.code, 0) << r.err;
  size_t rows = 0;
  for (auto& table : md_tables(r.out))
    for (auto& row : table) {
      ++rows;
      const std::string what = row["algo"] + " on " + row["backend"] + " " + row["params"] + ": ";
      std::string g = row["guarantee"];
      const bool violated = g.size() > 9 && g.substr(g.size() - 9) == " VIOLATED";
      if (violated) g.resize(g.size() - 9);
      if (row.count("bound")) {
        const std::string& b = row["bound"];
        if (g == "none") {
          EXPECT_EQ(b, "-") << what << "guarantee none beside bound " << b;
        }
        if (g == "bound" || g == "k-fold") {
          EXPECT_NE(b, "-") << what << "guarantee " << g << " shows no bound";
        }
        if (b == "EXCEEDED") {
          EXPECT_TRUE(violated) << what << "bound EXCEEDED but the guarantee holds";
        }
      }
      if (row.count("CR") && row["ulps"] != "—") {
        const double ulps = std::stod(row["ulps"]);
        const bool cr = row["CR"] == "yes";
        if (cr) {
          EXPECT_LE(ulps, 0.5) << what << "CR yes at " << ulps << " ulps";
        }
        if (ulps == 0) {
          EXPECT_TRUE(cr) << what << "0 ulps but CR no";
        }
        if ((g == "correctly-rounded" || g == "exact") && !violated) {
          EXPECT_TRUE(cr) << what << "promises " << g;
        }
      }
      if (row.count("exact") && row["exact"] != "—" && g == "exact" && !violated) {
        EXPECT_EQ(row["exact"], "yes") << what;
      }
    }
  EXPECT_GT(rows, 40u) << r.out;
}
