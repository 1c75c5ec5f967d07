// Adversarial CLI cases (README "Files and paths"): outputs that are links, FIFOs, terminals,
// directories, sockets or an input; interrupts and closed pipes; inputs that are not regular
// files or hold numbers beyond the double range; malformed and contradictory arguments;
// non-UTF-8 names. Everything happens inside a fresh temporary directory: the real /dev is
// only stat'ed, never written (a terminal is a pty of our own, a write error a FIFO whose
// reader leaves).
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_run.hpp"

using namespace cli_test;
using nlohmann::json;

namespace {

std::vector<std::string> list_dir(const std::string& d) {
  std::vector<std::string> out;
  if (DIR* dir = opendir(d.c_str())) {
    while (dirent* e = readdir(dir)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(dir);
  }
  return out;
}

bool any_temp_left(const std::string& d) {
  for (auto& n : list_dir(d))
    if (n.find("accsum") != std::string::npos || n.find(".tmp") != std::string::npos) return true;
  return false;
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  lstat(p.c_str(), &st);
  return st.st_mode;
}

const std::string kQuick = "bench --algo=naive --backend=cpu --n=100 --reps=1 --warmup=0 ";

// Drains fd into `sink` until EOF (a reader thread for FIFOs and ptys).
std::thread drain(int fd, std::string& sink) {
  return std::thread([fd, &sink] {
    char buf[4096];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0) sink.append(buf, static_cast<size_t>(got));
    close(fd);
  });
}

}  // namespace

// ---- outputs ----

TEST(CliSafety, SymlinkOutputReplacesItsTargetAndStaysALink) {
  std::string d = fresh_dir("symlink");
  write_file(d + "/f.json", "old");
  chmod((d + "/f.json").c_str(), 0640);
  ASSERT_EQ(symlink("f.json", (d + "/link.json").c_str()), 0);
  CliRun r = accsum(kQuick + "--json=" + d + "/link.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(S_ISLNK(mode_of(d + "/link.json"))) << "the link was replaced by a file";
  EXPECT_EQ(json::parse(slurp(d + "/f.json"))["schema"], "accsum-report/1");
  EXPECT_EQ(mode_of(d + "/f.json") & 07777, 0640u) << "the replaced file's mode must be kept";
  EXPECT_EQ(list_dir(d).size(), 2u);
}

TEST(CliSafety, DanglingSymlinkDirectoryAndSocketAreRefused) {
  std::string d = fresh_dir("refused");
  ASSERT_EQ(symlink("nowhere/x.json", (d + "/dangling.json").c_str()), 0);
  expect_usage_error(kQuick + "--json=" + d + "/dangling.json", "symbolic link");
  expect_usage_error(kQuick + "-o " + d, "directory");
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock = d + "/sock";
  std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  expect_usage_error(kQuick + "--json=" + sock, "socket");
  expect_usage_error("gen --n=10 -o " + d + "/sub.npy/", "");  // a trailing slash: not a file name
  close(s);
  EXPECT_TRUE(S_ISSOCK(mode_of(sock)));
  EXPECT_TRUE(S_ISLNK(mode_of(d + "/dangling.json")));
  EXPECT_FALSE(any_temp_left(d));
}

TEST(CliSafety, FifoOutputIsWrittenThrough) {
  std::string d = fresh_dir("fifo");
  std::string fifo = d + "/out.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    int fd = open(fifo.c_str(), O_RDONLY);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    close(fd);
  });
  CliRun r = accsum(kQuick + "--json=" + fifo);
  reader.join();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo))) << "the FIFO was replaced";
  EXPECT_EQ(json::parse(got)["schema"], "accsum-report/1");
  EXPECT_EQ(list_dir(d).size(), 1u);
}

TEST(CliSafety, FifoOutputOfGenIsWrittenThrough) {
  std::string d = fresh_dir("genfifo");
  std::string fifo = d + "/x.bin";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { drain(open(fifo.c_str(), O_RDONLY), got).join(); });
  CliRun r = accsum("gen --n=1000 -o " + fifo);
  reader.join();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(got.size(), 8000u);
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
}

