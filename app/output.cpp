// Output files and the signal handlers that keep temporary files from outliving the process
// (policy: app/output.hpp).
#include "app/output.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/frame/registry.hpp"

namespace accsum::cli {
namespace {

// ---- live temporary files, removed by the signal handler ----
// Fixed storage, so the handler only reads plain memory and calls unlink (async-signal-safe).
constexpr int kSlots = 16;
char g_temp[kSlots][PATH_MAX];
volatile sig_atomic_t g_used[kSlots];
mode_t g_umask = 022;

const int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

bool g_force = false;  // --force: write-protected regular files may be replaced

// How long an output FIFO is waited for a reader before the write is refused.
constexpr int kFifoReaderWaitMs = 2000;

extern "C" void on_fatal_signal(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i]) ::unlink(g_temp[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered when the handler returns: the process dies of sig, as it would have
}

// Blocks the handled signals for the lifetime of the object, so that creating a temporary file
// and recording it (or renaming it and forgetting it) happen as one step.
struct SignalsBlocked {
  sigset_t old;
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    ::sigprocmask(SIG_BLOCK, &set, &old);
  }
  ~SignalsBlocked() { ::sigprocmask(SIG_SETMASK, &old, nullptr); }
};

std::string errtext(int err) { return std::strerror(err); }

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError("cannot write '" + path + "': " + why);
}

std::string dir_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string base_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// A temporary file beside `target`: a random name, created with O_CREAT|O_EXCL|O_NOFOLLOW
// (never a followed link, never an existing file), recorded for the signal handler *before* it
// is created and forgotten only after it is renamed or removed, so that a signal delivered to
// any thread at any moment finds every temporary file that exists. Released by discard/commit.
struct Temp {
  std::string path;
  int fd = -1;
  int slot = -1;

  void create(const std::string& target) {
    std::string base = base_of(target);
    if (base.size() > 200) base = "out";
    const std::string prefix = dir_of(target) + "/." + base + ".accsum-";
    if (prefix.size() + 16 >= PATH_MAX) refuse(target, "path too long");
    SignalsBlocked guard;
    for (int i = 0; i < kSlots && slot < 0; ++i)
      if (!g_used[i]) slot = i;
    if (slot < 0) refuse(target, "too many open outputs");
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; ++attempt) {
      unsigned char rnd[10];
      if (::getrandom(rnd, sizeof rnd, 0) != static_cast<ssize_t>(sizeof rnd))
        for (auto& r : rnd) r = static_cast<unsigned char>(std::rand());
      path = prefix;
      for (unsigned char r : rnd) path += chars[r % 62];
      std::memcpy(g_temp[slot], path.c_str(), path.size() + 1);
      g_used[slot] = 1;
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
      if (fd >= 0) return;
      int err = errno;
      g_used[slot] = 0;
      if (err != EEXIST) {
        slot = -1;
        refuse(target, errtext(err));
      }
    }
    slot = -1;
    refuse(target, "no free temporary name");
  }
  // Closes (if open) and removes the temporary file.
  void discard() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    if (slot < 0) return;
    SignalsBlocked guard;
    ::unlink(path.c_str());
    g_used[slot] = 0;
    slot = -1;
  }
  // Renames it over target; returns errno (0 on success). The temporary is gone either way.
  int commit(const std::string& target) {
    SignalsBlocked guard;
    int err = ::rename(path.c_str(), target.c_str()) == 0 ? 0 : errno;
    if (err) ::unlink(path.c_str());
    g_used[slot] = 0;  // after the rename: a signal in between unlinks a name that is gone
    slot = -1;
    return err;
  }
  ~Temp() { discard(); }
};

// Writes all of [data, data + size) to fd; errno of the first failure, or 0.
int write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t w = ::write(fd, p, size);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += w;
    size -= static_cast<size_t>(w);
  }
  return 0;
}

// Writes `produce`'s bytes to fd; returns errno of the first failure, or 0.
int produce_into(int fd, const std::function<void(const Sink&)>& produce) {
  int err = 0;
  Sink sink = [&](const void* data, size_t size) {
    if (!err && size > 0) err = write_all(fd, data, size);
  };
  produce(sink);
  return err;
}

