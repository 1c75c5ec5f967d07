// Progress on stderr (app/progress.hpp is linked into the accsum binary only, so through the CLI):
// shown when forced (ACCSUM_PROGRESS=1, as on a terminal), never on stdout, absent when stderr is
// not a terminal, and one plain line per finished dataset in a CI job's log (CI set).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Result {
  int code;
  std::string out, err;
};

Result run(const std::string& env, const std::string& args) {
  char tmpl[] = "/tmp/accsum-progress-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string cmd = env + " " + ACCSUM_BIN + " " + args + " >" + dir + "/o 2>" + dir + "/e";
  int st = std::system(cmd.c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(dir + "/o"), slurp(dir + "/e")};
}

}  // namespace

TEST(Progress, ForcedBarGoesToStderrOnly) {
  Result r = run("ACCSUM_PROGRESS=1", "bench --algo=naive,kahan --backend=cpu --n=1000,2000 --reps=1 --warmup=0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("bench ["), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ETA"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/4 "), std::string::npos) << r.err;  // 2 sizes x (naive, kahan)
  EXPECT_EQ(r.out.find("ETA"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  Result t = run("ACCSUM_PROGRESS=1", "table --suite=accuracy --n=1000");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.err.find("table ["), std::string::npos) << t.err;
  EXPECT_EQ(t.out.find("ETA"), std::string::npos);
}

TEST(Progress, NothingWhenStderrIsNotATerminal) {
  Result r = run("ACCSUM_PROGRESS= CI=", "bench --algo=naive --backend=cpu --n=1000 --reps=1 --warmup=0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  Result off = run("ACCSUM_PROGRESS=0", "verify --algo=naive --backend=cpu");
  EXPECT_EQ(off.err.find("ETA"), std::string::npos) << off.err;
}

TEST(Progress, OneLinePerFinishedDatasetInACiLog) {
  Result r =
      run("ACCSUM_PROGRESS= CI=true", "bench --algo=naive,kahan --backend=cpu --n=1000,2000 --reps=1 --warmup=0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;  // nothing redrawn in place
  EXPECT_EQ(r.err.find("ETA"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bench: 2/4 done after "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bench: 4/4 done after "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(sum n=2000 uniform)"), std::string::npos) << r.err;
  size_t lines = 0;
  for (char c : r.err) lines += c == '\n';
  EXPECT_EQ(lines, 2u) << r.err;  // one per dataset
  EXPECT_EQ(r.out.find("done after"), std::string::npos);
}

TEST(Progress, AFailedBlockInACiLogGetsTheErrorLineOnly) {
  // The error unwinds through the block: no "done" line claims it finished.
  Result r = run("ACCSUM_PROGRESS= CI=true", "bench --algo=dgemm-ozaki --shape=2,2,40000 --slices=2");
  ASSERT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.find("done after"), std::string::npos) << r.err;
  size_t lines = 0;
  for (char c : r.err) lines += c == '\n';
  EXPECT_EQ(lines, 1u) << r.err;
}