TEST(CliSafety, TerminalOutputIsWrittenThrough) {
  // A character device of our own: a pseudo-terminal (never the real /dev/null or /dev/full).
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) GTEST_SKIP() << "no pseudo-terminal here";
  std::string tty = ptsname(master);
  ASSERT_TRUE(S_ISCHR(mode_of(tty)));
  std::string got;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    char buf[4096];
    for (;;) {
      pollfd pf{master, POLLIN, 0};
      int ready = poll(&pf, 1, 50);
      if (ready > 0 && (pf.revents & POLLIN)) {
        ssize_t n = read(master, buf, sizeof buf);
        if (n > 0) got.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (done) break;
      if (ready > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // POLLHUP: no slave open yet
    }
  });
  CliRun r = accsum(kQuick + "--json=" + tty + " -o " + tty);  // a device may be named twice
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  done = true;
  reader.join();
  close(master);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << "-o given: nothing on stdout";
  EXPECT_NE(got.find("accsum-report/1"), std::string::npos);
  EXPECT_NE(got.find("naive"), std::string::npos);
}

TEST(CliSafety, VerifyTableAndGenFollowTheSamePolicy) {
  std::string d = fresh_dir("commands");
  write_file(d + "/v.json", "old");
  ASSERT_EQ(symlink("v.json", (d + "/vlink.json").c_str()), 0);
  CliRun v = accsum("verify --algo=naive --backend=cpu --seeds=1 --json=" + d + "/vlink.json");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_TRUE(S_ISLNK(mode_of(d + "/vlink.json")));
  EXPECT_EQ(json::parse(slurp(d + "/v.json"))["schema"], "accsum-report/1");

  ASSERT_EQ(mkfifo((d + "/t.md").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { drain(open((d + "/t.md").c_str(), O_RDONLY), got).join(); });
  CliRun t = accsum("table --suite=accuracy --n=1000 -o " + d + "/t.md");
  reader.join();
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_TRUE(S_ISFIFO(mode_of(d + "/t.md")));
  EXPECT_NE(got.find("# accsum table --suite=accuracy"), std::string::npos);
  expect_usage_error("table --n=100 --json=" + d, "directory");

  write_file(d + "/g.npy", "old");
  chmod((d + "/g.npy").c_str(), 0611);
  ASSERT_EQ(symlink("g.npy", (d + "/glink.npy").c_str()), 0);
  CliRun g = accsum("gen --n=10 -o " + d + "/glink.npy");
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_TRUE(S_ISLNK(mode_of(d + "/glink.npy")));
  EXPECT_EQ(slurp(d + "/g.npy").size(), 128u + 80u);  // npy header (128 bytes) + 10 doubles
  EXPECT_EQ(mode_of(d + "/g.npy") & 07777, 0611u);
  EXPECT_FALSE(any_temp_left(d));
}

TEST(CliSafety, OpenDescriptorPathsAreWrittenToTheDescriptor) {
  // --json=/proc/self/fd/1 (as /dev/stdout): the report follows the table on the same stdout,
  // whatever stdout is (here a regular file), nothing renamed or reopened at offset 0.
  std::string d = fresh_dir("fd");
  int out = open((d + "/stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  struct stat before {};
  fstat(out, &before);
  pid_t pid = spawn_accsum(
      {"bench", "--algo=naive", "--backend=cpu", "--n=100", "--reps=1", "--format=csv", "--json=/proc/self/fd/1"}, out);
  close(out);
  CliRun r = wait_accsum(pid);
  ASSERT_EQ(r.code, 0) << r.err;
  std::string all = slurp(d + "/stdout.txt");
  size_t brace = all.find('{');
  ASSERT_NE(brace, std::string::npos) << all;
  EXPECT_EQ(json::parse(all.substr(0, all.rfind('}') + 1).substr(brace))["schema"], "accsum-report/1");
  EXPECT_NE(all.find("family,n,dist"), std::string::npos) << "the CSV table was lost: " << all;
  struct stat after {};
  stat((d + "/stdout.txt").c_str(), &after);
  EXPECT_EQ(before.st_ino, after.st_ino) << "stdout's file was replaced";
  EXPECT_EQ(list_dir(d).size(), 1u);
  expect_usage_error(kQuick + "--json=/dev/fd/97", "not open");
}

TEST(CliSafety, WriteErrorOnAWrittenThroughOutputIsOneLineAndExitTwo) {
  // The reader takes a few bytes and leaves: every later write is EPIPE (as ENOSPC on /dev/full).
  std::string d = fresh_dir("epipe");
  std::string fifo = d + "/x.npy";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread reader([&] {
    int fd = open(fifo.c_str(), O_RDONLY);
    char buf[16];
    (void)!read(fd, buf, sizeof buf);
    close(fd);
  });
  CliRun r = accsum("gen --n=2^20 -o " + fifo);  // 8 MiB: far more than a pipe holds
  reader.join();
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
}

TEST(CliSafety, ProbeAndTemporaryNamesDoNotFollowPlantedLinks) {
  std::string d = fresh_dir("planted");
  write_file(d + "/victim", "precious");
  // The names the old probe and temporary file used, planted as links to another file.
  for (auto suffix : {".accsum-probe", ".tmp.1", ".tmp.0"})
    ASSERT_EQ(symlink((d + "/victim").c_str(), (d + "/r.json" + suffix).c_str()), 0);
  CliRun r = accsum(kQuick + "--json=" + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(d + "/victim"), "precious");
  EXPECT_EQ(json::parse(slurp(d + "/r.json"))["schema"], "accsum-report/1");
  EXPECT_EQ(list_dir(d).size(), 5u) << "no temporary file left behind";
}

TEST(CliSafety, ReplacedFileKeepsItsModeAndNewFilesFollowTheUmask) {
  std::string d = fresh_dir("mode");
  write_file(d + "/r.md", "old");
  chmod((d + "/r.md").c_str(), 0604);
  CliRun r = accsum(kQuick + "--format=md -o " + d + "/r.md --json=" + d + "/new.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(mode_of(d + "/r.md") & 07777, 0604u);
  EXPECT_NE(slurp(d + "/r.md").find("| naive"), std::string::npos);
  mode_t um = umask(0);
  umask(um);
  EXPECT_EQ(mode_of(d + "/new.json") & 07777, 0666u & ~um) << "not the 0600 of a temporary file";
}

TEST(CliSafety, OutputThatIsAnInputOrAnotherOutputIsRefused) {
  std::string d = fresh_dir("same");
  CliRun g = accsum("gen --n=100 -o " + d + "/data.npy");
  ASSERT_EQ(g.code, 0) << g.err;
  std::string before = slurp(d + "/data.npy");
  ASSERT_EQ(symlink("data.npy", (d + "/alias.json").c_str()), 0);
  std::string b = "bench --algo=naive --backend=cpu --reps=1 --input=" + d + "/data.npy ";
  expect_usage_error(b + "--json=" + d + "/data.npy", "--input");
  expect_usage_error(b + "-o " + d + "/data.npy", "--input");
  expect_usage_error(b + "--json=" + d + "/alias.json", "--input");  // the same inode through a link
  expect_usage_error(b + "--json=" + d + "/./data.npy", "--input");
  EXPECT_EQ(slurp(d + "/data.npy"), before);
  // Two outputs naming one file that does not exist yet, by the same or another spelling.
  expect_usage_error(kQuick + "-o " + d + "/x.json --json=" + d + "/x.json", "both");
  expect_usage_error(kQuick + "-o " + d + "/x.json --json=" + d + "/../same/x.json", "both");
  expect_usage_error("verify --algo=naive --backend=cpu -o " + d + "/v.txt --json=" + d + "/v.txt", "both");
  expect_usage_error("table --n=100 -o " + d + "/t.md --json=" + d + "/t.md", "both");
  EXPECT_EQ(list_dir(d).size(), 2u);
}

TEST(CliSafety, InterruptDuringTheWriteLeavesNoTemporaryFile) {
  // --json is prepared as a temporary file, then -o is a FIFO with no reader: the writer blocks
  // there with the temporary file alive. Each signal must remove it and kill the process.
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    std::string d = fresh_dir("interrupt" + std::to_string(sig));
    ASSERT_EQ(mkfifo((d + "/blocked.txt").c_str(), 0600), 0);
    pid_t pid = spawn_accsum({"bench", "--algo=naive", "--backend=cpu", "--n=100", "--reps=1",
                              "--json=" + d + "/r.json", "-o", d + "/blocked.txt"});
    bool seen = false;
    for (int i = 0; i < 600 && !seen; ++i) {  // up to 60 s for the run to reach the write
      for (auto& n : list_dir(d)) seen |= n.find(".r.json.accsum-") == 0;
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(seen) << "no temporary file appeared";
    kill(pid, sig);
    int status = 0;
    for (int i = 0; i < 200 && waitpid(pid, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (waitpid(pid, &status, WNOHANG) == 0) {  // still alive after 20 s: fail, do not hang
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "signal " << sig << " did not end the process";
    }
    int got_sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    EXPECT_EQ(got_sig, sig) << "the process must die of the signal it got";
    auto left = list_dir(d);
    EXPECT_EQ(left, std::vector<std::string>{"blocked.txt"}) << "temporary or partial output left by signal " << sig;
  }
}

TEST(CliSafety, ClosedStdoutPipeStillWritesTheJsonReport) {
  // `accsum bench ... | head -1`: the reader is gone before the report is printed.
  std::string d = fresh_dir("sigpipe");
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  close(p[0]);
  pid_t pid = spawn_accsum(
      {"bench", "--algo=naive", "--backend=cpu", "--n=100", "--reps=1", "--format=json", "--json=" + d + "/r.json"},
      p[1]);
  close(p[1]);
  int sig = 0;
  CliRun r = wait_accsum(pid, &sig);
  EXPECT_EQ(sig, 0) << "killed by SIGPIPE";
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(json::parse(slurp(d + "/r.json"))["schema"], "accsum-report/1");
}

TEST(CliSafety, StdoutWriteErrorIsOneLineAndExitTwo) {
  // stdout on /dev/full (opened as a redirection: the device itself cannot be replaced).
  int full = open("/dev/full", O_WRONLY);
  if (full < 0) GTEST_SKIP() << "no /dev/full";
  pid_t pid = spawn_accsum({"bench", "--algo=naive", "--backend=cpu", "--n=100", "--reps=1"}, full);
  close(full);
  CliRun r = wait_accsum(pid);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("standard output"), std::string::npos) << r.err;
}

// ---- inputs ----

TEST(CliSafety, TextInputMustBeARegularFile) {
  std::string d = fresh_dir("textin");
  ASSERT_EQ(mkfifo((d + "/f.txt").c_str(), 0600), 0);
  int keep = open((d + "/f.txt").c_str(), O_RDWR);  // a FIFO with a writer: it would never end
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/f.txt", "not a regular file");
  close(keep);
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/f.txt", "not a regular file");  // no writer
  ASSERT_EQ(symlink("/dev/zero", (d + "/zero.txt").c_str()), 0);  // endless: must not be read
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/zero.txt", "not a regular file");
  ASSERT_EQ(symlink("/dev/zero", (d + "/zero.npy").c_str()), 0);
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/zero.npy", "not a regular file");
  mkdir((d + "/dir.txt").c_str(), 0755);
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/dir.txt", "directory");
}

TEST(CliSafety, TextInputLargerThanMemoryIsRefusedBeforeReading) {
  // A sparse 4 TiB text file: no disk used, and it must be refused before a byte is read.
  std::string d = fresh_dir("huge");
  int fd = open((d + "/huge.txt").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  bool sparse = ftruncate(fd, off_t(1) << 42) == 0;
  close(fd);
  if (!sparse) GTEST_SKIP() << "no sparse files here";
  auto t0 = std::chrono::steady_clock::now();
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/huge.txt", "bytes");  // app/memcheck.hpp
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  unlink((d + "/huge.txt").c_str());
}

TEST(CliSafety, TextNumbersBeyondTheDoubleRangeAreErrors) {
  std::string d = fresh_dir("range");
  write_file(d + "/big.txt", "1\n2\n1e400\n");
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/big.txt", "line 3");
  write_file(d + "/neg.txt", "# comment\n-1e400\n");
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/neg.txt", "line 2: '-1e400'");
  write_file(d + "/hex.txt", "0x1p5000\n");
  expect_usage_error("bench --algo=naive --backend=cpu --input=" + d + "/hex.txt", "outside the double range");
  write_file(d + "/dot.csv", "1,2\n3,1e999\n");
  expect_usage_error("bench --algo=dot --backend=cpu --input=" + d + "/dot.csv", "line 2");
  // Explicit infinities and underflow (to a subnormal or zero) stay accepted.
  write_file(d + "/ok.txt", "1e-400\n4e-320\ninf\n1\n");
  CliRun r = accsum("bench --algo=naive --backend=cpu --reps=1 --input=" + d + "/ok.txt --format=json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["results"][0]["value"], "inf");
}

TEST(CliSafety, ControlCharactersAreNeverEchoedRaw) {
  std::string d = fresh_dir("ctrl");
  write_file(d + "/esc.txt", "1\n\x1b[2J\x07\n");
  CliRun r = accsum("bench --algo=naive --backend=cpu --input=" + d + "/esc.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "raw ESC on the terminal";
  EXPECT_EQ(r.err.find('\x07'), std::string::npos);
  EXPECT_NE(r.err.find("\\x1b[2J\\x07"), std::string::npos) << r.err;
  CliRun a = accsum_argv({"bench", "--algo=\x1b]0;pwned\x07", "--n=10"});
  EXPECT_EQ(a.code, 2);
  EXPECT_EQ(a.err.find('\x1b'), std::string::npos) << a.err;
  EXPECT_NE(a.err.find("\\x1b]0;pwned\\x07"), std::string::npos) << a.err;
  CliRun n = accsum_argv({"bench", "--algo=naive", "--input=" + d + "/a\nb\r.txt"});
  EXPECT_EQ(n.code, 2);
  EXPECT_EQ(lines(n.err), 1) << "a newline in a name must not split the message: " << n.err;
}

TEST(CliSafety, BenchInputWithDefaultAlgoRunsWhatFitsTheFile) {
  std::string d = fresh_dir("fit");
  ASSERT_EQ(accsum("gen --n=500 -o " + d + "/sum.npy").code, 0);
  ASSERT_EQ(accsum("gen --n=500 --family=dot -o " + d + "/dot.npy").code, 0);
  write_file(d + "/col.txt", "1\n2\n3\n");
  for (auto [file, fam] : {std::pair{"sum.npy", "sum"}, std::pair{"dot.npy", "dot"}, std::pair{"col.txt", "sum"}}) {
    CliRun r = accsum("bench --reps=1 --warmup=0 --no-repro-check --format=json --input=" + d + "/" + file);
    ASSERT_EQ(r.code, 0) << file << "\n" << r.err;
    auto doc = json::parse(r.out);
    ASSERT_EQ(doc["runs"].size(), 1u) << file;
    EXPECT_EQ(doc["dataset"]["family"], fam);
    EXPECT_GE(doc["results"].size(), 4u) << file;
    for (auto& res : doc["results"]) EXPECT_EQ(res["family"], fam);
  }
  // Named algorithms must all fit: a dot algorithm on a sum file is an error (exit 2, one line;
  // the sum rows measured before it are kept, marked incomplete: docs/input-output-rules.md).
  CliRun both = accsum("bench --algo=naive,dot --backend=cpu --input=" + d + "/sum.npy");
  EXPECT_EQ(both.code, 2) << both.err;
  EXPECT_EQ(lines(both.err), 1) << both.err;
  EXPECT_NE(both.err.find("dot"), std::string::npos) << both.err;
  EXPECT_NE(both.out.find("INCOMPLETE"), std::string::npos) << both.out;
}

// ---- arguments ----

TEST(CliSafety, EmptyListElementsAreErrors) {
  for (auto args :
       {"--algo=sumk --backend=cpu --K=2,,3", "--algo=sumk,,naive --backend=cpu", "--algo=sumk --backend=cpu --K=,",
        "--algo=sumk, --backend=cpu", "--algo=naive --backend=cpu, --n=10", "--algo=naive --backend=cpu --n=2^10,,2^11",
        "--algo=naive --backend=cpu --range=1e5,", "--algo=sumk --backend=cpu --param=K=2,,3"})
    expect_usage_error(std::string("bench --reps=1 ") + args, "empty element");
  // Empty values are not "not given" either.
  expect_usage_error("bench --algo=sumk --backend=cpu --K=", "--K");
  expect_usage_error("bench --algo=sumk --backend=cpu --K=\" \"", "no value");
  expect_usage_error(kQuick + "--json=", "--json");
  expect_usage_error(kQuick + "--json=\"\"", "--json");
  expect_usage_error("bench --algo=naive --backend=", "--backend");
  expect_usage_error("bench --algo=naive --backend=\" \"", "backend");
}

TEST(CliSafety, SeedsOutsideUint64AreErrors) {
  for (auto s : {"-1", "18446744073709551616", "99999999999999999999999", "1e3", "0x10", "", " 5", "5x"})
    expect_usage_error(kQuick + "--seed=\"" + s + "\"", "--seed");
  expect_usage_error("gen --n=10 --seed=-1 -o " + tmpdir() + "/s.npy", "--seed");
  expect_usage_error("table --seed=-1", "--seed");
  CliRun r = accsum(kQuick + "--seed=18446744073709551615 --format=json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["dataset"]["seed"].get<uint64_t>(), 18446744073709551615ull);
}

TEST(CliSafety, ContradictoryParametersAreErrors) {
  expect_usage_error("bench --algo=sumk --backend=cpu --param K=3 --K=4", "twice");
  expect_usage_error("bench --algo=sumk --backend=cpu --K=4 --param K=3", "twice");
  expect_usage_error("bench --algo=sumk --backend=cpu --param K=3 --param K=4", "twice");
  expect_usage_error("bench --algo=sumk --backend=cpu --K=2 --K=3", "K");
  expect_usage_error("bench --algo=superacc --backend=cpu --fpe=2 --param fpe=2", "twice");
  expect_usage_error("verify --algo=sumk --backend=cpu --param K=3 --K=3", "twice");
}

TEST(CliSafety, OptionsTheModeIgnoresAreErrors) {
  std::string d = fresh_dir("ignored");
  ASSERT_EQ(accsum("gen --n=100 -o " + d + "/x.npy").code, 0);
  std::string b = "bench --algo=naive --backend=cpu --input=" + d + "/x.npy ";
  for (auto o : {"--n=100", "--seed=3", "--dist=uniform", "--range=1e10", "--cond=1e5"})
    expect_usage_error(b + o, std::string(o).substr(0, std::string(o).find('=')));
  expect_usage_error("gen --n=10 --input=" + d + "/x.npy -o " + d + "/y.npy", "--input");
  EXPECT_EQ(list_dir(d).size(), 1u);
}

TEST(CliSafety, BackendAllSkipsMissingPairsButAnExplicitListDoesNot) {
  CliRun r = accsum("bench --algo=sumk,naive --backend=all --n=100 --reps=1 --warmup=0 --no-repro-check --format=json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = json::parse(r.out);
  int sumk = 0, naive = 0;
  for (auto& res : doc["results"]) {
    sumk += res["algo"] == "sumk";
    naive += res["algo"] == "naive";
  }
  EXPECT_EQ(sumk, 1);   // sumk runs on cpu only
  EXPECT_GE(naive, 2);  // naive on cpu and cpu-mt at least
  expect_usage_error("bench --algo=sumk --backend=cpu,cpu-mt --n=100", "not available on backend 'cpu-mt'");
}

TEST(CliSafety, NonUtf8NamesAreWrittenAndReported) {
  std::string d = fresh_dir("utf8");
  std::string name = d + "/bad\xff\xfe-\x01name.npy";
  CliRun g = accsum_argv({"gen", "--n=100", "-o", name});
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(mode_of(name) & S_IFMT, static_cast<mode_t>(S_IFREG)) << "the file must have exactly the given name";
  EXPECT_EQ(g.out.find('\x01'), std::string::npos);
  std::string report = d + "/r\xff.json";
  CliRun b = accsum_argv({"bench", "--algo=naive", "--backend=cpu", "--reps=1", "--input=" + name, "--json=" + report});
  ASSERT_EQ(b.code, 0) << b.err;
  auto doc = json::parse(slurp(report));
  std::string cmd = doc["command"].dump();
  EXPECT_NE(cmd.find("bad\\\\xff\\\\xfe-"), std::string::npos) << cmd;
  EXPECT_NE(doc["dataset"]["source"].get<std::string>().find("bad\\xff\\xfe-"), std::string::npos);
  EXPECT_EQ(doc["dataset"]["n"], 100);
  CliRun missing = accsum_argv({"bench", "--algo=naive", "--input=" + d + "/no\xff.npy"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no\\xff.npy"), std::string::npos) << missing.err;
}

TEST(CliSafety, ListShowsTheDefaultsEachBackendUses) {
  CliRun j = accsum("list --format json");
  CliRun t = accsum("list");
  ASSERT_EQ(j.code, 0);
  ASSERT_EQ(t.code, 0);
  const json listed = json::parse(j.out);
  for (auto& a : listed["algorithms"]) {
    std::map<std::string, std::string> first;
    size_t at = t.out.find("\n" + a["algo"].get<std::string>() + " ");
    ASSERT_NE(at, std::string::npos) << a["algo"];
    std::string line = t.out.substr(at + 1, t.out.find('\n', at + 1) - at - 1);
    for (auto& b : a["backends"])
      for (auto& p : b["params"]) {
        std::string name = p["name"], def = p["default"];
        if (!first.count(name)) {
          first[name] = def;
          EXPECT_NE(line.find(name + "="), std::string::npos) << line;
        } else if (first[name] != def) {
          EXPECT_NE(line.find(b["backend"].get<std::string>() + ": " + def), std::string::npos)
              << a["algo"] << " on " << b["backend"] << " uses " << name << "=" << def << " but list says: " << line;
        }
      }
  }
  // (e.g. OpenCL's superacc runs early_exit=1 where the others default to 0.)
}

#ifdef ACCSUM_HAVE_MPI
TEST(CliSafety, MpiRanksGivenDifferentArgumentsAreRefusedByRankZeroOnly) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun";
  std::string bin = ACCSUM_BIN, base = " bench --algo=superacc --backend=mpi --n=1000 --warmup=0 --no-repro-check";
  // Without the check the ranks would run different numbers of reductions and hang: time out.
  std::string cmd = "timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 " + bin + base +
                    " --reps=1 : -np 1 " + bin + base + " --reps=2 >" + tmpdir() + "/mpi.out 2>" + tmpdir() +
                    "/mpi.err";
  int status = std::system(cmd.c_str());
  std::string err = slurp(tmpdir() + "/mpi.err");
  EXPECT_NE(status, 0);
  size_t first = err.find("different arguments");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("different arguments", first + 1), std::string::npos) << "printed by more than one rank:\n" << err;
}
#endif