// A regular target prepared as a complete, synced temporary file, waiting to be renamed.
void prepare_temp(Temp& t, const OutputTarget& target, const std::function<void(const Sink&)>& produce) {
  t.create(target.resolved);
  struct stat st;
  if (target.kind == OutputKind::replace && ::stat(target.resolved.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    if (::geteuid() == 0) (void)!::fchown(t.fd, st.st_uid, st.st_gid);  // keep the owner where allowed
    ::fchmod(t.fd, st.st_mode & 0777);  // the permissions; never set-id bits on a report
  } else {
    ::fchmod(t.fd, 0666 & ~g_umask);  // what creating the file directly would have given
  }
  int err = produce_into(t.fd, produce);
  if (!err && ::fsync(t.fd) != 0) err = errno;
  if (::close(t.fd) != 0 && !err) err = errno;
  t.fd = -1;
  if (err) {
    t.discard();
    refuse(target.path, errtext(err));
  }
}

void write_through(const OutputTarget& target, const std::function<void(const Sink&)>& produce) {
  if (target.fd >= 0) {  // the descriptor the process already has
    if (int err = produce_into(target.fd, produce)) refuse(target.path, errtext(err));
    return;
  }
  // No O_CREAT, no O_TRUNC: the device or FIFO exists and is written as it is. O_NONBLOCK: a
  // FIFO without a reader fails the open (ENXIO) instead of blocking forever; it is waited for
  // kFifoReaderWaitMs, then refused. Writes are blocking again once it is open.
  int fd = -1;
  for (int waited = 0;; waited += 50) {
    fd = ::open(target.resolved.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0 || errno != ENXIO || waited >= kFifoReaderWaitMs) break;
    ::usleep(50 * 1000);
  }
  if (fd < 0 && errno == ENXIO)
    refuse(target.path,
           "it is a FIFO that no process reads (waited " + std::to_string(kFifoReaderWaitMs / 1000) + " s)");
  if (fd < 0) refuse(target.path, errtext(errno));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int err = produce_into(fd, produce);
  if (::close(fd) != 0 && !err && errno != EINVAL) err = errno;
  if (err) refuse(target.path, errtext(err));
}

// The descriptor a /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N path names, or -1.
int fd_of_path(const std::string& p) {
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    std::string pre = prefix;
    if (p.compare(0, pre.size(), pre) != 0 || p.size() == pre.size() || p.size() > pre.size() + 6) continue;
    if (p.find_first_not_of("0123456789", pre.size()) != std::string::npos) continue;
    return std::stoi(p.substr(pre.size()));
  }
  return -1;
}

// Identity of a path for check_distinct: "i:dev:ino" when it exists, else "p:" + an absolute
// path with the directory resolved.
std::string identity(const std::string& p, bool* is_chr) {
  struct stat st;
  *is_chr = false;
  if (::stat(p.c_str(), &st) == 0) {
    *is_chr = S_ISCHR(st.st_mode);
    return "i:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  std::string dir = dir_of(p);
  if (char* r = ::realpath(dir.c_str(), nullptr)) {
    std::string abs = std::string(r) + "/" + base_of(p);
    std::free(r);
    return "p:" + abs;
  }
  return "p:" + p;
}

}  // namespace

void set_force_overwrite(bool force) { g_force = force; }

void install_signal_handlers() {
  g_umask = ::umask(0);
  ::umask(g_umask);
  ::signal(SIGPIPE, SIG_IGN);
  // A file size limit (ulimit -f) makes write() fail with EFBIG instead of killing the process,
  // so it is handled as ENOSPC is: one line, exit 2, the temporary file removed.
  ::signal(SIGXFSZ, SIG_IGN);
  for (int s : kSignals) {
    struct sigaction old;
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // e.g. nohup
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (int t : kSignals) sigaddset(&sa.sa_mask, t);
    ::sigaction(s, &sa, nullptr);
  }
}

OutputTarget check_output(const std::string& path) {
  if (path.empty()) throw UsageError("an output path is empty");
  OutputTarget t;
  t.path = path;
  t.resolved = path;
  struct stat st;
  if (int fd = fd_of_path(path); fd >= 0) {
    int fl = ::fcntl(fd, F_GETFL);
    if (fl < 0) refuse(path, "descriptor " + std::to_string(fd) + " is not open");
    if ((fl & O_ACCMODE) == O_RDONLY) refuse(path, "descriptor " + std::to_string(fd) + " is not open for writing");
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) refuse(path, "it is a directory");
    t.kind = OutputKind::through;
    t.fd = fd;
    return t;
  }
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) refuse(path, errtext(errno));
    t.kind = OutputKind::create;
  } else {
    if (S_ISLNK(st.st_mode)) {
      char* r = ::realpath(path.c_str(), nullptr);
      if (!r) refuse(path, "it is a symbolic link to a missing file or a loop (" + errtext(errno) + ")");
      t.resolved = r;
      std::free(r);
      if (::stat(t.resolved.c_str(), &st) != 0) refuse(path, errtext(errno));
    }
    if (S_ISREG(st.st_mode)) {
      t.kind = OutputKind::replace;
      // Renaming over a write-protected file would succeed (the directory is writable): its
      // mode says the user wants it kept, so it is replaced only with --force.
      if (!g_force && ((st.st_mode & 0222) == 0 || ::access(t.resolved.c_str(), W_OK) != 0))
        refuse(path, "it is write-protected (give --force to replace it)");
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      if (::access(t.resolved.c_str(), W_OK) != 0) refuse(path, errtext(errno));
      t.kind = OutputKind::through;
      return t;
    } else if (S_ISDIR(st.st_mode)) {
      refuse(path, "it is a directory");
    } else if (S_ISSOCK(st.st_mode)) {
      refuse(path, "it is a socket");
    } else if (S_ISBLK(st.st_mode)) {
      refuse(path, "it is a block device (refused)");
    } else {
      refuse(path, "not a regular file, FIFO or character device");
    }
  }
  // The directory must take a new file: create the temporary file a write would create.
  Temp probe;
  probe.create(t.resolved);
  probe.discard();
  return t;
}

