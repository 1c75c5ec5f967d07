// The input/output rules of docs/input-output-rules.md, through the CLI, each as a class: every
// file of an --input list is an input no output may replace (gemm and moddot lists included);
// a sweep is checked whole before it runs and keeps its completed rows when a later point fails;
// a file size limit is a write error like a full disk; every family and subcommand refuses a
// run that cannot fit in memory before allocating, with the bytes it needs, and an input file
// is judged from its size; no option of any subcommand takes an empty value; write-protected
// outputs need --force; a FIFO output without a reader is refused after a bounded wait;
// invisible characters are escaped in messages and long ones cut; verify fails when an algorithm
// runs no case; sizes are integers or integer powers; list, gen and info fail on a lost stdout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_run.hpp"
#include "tests/npy_bytes.hpp"

using namespace cli_test;
using nlohmann::json;

namespace {
using cli_test::accsum;  // the CLI runner, not namespace accsum (tests/npy_bytes.hpp opens it)

std::string fresh(const std::string& name) { return fresh_dir("rules-" + name); }

void put(const std::string& path, const std::string& bytes) { write_file(path, bytes); }

// A .npy file (version 1.0) of zeros: dtype and shape as given, itemsize bytes per element.
std::string npy_zeros(const std::string& descr, const std::string& shape, size_t elements, size_t itemsize) {
  return accsum::test::npy_file(accsum::test::npy_dict(descr, shape), std::string(elements * itemsize, '\0'));
}

void expect_refused(const CliRun& r, const std::string& fragment, const std::string& what) {
  EXPECT_EQ(r.code, 2) << what << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << what << "\n" << r.err;
}

const std::string kCpu = "--backend=cpu --reps=1 --warmup=0 --no-repro-check ";

// `cmd` through the shell, its stdout and stderr captured unless cmd redirects them itself.
CliRun shell(const std::string& cmd) {
  const std::string out = tmpdir() + "/shell_out.txt", err = tmpdir() + "/shell_err.txt";
  const int status = std::system(("exec >" + out + " 2>" + err + "; " + cmd).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

TEST(IoRules, EveryFileOfAnInputListIsProtected) {
  const std::string d = fresh("inputs");
  put(d + "/A.npy", npy_zeros("<f4", "(2, 3)", 6, 4));
  put(d + "/B.npy", npy_zeros("<f4", "(3, 2)", 6, 4));
  put(d + "/x.npy", npy_zeros("<i8", "(4,)", 4, 8));
  put(d + "/y.npy", npy_zeros("<i8", "(4,)", 4, 8));
  ASSERT_EQ(symlink("B.npy", (d + "/linkB").c_str()), 0);
  const std::string b_before = slurp(d + "/B.npy"), y_before = slurp(d + "/y.npy");
  const std::string gemm = "bench --algo=sgemm " + kCpu + "--input=" + d + "/A.npy," + d + "/B.npy ";
  ASSERT_EQ(accsum(gemm + "--format=json").code, 0) << "the gemm input itself must be readable";
  expect_refused(accsum(gemm + "--json=" + d + "/B.npy"), "--input", "gemm --json over B");
  expect_refused(accsum(gemm + "-o " + d + "/linkB"), "--input", "gemm -o through a link to B");
  expect_refused(accsum(gemm + "--json=" + d + "/../rules-inputs/A.npy"), "--input", "gemm --json over A, respelt");
  const std::string mod = "bench --algo=moddot-gmp " + kCpu + "--input=" + d + "/x.npy," + d + "/y.npy ";
  ASSERT_EQ(accsum(mod + "--format=json").code, 0);
  expect_refused(accsum(mod + "-o " + d + "/y.npy"), "--input", "moddot -o over y");
  EXPECT_EQ(slurp(d + "/B.npy"), b_before);
  EXPECT_EQ(slurp(d + "/y.npy"), y_before);
}

TEST(IoRules, ASweepIsCheckedWholeAndKeepsItsCompletedRows) {
  const std::string d = fresh("sweep");
  // A point that cannot fit is refused before the first runs: nothing is written.
  CliRun r = accsum("bench --algo=naive " + kCpu + "--n=2^10,2^50 --json=" + d + "/r.json");
  expect_refused(r, "bytes", "sweep with a 2^50 point");
  EXPECT_EQ(access((d + "/r.json").c_str(), F_OK), -1) << "nothing ran, nothing may be written";
  EXPECT_TRUE(r.out.empty());
  // So is a point whose options are out of range.
  expect_refused(
      accsum("bench --algo=naive " + kCpu + "--n=2^10 --dist=illcond --cond=1e10,0.5 --json=" + d + "/r.json"),
      "--cond", "sweep with an invalid point");
  EXPECT_EQ(access((d + "/r.json").c_str(), F_OK), -1);
  // A point that fails once running (the file read as a dot dataset after the sum rows ran):
  // the rows measured before it are written, the report marked incomplete, exit 2.
  ASSERT_EQ(accsum("gen --n=100 -o " + d + "/x.npy").code, 0);
  CliRun late = accsum("bench --algo=naive,dot " + kCpu + "--input=" + d + "/x.npy --json=" + d + "/r.json");
  EXPECT_EQ(late.code, 2) << late.err;
  EXPECT_EQ(lines(late.err), 1) << late.err;
  json doc = json::parse(slurp(d + "/r.json"));
  EXPECT_NE(doc.value("incomplete", std::string()).find("not a dot dataset"), std::string::npos)
      << doc.dump().substr(0, 400);
  EXPECT_EQ(doc["runs"].size(), 1u);
  EXPECT_NE(late.out.find("INCOMPLETE"), std::string::npos) << late.out;
}

TEST(IoRules, AFileSizeLimitIsAWriteErrorLikeAFullDisk) {
  const std::string d = fresh("efbig");
  put(d + "/old.npy", "old content");
  put(d + "/old.json", "old report");
  // ulimit -f counts 512-byte blocks here (bash and dash): 4 blocks = 2 KiB, far below the data.
  CliRun g = accsum("--version >/dev/null; (ulimit -f 4; exec " + std::string(ACCSUM_BIN) + " gen --n=100000 -o " + d +
                    "/old.npy)");
  expect_refused(g, "File too large", "gen under ulimit -f");
  CliRun b = accsum("--version >/dev/null; (ulimit -f 4; exec " + std::string(ACCSUM_BIN) + " bench --algo=naive " +
                    kCpu + "--n=2^12 --format=json --out=" + d + "/old.json)");
  expect_refused(b, "File too large", "bench -o under ulimit -f");
  EXPECT_EQ(slurp(d + "/old.npy"), "old content");
  EXPECT_EQ(slurp(d + "/old.json"), "old report");
  CliRun ls = accsum("--version >/dev/null; ls -A " + d + " >&2");
  EXPECT_EQ(ls.err.find("accsum-"), std::string::npos) << "a temporary file was left: " << ls.err;
}

TEST(IoRules, EveryFamilyAndSubcommandRefusesWhatCannotFitBeforeAllocating) {
  const std::string d = fresh("memory");
  const auto t0 = std::chrono::steady_clock::now();
  // bench: one algorithm of every family (from `accsum list`), sized far beyond any memory.
  // A family sized by --shape (matrices) says so among its data options.
  json list = json::parse(accsum("list --format=json").out);
  std::set<std::string> by_shape;
  for (auto& f : list["families"])
    for (auto& o : f["data_options"])
      if (o == "shape") by_shape.insert(f["name"].get<std::string>());
  EXPECT_FALSE(by_shape.empty()) << "the gemm family takes --shape";
  std::set<std::string> done;
  for (auto& a : list["algorithms"]) {
    const std::string fam = a["family"];
    if (done.count(fam) || a["backends"][0]["backend"] != "cpu") continue;
    done.insert(fam);
    const std::string size = by_shape.count(fam) ? "--shape=1048576,1048576,1" : "--n=2^50";
    expect_refused(accsum("bench --algo=" + a["algo"].get<std::string>() + " " + kCpu + size), "bytes",
                   "bench of the " + fam + " family");
  }
  EXPECT_GE(done.size(), 5u) << "every family has a cpu algorithm";
  expect_refused(accsum("bench --algo=moddot-gmp " + kCpu + "--n=2^36"), "bytes", "moddot at 2^36 (1 TiB)");
  expect_refused(accsum("gen --family=moddot --n=2^36 -o " + d + "/m.npy"), "bytes", "gen moddot");
  expect_refused(accsum("gen --n=2^50 -o " + d + "/s.npy"), "bytes", "gen sum");
  expect_refused(accsum("table --suite=moddot --n=2^36"), "bytes", "table moddot");
  expect_refused(accsum("table --suite=kfold --n=2^50"), "bytes", "table kfold");
  expect_refused(accsum("info --n=2^50"), "bytes", "info");
  // A file input is judged from its size (a sparse 1 TiB .bin) and its header, never read.
  const std::string big = d + "/big.bin";
  int fd = open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t(1) << 40), 0);
  close(fd);
  expect_refused(accsum("bench --algo=naive " + kCpu + "--input=" + big), "bytes", "a 1 TiB raw file");
  expect_refused(accsum("bench " + kCpu + "--input=" + big), "bytes", "a 1 TiB raw file, every family");
  put(d + "/big.npy", npy_zeros("<f8", "(1099511627776,)", 0, 8));
  expect_refused(accsum("bench --algo=naive " + kCpu + "--input=" + d + "/big.npy"), "bytes", "a 2^40 .npy header");
  // The other families' files, through the same judgement: moddot text has the limit of sum text.
  ASSERT_EQ(rename(big.c_str(), (d + "/big.txt").c_str()), 0);
  expect_refused(accsum("bench --algo=moddot-gmp " + kCpu + "--input=" + d + "/big.txt"), "bytes", "1 TiB moddot text");
  put(d + "/bigA.npy", npy_zeros("<f4", "(1048576, 1048576)", 0, 4));
  expect_refused(accsum("bench --algo=sgemm " + kCpu + "--input=" + d + "/bigA.npy," + d + "/bigA.npy"), "bytes",
                 "gemm headers of 2^40 entries");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 60) << "refusals must come before any allocation or read";
}

