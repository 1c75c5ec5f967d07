// Resource limits (base/limits.hpp, app/memcheck.hpp): absurd thread counts are refused with one
// line and exit 2, never std::terminate; an exception in a worker thread reaches the caller; out
// of memory is one line and exit 2; the memory pre-check's peak figures hold when measured; and
// bench exits 1 when a row breaks its guarantee.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/limits.hpp"

extern char** environ;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

struct CliResult {
  int code;
  std::string out, err;
  long maxrss_kib;  // of the accsum process itself
};

std::string tmpdir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/accsum-limits-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs `prefix accsum args` through sh (prefix: environment and ulimit settings; wrapper: a
// command accsum runs under, e.g. "timeout 60 "); the exec'd shell becomes accsum, so wait4's
// rusage is accsum's own.
CliResult run_accsum(const std::string& prefix, const std::string& args, const std::string& wrapper = "") {
  std::string out = tmpdir() + "/out.txt", err = tmpdir() + "/err.txt";
  std::string cmd = prefix + " exec " + wrapper + ACCSUM_BIN + " " + args + " >" + out + " 2>" + err;
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) return {-1, "", "", 0};
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err), ru.ru_maxrss};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_one_line_exit2(const CliResult& r, const std::string& fragment, const std::string& what) {
  EXPECT_EQ(r.code, 2) << what << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << what << "\n" << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << what << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << what;
}

const std::string kSmallBench = "bench --algo=naive --backend=cpu-mt --n=1000 --reps=1 --warmup=0";

// The smallest address-space limit (ulimit -v, KiB; doubling from 512 MiB) under which a small
// bench runs: a build with CUDA maps cuBLAS (~1 GiB of address space) before main. 0 if none.
long startup_vm_limit_kib() {
  static long found = [] {
    for (long kib = 512L << 10; kib <= (16L << 20); kib *= 2)
      if (run_accsum("ulimit -v " + std::to_string(kib) + ";",
                     "bench --algo=naive --backend=cpu --n=1000 --reps=1 --warmup=0")
              .code == 0)
        return kib;
    return 0L;
  }();
  return found;
}

}  // namespace