void check_distinct(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  struct Seen {
    std::string id;
    const NamedPath* np;
    bool chr;
  };
  std::vector<Seen> in, out;
  for (auto& p : inputs)
    if (!p.path.empty()) {
      bool chr;
      std::string id = identity(p.path, &chr);
      in.push_back({id, &p, chr});
    }
  for (auto& p : outputs) {
    if (p.path.empty()) continue;
    bool chr;
    std::string id = identity(p.path, &chr);
    for (auto& s : in)
      if (s.id == id)
        throw UsageError("'" + p.path + "' is both the " + s.np->option + " file and the " + p.option +
                         " output (refused: it would be overwritten)");
    for (auto& s : out)
      if (s.id == id && !chr)
        throw UsageError("'" + p.path + "' is named by both " + s.np->option + " and " + p.option +
                         " (refused: one would overwrite the other)");
    out.push_back({id, &p, chr});
  }
}

void write_output(const std::string& path, const std::function<void(const Sink&)>& produce) {
  OutputTarget t = check_output(path);
  if (t.kind == OutputKind::through) return write_through(t, produce);
  Temp tmp;
  prepare_temp(tmp, t, produce);
  if (int err = tmp.commit(t.resolved)) refuse(path, errtext(err));
}

void write_into_directory(const std::string& dir, const std::string& name, const std::string& content) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) refuse(dir, errtext(errno));
  if (!S_ISDIR(st.st_mode)) refuse(dir, "not a directory (a directory is expected here)");
  const std::string target = dir + "/" + name;
  OutputTarget t;
  t.path = t.resolved = target;  // the name itself, not what a link there points to
  Temp tmp;
  prepare_temp(tmp, t, [&](const Sink& sink) { sink(content.data(), content.size()); });
  if (int err = tmp.commit(target)) refuse(target, errtext(err));
}

void write_outputs(const std::vector<OutputItem>& items) {
  std::vector<OutputTarget> targets;
  for (auto& it : items)
    if (!it.path.empty()) targets.push_back(check_output(it.path));
  std::vector<Temp> temps(targets.size());
  auto producer = [](const std::string& content) {
    return [&content](const Sink& sink) { sink(content.data(), content.size()); };
  };
  size_t k = 0;
  for (auto& it : items) {
    if (it.path.empty()) continue;
    if (targets[k].kind != OutputKind::through) prepare_temp(temps[k], targets[k], producer(it.content));
    ++k;
  }
  k = 0;
  for (auto& it : items) {
    if (it.path.empty()) continue;
    if (targets[k].kind == OutputKind::through) write_through(targets[k], producer(it.content));
    ++k;
  }
  for (k = 0; k < targets.size(); ++k)
    if (targets[k].kind != OutputKind::through)
      if (int err = temps[k].commit(targets[k].resolved)) refuse(targets[k].path, errtext(err));
}

bool write_stdout(const std::string& text) {
  std::fflush(stdout);
  int err = write_all(STDOUT_FILENO, text.data(), text.size());
  if (err == EPIPE) return false;
  if (err) throw UsageError("cannot write to standard output: " + errtext(err));
  return true;
}

std::string clipped(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  const size_t keep = max / 2;
  return s.substr(0, keep) + "...[" + std::to_string(s.size() - 2 * keep) + " bytes cut]..." +
         s.substr(s.size() - keep);
}

}  // namespace accsum::cli

// ---- the commands' --json / --out pair (declared in app/commands.hpp) ----
#include "app/commands.hpp"
#include "core/frame/plugins.hpp"

namespace accsum::cli {

void check_outputs(const OutArgs& o, const std::vector<NamedPath>& inputs) {
  std::vector<NamedPath> read = inputs;  // every loaded plugin is read too: no output may replace it
  for (auto& algo : plugins::loaded()) read.push_back({"--plugin", algo->path});
  check_distinct({{"--out", o.out}, {"--json", o.json}}, read);
  if (!o.json.empty()) check_output(o.json);
  if (!o.out.empty()) check_output(o.out);
}

}  // namespace accsum::cli
