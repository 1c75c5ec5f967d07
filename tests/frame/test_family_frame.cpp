// The family frame: descriptors, data-driven bound domains, and the same judgement for the same
// bytes whether generated or read from a file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>

#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"
#include "datasets/dataset.hpp"

using namespace accsum;
using nlohmann::json;

namespace {

std::string scratch_dir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/accsum-frame-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

// Runs the CLI with --json=<scratch>/<name>.json; returns the exit code and the document.
int bench_json(const std::string& args, const std::string& name, json& doc) {
  std::string path = scratch_dir() + "/" + name + ".json";
  std::string cmd = std::string(ACCSUM_BIN) + " bench " + args + " --reps=1 --warmup=0 --json=" + path +
                    " >/dev/null 2>" + scratch_dir() + "/err.txt";
  int status = std::system(cmd.c_str());
  std::ifstream in(path);
  doc = in ? json::parse(in) : json();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(FamilyFrame, EveryEntryBelongsToARegisteredCompleteFamily) {
  std::set<std::string> names;
  for (auto& f : families()) {
    names.insert(f.name);
    EXPECT_TRUE(f.generate && f.read && f.oracle && f.measure && f.units && f.bytes && f.verify_cases && f.verify_sizes)
        << f.name;
    EXPECT_FALSE(f.dists.empty()) << f.name;
    EXPECT_FALSE(f.unit.empty()) << f.name;
  }
  for (auto& e : registry().entries()) EXPECT_TRUE(names.count(e.family)) << e.algo << "/" << e.backend;
}

// The facts come from the data: Dekker's Split overflows on |x| > 2^996, so DotK and DPDotK
// with twoprod=dekker claim nothing there; with FMA they keep their bound.
TEST(FamilyFrame, DekkerDomainIsDecidedFromTheData) {
  std::string file = scratch_dir() + "/dekker.txt";
  std::ofstream(file) << "0x1p+1000 0x1.8p+0\n0x1p-3 0x1p+0\n";
  json doc;
  ASSERT_EQ(bench_json("--input=" + file + " --algo=dotk,dpdotk --twoprod=dekker --backend=cpu", "dekker", doc), 0);
  int checked = 0;
  for (auto& r : doc["results"]) {
    if (r["is_baseline"].get<bool>()) continue;
    EXPECT_EQ(r["bound"], "inf") << r.dump();
    EXPECT_TRUE(r["within_bound"].is_null()) << r.dump();
    EXPECT_NE(r["bound_outside_domain"].get<std::string>().find("Dekker"), std::string::npos);
    EXPECT_TRUE(r["guarantee_met"].get<bool>());
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  ASSERT_EQ(bench_json("--input=" + file + " --algo=dotk,dpdotk --twoprod=fma --backend=cpu", "fma", doc), 0);
  for (auto& r : doc["results"]) {
    if (r["is_baseline"].get<bool>()) continue;
    EXPECT_TRUE(r["within_bound"].get<bool>()) << r.dump();
    EXPECT_TRUE(r["correctly_rounded"].get<bool>()) << r.dump();
  }
}

TEST(FamilyFrame, OracleFactsDescribeTheData) {
  auto facts = [](const std::string& dist, const std::string& fam) {
    Dataset d = family(fam).generate(GenSpec{dist, fam, 1000, 3, 1e16, 1e16, {}});
    return family(fam).oracle(d).facts;
  };
  EXPECT_TRUE(facts("subnormal", "dot").products_underflow);
  EXPECT_FALSE(facts("uniform", "dot").products_underflow);
  EXPECT_TRUE(facts("overflow-cancel", "sum").partial_sums_may_overflow);
  EXPECT_FALSE(facts("huge", "sum").partial_sums_may_overflow);
  ExactFacts h = facts("huge", "dot");
  EXPECT_GT(h.max_abs_x, 0x1p996);
  EXPECT_LT(h.max_abs_y, 1.0);
}

// The same bytes are judged the same: generate data on the edge of every domain, write them,
// read them back with --input, and compare every row's verdict and bound.
TEST(FamilyFrame, GeneratedAndFileDataAreJudgedAlike) {
  for (std::string dist : {"overflow-cancel", "subnormal", "huge"})
    for (std::string fam : {"sum", "dot"}) {
      // The algorithms of the family compared (a second vector y: the dot product's, with --twoprod).
      const std::map<std::string, std::string> algos_of = {{"sum", "naive,kahan,neumaier,sumk,dpsumk,superacc"},
                                                           {"dot", "dot,dotk,dpdotk,superacc-dot"}};
      std::string file = scratch_dir() + "/" + dist + "-" + fam + ".npy";
      std::string gen = std::string(ACCSUM_BIN) + " gen --family=" + fam + " --dist=" + dist + " --n=777 --seed=5 -o " +
                        file + " >/dev/null";
      ASSERT_EQ(std::system(gen.c_str()), 0);
      std::string common =
          " --backend=cpu --algo=" + algos_of.at(fam) + (family(fam).has_y ? " --twoprod=fma,dekker" : "");
      json a, b;
      int ca = bench_json("--dist=" + dist + " --n=777 --seed=5" + common, "gen", a);
      int cb = bench_json("--input=" + file + common, "file", b);
      EXPECT_EQ(ca, cb) << dist << " " << fam;
      ASSERT_EQ(a["results"].size(), b["results"].size());
      for (size_t i = 0; i < a["results"].size(); ++i) {
        const json &ra = a["results"][i], &rb = b["results"][i];
        for (const char* k : {"algo", "params", "value_hex", "bound", "within_bound", "guarantee_met"})
          EXPECT_EQ(ra[k], rb[k]) << dist << " " << fam << " " << ra["algo"] << " key " << k;
        EXPECT_EQ(ra.value("bound_outside_domain", ""), rb.value("bound_outside_domain", ""));
      }
    }
}