TEST(IoRules, NoOptionOfAnySubcommandTakesAnEmptyValue) {
  // Every option name any subcommand's --help lists, given "--opt ''" on the first subcommand
  // that has it (the validator sits on every option); "--opt=" is refused before parsing, for
  // any name, so a few per subcommand show it.
  int checked = 0;
  std::set<std::string> seen;
  for (const std::string cmd : {"bench", "verify", "gen", "list", "info", "table"}) {
    std::string help = accsum(cmd + " --help").out;
    std::set<std::string> opts;
    std::regex opt_re("(--[a-z][a-z0-9-]*)");
    for (std::sregex_iterator it(help.begin(), help.end(), opt_re), end; it != end; ++it) opts.insert((*it)[1]);
    opts.erase("--help");
    int eq_forms = 0;
    for (auto& o : opts) {
      if (eq_forms++ < 3) {
        CliRun eq = accsum(cmd + " " + o + "= --algo=naive");
        EXPECT_EQ(eq.code, 2) << cmd << " " << o << "=\n" << eq.err;
        EXPECT_EQ(lines(eq.err), 1) << eq.err;
      }
      if (!seen.insert(o).second) continue;
      CliRun sep = accsum_argv({cmd, o, ""});
      EXPECT_EQ(sep.code, 2) << cmd << " " << o << " ''\n" << sep.err;
      EXPECT_EQ(lines(sep.err), 1) << sep.err;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
  CliRun r = accsum("bench --json= --algo=naive");
  expect_refused(r, "--json", "the example of the issue");
  EXPECT_EQ(access("--algo=naive", F_OK), -1);
}

TEST(IoRules, SilentAcceptancesAreRefused) {
  expect_refused(accsum("verify --algo=naive --backend=cpu --seeds=-1"), "--seeds", "verify --seeds=-1");
  expect_refused(accsum("verify --algo=naive --backend=cpu --seeds=0"), "--seeds", "verify --seeds=0");
  expect_refused(accsum("verify --algo=naive --backend=cpu --seeds=1001"), "--seeds", "verify --seeds=1001");
  CliRun env = accsum("--version >/dev/null; ACCSUM_THREADS= " + std::string(ACCSUM_BIN) + " bench --algo=naive " +
                      kCpu + "--n=10");
  expect_refused(env, "ACCSUM_THREADS", "ACCSUM_THREADS set but empty");
  const std::string d = fresh("residue");
  put(d + "/r.txt", "1125899906842596.0000000000000000001 1\n");
  expect_refused(accsum("bench --algo=moddot-gmp " + kCpu + "--input=" + d + "/r.txt"), "not an integer",
                 "a residue that is not an integer");
}

TEST(IoRules, WriteProtectedOutputsNeedForce) {
  const std::string d = fresh("readonly");
  put(d + "/ro.npy", "keep me");
  put(d + "/ro.json", "keep me too");
  chmod((d + "/ro.npy").c_str(), 0444);
  chmod((d + "/ro.json").c_str(), 0444);
  expect_refused(accsum("gen --n=10 -o " + d + "/ro.npy"), "write-protected", "gen over a 0444 file");
  expect_refused(accsum("bench --algo=naive " + kCpu + "--n=10 --json=" + d + "/ro.json"), "write-protected",
                 "bench over a 0444 file");
  EXPECT_EQ(slurp(d + "/ro.npy"), "keep me");
  CliRun forced = accsum("gen --n=10 --force -o " + d + "/ro.npy");
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(slurp(d + "/ro.npy"), "keep me");
}

TEST(IoRules, AFifoOutputWithoutAReaderIsRefusedAfterABoundedWait) {
  const std::string d = fresh("fifo");
  ASSERT_EQ(mkfifo((d + "/out.json").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  CliRun r = accsum("bench --algo=naive " + kCpu + "--n=10 --json=" + d + "/out.json");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_refused(r, "no process reads", "a FIFO nobody reads");
  EXPECT_LT(secs, 30);
}

TEST(IoRules, InvisibleCharactersAreEscapedInMessages) {
  CliRun bom = accsum_argv({"bench", "--algo=naive", "--input=\xef\xbb\xbfx.npy"});
  expect_refused(bom, "\\u{FEFF}x.npy", "a BOM in a name");
  CliRun rtl = accsum_argv({"bench", "--algo=naive\xe2\x80\xae"});
  EXPECT_EQ(rtl.code, 2);
  EXPECT_EQ(rtl.err.find("\xe2\x80\xae"), std::string::npos) << "a raw right-to-left override";
  const std::string d = fresh("nul");
  put(d + "/nul.txt", std::string("1\n2\0x\n", 6));
  CliRun nul = accsum("bench --algo=naive " + kCpu + "--input=" + d + "/nul.txt");
  expect_refused(nul, "\\x00", "a NUL byte in a text file");
}

TEST(IoRules, IllConditionedGenWarnsWhenTheConditionIsMissed) {
  const std::string d = fresh("cond");
  CliRun r = accsum("gen --dist=illcond --cond=1e300 --n=7 -o " + d + "/c.npy");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: requested condition number 1e300"), std::string::npos) << r.err;
  CliRun ok = accsum("gen --dist=illcond --cond=1e10 --n=1000 -o " + d + "/ok.npy");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.err.find("warning"), std::string::npos) << ok.err;
  // bench measures what it made: the same warning, for each dataset that misses.
  CliRun bench = accsum("bench --algo=naive " + kCpu + "--dist=illcond --cond=1e20 --n=1");
  EXPECT_EQ(bench.code, 0) << bench.err;
  EXPECT_NE(bench.err.find("warning: requested condition number 1e20"), std::string::npos) << bench.err;
  CliRun bench_ok = accsum("bench --algo=naive " + kCpu + "--dist=illcond --cond=1e10 --n=1000");
  EXPECT_EQ(bench_ok.err.find("warning"), std::string::npos) << bench_ok.err;
}

TEST(IoRules, SizesAreDecimalIntegersOrIntegerPowers) {
  const std::string d = fresh("sizes");
  for (const char* bad : {"2^", "^", "^0", "nan^0", "-1^2", "-2^2", "4^0.5", "2^-1", "2^+3", "0^0", "2^2^2", "+5",
                          "inf", "nan", "0x10", "1e6^1", "2.5"}) {
    CliRun r = accsum_argv({"gen", std::string("--n=") + bad, "-o", d + "/x.npy"});
    expect_refused(r, "invalid size", bad);
  }
  for (const char* big : {"2^63", "3^40", "10^19", "2^99999999999999999999"})
    expect_refused(accsum_argv({"gen", std::string("--n=") + big, "-o", d + "/x.npy"}), "too large", big);
  EXPECT_EQ(access((d + "/x.npy").c_str(), F_OK), -1) << "nothing is written for a refused size";
  for (auto [given, n] : {std::pair<const char*, const char*>{"2^0", "n=1 "},
                          {"2^10", "n=1024 "},
                          {"10^3", "n=1000 "},
                          {"1e3", "n=1000 "},
                          {"1^7", "n=1 "}}) {
    CliRun r = accsum_argv({"gen", std::string("--n=") + given, "-o", d + "/ok.npy"});
    EXPECT_EQ(r.code, 0) << given << r.err;
    EXPECT_NE(r.out.find(n), std::string::npos) << given << "\n" << r.out;
  }
}

TEST(IoRules, AShortOptionWithAnEqualsSignIsRefused) {
  const std::string d = fresh("short_eq");
  CliRun r = shell("cd " + d + " && " + ACCSUM_BIN + " gen --n=10 -o=x.npy");
  expect_refused(r, "after a space (-o x.npy)", "-o=x.npy");
  EXPECT_EQ(access((d + "/=x.npy").c_str(), F_OK), -1) << "a file named '=x.npy'";
  EXPECT_EQ(access((d + "/x.npy").c_str(), F_OK), -1);
}

TEST(IoRules, ListGenAndInfoFailWhenStdoutIsFullOrClosed) {
  const std::string d = fresh("stdout");
  const std::vector<std::string> commands{"list", "list --format=json", "gen --n=10 -o " + d + "/g.npy",
                                          "info --n=1000 --reps=1"};
  for (auto& c : commands) {
    for (const char* redirect : {" >/dev/full", " >&-"}) {
      CliRun r = shell(std::string(ACCSUM_BIN) + " " + c + redirect);
      expect_refused(r, "standard output", c + redirect);
    }
  }
}

TEST(IoRules, AHugeTokenIsCutInItsErrorLine) {
  const std::string d = fresh("huge_token");
  put(d + "/t.txt", std::string(10 << 20, '7') + "\n");
  CliRun r = accsum("bench --algo=naive " + kCpu + "--input=" + d + "/t.txt");
  expect_refused(r, "bytes cut]", "a 10 MB token in a text file");
  EXPECT_LT(r.err.size(), 2200u);
  CliRun arg = accsum_argv({"bench", "--algo=naive", "--n=" + std::string(50000, '9') + "q"});
  expect_refused(arg, "bytes cut]", "a 50 kB --n");
  EXPECT_LT(arg.err.size(), 2200u);
}

TEST(IoRules, VerifyRunsCasesForEveryAlgorithmOnEveryPresentBackend) {
  // fpe-mul's renormalize parameter (an integer range without a choice list) once emptied the
  // sweep; --dry-run counts the cases without running them.
  CliRun fm = accsum("verify --algo=fpe-mul --backend=cpu --seeds=1 --dry-run");
  EXPECT_EQ(fm.code, 0) << fm.out << fm.err;
  EXPECT_EQ(fm.out.find("UNTESTED"), std::string::npos) << fm.out;
  std::regex row_re("^(\\S+)\\s+(\\S+)\\s+\\S+\\s+(\\d+)\\s+\\d+");
  // Every registered algorithm on every present backend: a row with cases > 0.
  CliRun all = accsum("verify --backend=all --seeds=1 --dry-run");
  EXPECT_EQ(all.code, 0) << all.out.substr(0, 2000) << all.err;
  std::istringstream in(all.out);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, row_re) || m[1] == "algo") continue;
    ++rows;
    EXPECT_GT(std::stoi(m[3]), 0) << "no verify case: " << line;
  }
  EXPECT_GT(rows, 30) << all.out;
}

}  // namespace

