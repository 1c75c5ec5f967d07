#pragma once
// Output files (--json, -o/--out of bench, verify and table, gen -o): what is written how.
//
//   missing name in an existing directory, or a regular file:
//       written to a fresh temporary file in the same directory (O_CREAT|O_EXCL|O_NOFOLLOW, a
//       random name, never a followed link), given the replaced file's mode (and owner, where
//       allowed), fsync'ed and renamed over the target: never half-written.
//   symbolic link: resolved; its final target is handled as above (the link stays a link);
//       a dangling link or a loop is refused.
//   write-protected regular file (no write permission bit, or not writable by this user):
//       refused unless --force (set_force_overwrite).
//   character device (/dev/null, a terminal) or FIFO: written through (no temporary file, no
//       truncation); a write error (ENOSPC on /dev/full, EPIPE) is one line and exit 2. A FIFO
//       is opened without blocking: with no reader for 2 s the write is refused (exit 2).
//   a file size limit (ulimit -f): SIGXFSZ is ignored, so EFBIG is a write error like ENOSPC.
//   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to the process's open
//       descriptor itself (its offset shared with the shell's redirection), never reopened.
//   directory, socket, block device: refused.
// Two outputs naming one file, or an output naming an input file, are refused (same device and
// inode, or the same absolute path for files that do not exist yet). Temporary files are
// tracked and removed by the SIGINT/SIGTERM/SIGHUP handlers, which then re-raise the signal.
#include <functional>
#include <string>
#include <vector>

#include "base/printable.hpp"  // printable, utf8_safe: every message and JSON string

namespace accsum::cli {

using accsum::printable;
using accsum::utf8_safe;

// Once, first thing in main: the signal handlers above, and SIGPIPE ignored (a closed stdout
// pipe is EPIPE, handled by write_stdout, and cannot kill the process before --json is written).
void install_signal_handlers();

// --force: write-protected regular files may be replaced.
void set_force_overwrite(bool force);

enum class OutputKind { create, replace, through };

struct OutputTarget {
  std::string path;      // as given
  std::string resolved;  // the file written or replaced (symbolic links resolved)
  OutputKind kind = OutputKind::create;
  int fd = -1;  // /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to the open descriptor
};

// Classifies path and checks that it can be written (a temporary file is created in the
// directory and removed); throws UsageError when it cannot or must not be written.
OutputTarget check_output(const std::string& path);

struct NamedPath {
  std::string option;  // "--json", "-o", "--input", ...
  std::string path;
};
// UsageError when two outputs are one file, or an output is one of the inputs. Empty paths
// are ignored. Character devices may be named by several outputs (/dev/null twice is harmless).
void check_distinct(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

using Sink = std::function<void(const void*, size_t)>;
// Writes one output; `produce` emits the bytes through the sink. UsageError on any error (the
// temporary file removed, the target untouched when it is a regular file).
void write_output(const std::string& path, const std::function<void(const Sink&)>& produce);

// Writes dir/name for a file the user named only the directory of (ACCSUM_OPENCL_DUMP): dir must
// be an existing directory; the file is a fresh temporary file renamed over the name, so whatever
// is there (a planted symbolic link included) is replaced and never followed. UsageError on any error.
void write_into_directory(const std::string& dir, const std::string& name, const std::string& content);

struct OutputItem {
  std::string path;  // empty: skipped
  std::string content;
};
// Several outputs together: regular targets are first written as temporaries, then the
// written-through targets, then every temporary renamed; on any error no regular target is
// replaced and every temporary is removed.
void write_outputs(const std::vector<OutputItem>& items);

// Writes to stdout. A reader that went away (EPIPE, e.g. `| head -1`) is not an error: returns
// false, nothing printed. Any other error is a UsageError.
bool write_stdout(const std::string& text);

// A message of at most max bytes: a longer one keeps its beginning and its end around
// "...[N bytes cut]..." (a 10 MB token echoed in an error is not a 10 MB line).
constexpr size_t kMessageMaxBytes = 1024;
std::string clipped(const std::string& s, size_t max = kMessageMaxBytes);

}  // namespace accsum::cli
