#pragma once
// Shared by the CLI tests: run the built accsum binary (ACCSUM_BIN) and look at what it did.
#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cli_test {

struct CliRun {
  int code;  // exit code, or -1 when killed by a signal
  std::string out, err;
};

// A fresh directory for this test process.
inline std::string tmpdir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/accsum-cli-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

// A subdirectory of tmpdir() for one test, so the files it leaves can be listed exactly.
inline std::string fresh_dir(const std::string& name) {
  std::string d = tmpdir() + "/" + name;
  mkdir(d.c_str(), 0755);
  return d;
}

// Writes `bytes` to `path` (a test's input file); a test fails when it cannot.
inline void write_file(const std::string& path, const std::string& bytes) {
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  fwrite(bytes.data(), 1, bytes.size(), f);
  fclose(f);
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// accsum with `args` through the shell (stdout and stderr captured).
inline CliRun accsum(const std::string& args) {
  std::string out = tmpdir() + "/out.txt", err = tmpdir() + "/err.txt";
  std::string cmd = std::string(ACCSUM_BIN) + " " + args + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

// Starts accsum with exactly these arguments (no shell: any bytes), stdout to `out_fd` (or a
// capture file when -1), stderr to a capture file. Returns the pid; finish with wait_accsum.
inline pid_t spawn_accsum(const std::vector<std::string>& args, int out_fd = -1) {
  std::string out = tmpdir() + "/out.txt", err = tmpdir() + "/err.txt";
  pid_t pid = fork();
  if (pid == 0) {
    int o = out_fd >= 0 ? out_fd : ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    // A test runner started in the background ignores SIGINT; accsum must see the default.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> argv{const_cast<char*>(ACCSUM_BIN)};
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(ACCSUM_BIN, argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for pid; the exit code (or -signal when it was killed) and the captured output.
inline CliRun wait_accsum(pid_t pid, int* signal_out = nullptr) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (signal_out) *signal_out = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(tmpdir() + "/out.txt"), slurp(tmpdir() + "/err.txt")};
}

inline CliRun accsum_argv(const std::vector<std::string>& args) { return wait_accsum(spawn_accsum(args)); }

// CI's accuracy gate: `accsum <table_args> --json=...` regenerated here and judged against the
// committed report with `accsum compare --accuracy-only` (speed is not compared: CI is another
// machine). Any accuracy regression, changed reference or unmatched row fails the test. Returns the
// table run (its stdout is the table).
inline CliRun expect_committed_report_reproduced(const std::string& table_args, const std::string& committed) {
  const std::string fresh = tmpdir() + "/table_now.json";
  CliRun r = accsum(table_args + " --json=" + fresh);
  EXPECT_EQ(r.code, 0) << table_args << "\n" << r.err;
  if (r.code != 0) return r;
  CliRun c = accsum("compare --accuracy-only " + std::string(ACCSUM_SOURCE_DIR) + "/" + committed + " " + fresh);
  EXPECT_EQ(c.code, 0) << "accsum " << table_args << " no longer matches " << committed
                       << " (regenerate it only if the change in accuracy is intended):\n"
                       << c.out << c.err;
  EXPECT_NE(c.out.find(" 0 only in base, 0 only in new"), std::string::npos) << c.out;
  return r;
}

inline int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

inline void expect_usage_error(const std::string& args, const std::string& fragment) {
  CliRun r = accsum(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << args << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << args;
}

}  // namespace cli_test