TEST(Limits, AbsurdAccsumThreadsIsRefused) {
  expect_one_line_exit2(run_accsum("ACCSUM_THREADS=50000", kSmallBench), "ACCSUM_THREADS",
                        "bench, ACCSUM_THREADS=50000");
  expect_one_line_exit2(run_accsum("ACCSUM_THREADS=abc", kSmallBench), "ACCSUM_THREADS", "bench, ACCSUM_THREADS=abc");
  expect_one_line_exit2(run_accsum("ACCSUM_THREADS=-3", kSmallBench), "ACCSUM_THREADS", "bench, ACCSUM_THREADS=-3");
  expect_one_line_exit2(run_accsum("ACCSUM_THREADS=99999999999999999999", kSmallBench), "ACCSUM_THREADS",
                        "overflowing");
  // the generators' threads read it too
  expect_one_line_exit2(run_accsum("ACCSUM_THREADS=50000", "gen --n=1e6 -o " + tmpdir() + "/g.npy"), "ACCSUM_THREADS",
                        "gen, ACCSUM_THREADS=50000");
  // a sane value still works
  CliResult ok = run_accsum("ACCSUM_THREADS=3", kSmallBench);
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST(Limits, AbsurdThreadsOptionIsRefused) {
  expect_one_line_exit2(run_accsum("", "bench --algo=superacc --backend=cpu-mt --n=1000 --threads=50000"), "threads",
                        "--threads=50000");
  expect_one_line_exit2(run_accsum("", "bench --algo=superacc --backend=cpu-mt --n=1000 --threads=-1"), "threads",
                        "--threads=-1");
}

// The system refuses threads (a small address space: each thread's stack is 8 MiB): one line,
// exit 2, no terminate. ASan reserves terabytes of address space, so not under ASan.
TEST(Limits, ThreadsTheSystemRefusesAreOneLine) {
  if (kAsan) GTEST_SKIP() << "ulimit -v cannot be used under AddressSanitizer";
  const long kib = startup_vm_limit_kib();
  if (kib == 0) GTEST_SKIP() << "accsum does not start under any ulimit -v up to 16 GiB";
  // 1024 threads need 8 GiB of stacks; the limit leaves at most a few hundred MiB over startup
  CliResult r = run_accsum("ulimit -v " + std::to_string(kib + (256 << 10)) + "; ACCSUM_THREADS=1024", kSmallBench);
  expect_one_line_exit2(r, "cannot start 1024 threads", "ACCSUM_THREADS=1024 under ulimit -v");
}

TEST(Limits, OutOfMemoryIsOneLine) {
  if (kAsan) GTEST_SKIP() << "ulimit -v cannot be used under AddressSanitizer";
  const long kib = startup_vm_limit_kib();
  if (kib == 0) GTEST_SKIP() << "accsum does not start under any ulimit -v up to 16 GiB";
  // data of twice the whole allowed address space: the allocation fails (or, on a machine with
  // less MemAvailable than that, the pre-check refuses first: one line, exit 2 either way)
  int log2n = 0;
  while ((1L << log2n) * 8 / 1024 < 2 * kib) ++log2n;
  CliResult r = run_accsum("ulimit -v " + std::to_string(kib + (256 << 10)) + ";",
                           "bench --algo=naive --backend=cpu --n=2^" + std::to_string(log2n) + " --reps=1 --warmup=0");
  expect_one_line_exit2(r, "memory", "n=2^27 under ulimit -v");
}

TEST(Limits, MemoryPreCheckRefusesBeforeAllocating) {
  // More than any machine has: refused by the pre-check, not by the allocator.
  CliResult r = run_accsum("", "bench --algo=superacc --backend=cpu --n=2^50 --reps=1 --warmup=0");
  expect_one_line_exit2(r, "of memory is available", "n=2^50");
}

// The pre-check counts what the process limits leave, not only MemAvailable: 1 GiB of data under
// a limit that leaves about 256 MiB is refused before anything is allocated.
TEST(Limits, MemoryPreCheckHonoursTheProcessLimits) {
  if (kAsan) GTEST_SKIP() << "ulimit -v and -d cannot be used under AddressSanitizer";
  const long kib = startup_vm_limit_kib();
  if (kib == 0) GTEST_SKIP() << "accsum does not start under any ulimit -v up to 16 GiB";
  const std::string gib_of_data = "bench --algo=naive --backend=cpu --n=2^27 --reps=1 --warmup=0";
  expect_one_line_exit2(run_accsum("ulimit -v " + std::to_string(kib + (256 << 10)) + ";", gib_of_data),
                        "of memory is available", "n=2^27 under ulimit -v");
  expect_one_line_exit2(run_accsum("ulimit -d " + std::to_string(256 << 10) + ";", gib_of_data),
                        "of memory is available", "n=2^27 under ulimit -d");
  EXPECT_GT(accsum::memory_available_bytes(), 0);  // this process: MemAvailable at least
}

// OpenBLAS's threads each take a 128 MiB buffer and retry for ever when a process limit refuses
// it (at load for its worker threads, at the first large product for the caller): under such a
// limit an OpenBLAS product runs or is refused with one line, and never hangs. GOTO_NUM_THREADS
// gives OpenBLAS worker threads on a machine of few cores too.
TEST(Limits, OpenblasUnderAMemoryLimitRunsOrIsRefusedAndNeverHangs) {
  if (kAsan) GTEST_SKIP() << "ulimit -v and -d cannot be used under AddressSanitizer";
  const long kib = startup_vm_limit_kib();
  if (kib == 0) GTEST_SKIP() << "accsum does not start under any ulimit -v up to 16 GiB";
  const std::string limits[] = {"ulimit -v " + std::to_string(kib + (512 << 10)),
                                "ulimit -v " + std::to_string(kib + (64 << 10)), "ulimit -d 300000"};
  const std::string products[] = {"--algo=sgemm --backend=cpu --n=8", "--algo=sgemm --backend=cpu --n=300",
                                  "--algo=openblas-sgemm --backend=cpu-mt --threads=8 --n=64"};
  for (auto& limit : limits)
    for (auto& product : products) {
      const std::string what = limit + ": " + product;
      CliResult r = run_accsum(limit + "; export GOTO_NUM_THREADS=8;", "bench " + product + " --reps=1 --warmup=0",
                               "timeout 60 ");
      ASSERT_NE(r.code, 124) << what << ": hangs";
      if (r.code == 0) {
        EXPECT_NE(r.out.find("openblas-sgemm"), std::string::npos) << what << "\n" << r.out;
        continue;
      }
      expect_one_line_exit2(r, "", what);
      EXPECT_TRUE(r.err.find("OpenBLAS needs about") != std::string::npos ||
                  r.err.find("of memory is available") != std::string::npos)
          << what << "\n"
          << r.err;
    }
  // 512 MiB above what accsum starts in: a small product runs (one OpenBLAS buffer fits).
  CliResult r = run_accsum("ulimit -v " + std::to_string(kib + (512 << 10)) + "; export GOTO_NUM_THREADS=8;",
                           "bench --algo=sgemm --backend=cpu --n=8 --reps=1 --warmup=0", "timeout 60 ");
  EXPECT_EQ(r.code, 0) << r.err;
}

// The memory cgroup's limit counts, for the process's cgroup and each above it, in both layouts.
TEST(Limits, CgroupLimitsAreRead) {
  const std::string root = tmpdir() + "/cgroup";
  auto put = [&](const std::string& rel, const std::string& text) {
    ASSERT_EQ(std::system(("mkdir -p $(dirname " + root + rel + ")").c_str()), 0);
    std::ofstream(root + rel) << text;
  };
  put("/self_v2", "0::/a/b\n");
  put("/a/b/memory.max", "max\n");
  put("/a/b/memory.current", "100\n");
  put("/a/memory.max", "1000000\n");
  put("/a/memory.current", "400000\n");
  EXPECT_EQ(accsum::cgroup_headroom_bytes(root + "/self_v2", root), 600000.0);
  put("/a/b/memory.max", "500100\n");  // the cgroup's own limit is the tighter one
  EXPECT_EQ(accsum::cgroup_headroom_bytes(root + "/self_v2", root), 500000.0);
  put("/self_v1", "12:cpu,cpuacct:/x\n7:memory:/m\n");
  put("/memory/m/memory.limit_in_bytes", "2000\n");
  put("/memory/m/memory.usage_in_bytes", "500\n");
  EXPECT_EQ(accsum::cgroup_headroom_bytes(root + "/self_v1", root), 1500.0);
  put("/self_none", "0::/\n");
  EXPECT_TRUE(std::isinf(accsum::cgroup_headroom_bytes(root + "/self_none", root)));
  EXPECT_TRUE(std::isinf(accsum::cgroup_headroom_bytes(root + "/missing", root)));
}

TEST(Limits, RunThreadsCarriesExceptionsToTheCaller) {
  std::atomic<int> ran{0};
  EXPECT_THROW(accsum::run_threads(4,
                                   [&](int t) {
                                     ++ran;
                                     if (t == 2) throw std::bad_alloc();
                                   }),
               std::bad_alloc);
  EXPECT_EQ(ran.load(), 4);  // every thread ran and was joined
  EXPECT_THROW(accsum::run_threads(3,
                                   [&](int t) {
                                     if (t == 0) throw std::runtime_error("x");
                                   }),
               std::runtime_error);
  int sum = 0;
  accsum::run_threads(1, [&](int t) { sum += t + 1; });
  EXPECT_EQ(sum, 1);
}

TEST(Limits, ThreadsFromEnvIsStrict) {
  const char* old = std::getenv("ACCSUM_THREADS");
  std::string saved = old ? old : "";
  setenv("ACCSUM_THREADS", "7", 1);
  EXPECT_EQ(accsum::threads_from_env(), 7);
  EXPECT_EQ(accsum::default_thread_count(), 7);
  for (const char* bad : {"0", "1025", "50000", "4x", "x", "3 "}) {
    setenv("ACCSUM_THREADS", bad, 1);
    EXPECT_THROW(accsum::threads_from_env(), accsum::UsageError) << bad;
  }
  setenv("ACCSUM_THREADS", "", 1);  // set but empty: refused, not read as unset
  EXPECT_THROW(accsum::threads_from_env(), accsum::UsageError);
  if (old)
    setenv("ACCSUM_THREADS", saved.c_str(), 1);
  else
    unsetenv("ACCSUM_THREADS");
}

// The peaks app/memcheck.hpp assumes (as multiples of the data) against the measured max RSS.
TEST(Limits, MeasuredPeaksMatchThePreCheck) {
  if (kAsan) GTEST_SKIP() << "ASan's shadow memory and quarantine change the peaks";
  const double n = 1 << 23, mib = 1024.0;  // 64 MiB of sum data
  struct Case {
    std::string args;
    double data_mib, multiple;
  };
  const double sum_mib = n * 8 / (1 << 20), dot_mib = 2 * sum_mib;
  std::vector<Case> cases = {
      {"--algo=naive --backend=cpu", sum_mib, 1},
      {"--algo=superacc --backend=cpu", sum_mib, 2},
      {"--algo=superacc --backend=cpu-mt", sum_mib, 2},
      {"--algo=superacc --backend=cpu --no-repro-check", sum_mib, 1},
      {"--algo=superacc-dot --backend=cpu", dot_mib, 2},
      {"--algo=dpsumk --variant=tree --backend=cpu-mt", sum_mib, 2},
      {"--algo=dpdotk --variant=tree --backend=cpu", dot_mib, 2},
  };
#if defined(ACCSUM_HAVE_EXAMPLE_PLUGINS)
  // a cpu plugin's guarded, read-only copy of its inputs (core/frame/plugin_guard.hpp)
  cases.push_back(
      {"--plugin=" + std::string(ACCSUM_PLUGIN_DIR) + "/kahan_sum.so --algo=kahan-plugin --backend=cpu", sum_mib, 2});
#endif
  // what the process holds without data: code, libraries (cuBLAS in a CUDA build), the oracle
  CliResult base = run_accsum("", "bench --algo=naive --backend=cpu --n=1000 --reps=1 --warmup=0");
  ASSERT_EQ(base.code, 0) << base.err;
  const double base_mib = base.maxrss_kib / mib;
  for (auto& c : cases) {
    CliResult r = run_accsum("", "bench " + c.args + " --n=2^23 --reps=1 --warmup=0");
    ASSERT_EQ(r.code, 0) << c.args << "\n" << r.err;
    const double peak_mib = r.maxrss_kib / mib;
    // within the pre-check's figure over that baseline, plus 32 MiB ...
    EXPECT_LE(peak_mib, base_mib + c.multiple * c.data_mib + 32) << c.args << " (baseline " << base_mib << " MiB)";
    // ... and not far below it (the figure is not a loose overestimate)
    EXPECT_GE(peak_mib, (c.multiple - 0.25) * c.data_mib) << c.args;
  }
}

TEST(Limits, BenchExitCodeFollowsTheGuarantees) {
  // DotK with Dekker's split overflows into NaN for |x| > 2^996 although x*y is finite: outside
  // the bound's domain (decided from the data), so the row claims no bound and keeps its
  // guarantee: exit 0, with the reason on the table.
  const std::string f = tmpdir() + "/dekker.txt";
  std::ofstream(f) << "0x1p1000 0.5\n1 1\n";
  CliResult r =
      run_accsum("", "bench --input=" + f + " --algo=dotk --twoprod=dekker --backend=cpu --reps=1 --warmup=0");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no claim"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Dekker's Split overflows"), std::string::npos) << r.out;
  CliResult ok = run_accsum("", "bench --input=" + f + " --algo=dotk --twoprod=fma --backend=cpu --reps=1 --warmup=0");
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
}