// Whether `accsum list` shows some algorithm on an OpenCL device here.
bool opencl_present() {
  const json listed = json::parse(cli_test::accsum("list --format=json").out);
  for (auto& a : listed["algorithms"])
    for (auto& b : a["backends"])
      if (b["backend"] == "opencl" && b["present"] == true) return true;
  return false;
}

TEST(IoRules, OpenclProgramDumpsFollowTheOutputRules) {
  if (!opencl_present()) GTEST_SKIP() << "no OpenCL device here";
  const std::string d = fresh("opencl_dump"), victim = d + "/victim.txt";
  put(victim, "keep me\n");
  const std::string dump = d + "/dump";
  ASSERT_EQ(mkdir(dump.c_str(), 0755), 0);
  ASSERT_EQ(symlink(victim.c_str(), (dump + "/program_1.bin").c_str()), 0);
  const std::string bench = std::string(ACCSUM_BIN) + " bench --algo=superacc --backend=opencl --n=1000 --reps=1";
  CliRun r = shell("ACCSUM_OPENCL_DUMP=" + dump + " " + bench);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(victim), "keep me\n") << "a planted link was followed";
  struct stat st {};
  ASSERT_EQ(lstat((dump + "/program_1.bin").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << "the link is replaced by the program itself";
  EXPECT_GT(st.st_size, 0);
  EXPECT_FALSE(slurp(dump + "/program_1.txt").empty());
  // A name that is not a directory is refused, not silently ignored.
  expect_refused(shell("ACCSUM_OPENCL_DUMP=" + victim + " " + bench), "not a directory", "a file as the directory");
  EXPECT_EQ(slurp(victim), "keep me\n");
  expect_refused(shell("ACCSUM_OPENCL_DUMP=" + d + "/missing " + bench), "No such file", "a missing directory");
}
