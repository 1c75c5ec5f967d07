// The one reader of JSON documents (policy: app/report_reader.hpp).
#include "app/report_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "app/memcheck.hpp"
#include "app/output.hpp"
#include "base/vocabulary.hpp"

namespace accsum::cli {

using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw UsageError(printable(path) + ": " + what);
}

// The deepest nesting of arrays and objects in text, stopping as soon as it passes `limit`. Exact
// for valid JSON (brackets inside strings do not count) and for the valid prefix the parser reads
// of invalid JSON, so a document the scan accepts never gives the parser a deeper tree.
int nesting_depth(const std::string& text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size() && deepest <= limit; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// The library's message without its "[json.exception.parse_error.101] " prefix.
std::string library_message(const json::exception& e) {
  const std::string what = e.what();
  const auto cut = what.find("] ");
  return cut == std::string::npos ? what : what.substr(cut + 2);
}

// Reads the whole of fd, refusing more than `size` bytes (the file grew after fstat).
std::string read_all(int fd, uint64_t size, const std::string& path) {
  std::string text(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) bad(path, std::string("read error: ") + std::strerror(errno));
    if (r == 0) bad(path, "the file shrank while it was read");
    got += static_cast<size_t>(r);
  }
  char extra;
  ssize_t r;
  while ((r = ::read(fd, &extra, 1)) < 0 && errno == EINTR) {
  }
  if (r > 0) bad(path, "the file grew while it was read");
  return text;
}

// Closes the descriptor however the read ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

json parse_json_text(const std::string& text, const std::string& path) {
  // Checked before parsing: nlohmann::json's own depth hooks (the parser callback) cost time
  // quadratic in an array's length, and a deep tree is never built.
  if (nesting_depth(text, kJsonMaxDepth) > kJsonMaxDepth)
    bad(path, "arrays and objects nested deeper than " + std::to_string(kJsonMaxDepth) +
                  " levels (refused: no document accsum reads nests so deep)");
  try {
    return json::parse(text);
  } catch (const json::out_of_range& e) {  // 406: a number beyond the double range
    bad(path, "not valid JSON: " + library_message(e) + " (numbers must be within the double range)");
  } catch (const json::exception& e) {
    bad(path, "not valid JSON: " + library_message(e));
  }
}

json read_json_file(const std::string& path, uint64_t max_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) bad(path, std::string("cannot read: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) bad(path, std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) bad(path, "not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    bad(path, std::to_string(size) + " bytes is larger than the " + std::to_string(max_bytes) +
                  " bytes a JSON document may have (--max-size sets the limit)");
  const double need = kJsonMemoryPerByte * static_cast<double>(size), avail = available_memory_bytes();
  if (avail >= 0 && need > 0.9 * avail)
    bad(path, std::to_string(size) + " bytes of JSON need about " + std::to_string(static_cast<uint64_t>(need) >> 20) +
                  " MiB to parse, more than the memory available");
  ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
  return parse_json_text(read_all(f.fd, size, path), path);
}

}  // namespace accsum::cli
