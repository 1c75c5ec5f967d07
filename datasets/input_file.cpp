// The one reader of input files (datasets/npy_input.hpp): regular files only, .npy headers
// parsed once, text read whole within the memory available.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>

#include "base/limits.hpp"
#include "datasets/dataset.hpp"
#include "datasets/npy_input.hpp"

namespace accsum {
namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw UsageError("'" + path + "': " + what);
}

// Opens path for reading if it is a regular file. O_NONBLOCK: a FIFO without a writer is
// refused at once instead of blocking the open (it is cleared again for the reads).
FILE* open_regular(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(path, S_ISDIR(st.st_mode)    ? "is a directory, not a regular file"
               : S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file (inputs are read from regular files only)"
                                      : "not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  }
  return f;
}

// The value text after 'key': in the header dict (up to the next top-level comma or brace),
// trimmed. Quotes of either kind; brackets nest.
std::string dict_value(const std::string& path, const std::string& dict, const std::string& key) {
  size_t k = dict.find("'" + key + "'");
  if (k == std::string::npos) k = dict.find("\"" + key + "\"");
  if (k == std::string::npos) fail(path, "npy header has no '" + key + "'");
  size_t colon = dict.find(':', k + key.size() + 2);
  if (colon == std::string::npos) fail(path, "npy header is malformed near '" + key + "'");
  size_t b = colon + 1, e = b;
  int depth = 0;
  char quote = 0;
  for (; e < dict.size(); ++e) {
    char ch = dict[e];
    if (quote) {
      if (ch == quote) quote = 0;
      continue;
    }
    if (ch == '\'' || ch == '"') quote = ch;
    if (ch == '(' || ch == '[') ++depth;
    if (ch == ')' || ch == ']') --depth;
    if (depth < 0 || (depth == 0 && (ch == ',' || ch == '}'))) break;
  }
  if (quote || depth != 0 || e >= dict.size()) fail(path, "npy header is malformed near '" + key + "'");
  std::string v = dict.substr(b, e - b);
  auto notspace = [](unsigned char ch) { return !std::isspace(ch); };
  v.erase(v.begin(), std::find_if(v.begin(), v.end(), notspace));
  v.erase(std::find_if(v.rbegin(), v.rend(), notspace).base(), v.end());
  return v;
}

NpyHeader parse_dict(const std::string& path, const std::string& dict) {
  NpyHeader h;
  std::string descr = dict_value(path, dict, "descr");
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') || descr.back() != descr.front())
    fail(path, "npy dtype " + descr + " is not a simple dtype (structured arrays are not supported)");
  h.descr = descr.substr(1, descr.size() - 2);
  if (h.descr.size() >= 2 && h.descr[0] == '=') h.descr[0] = '<';  // native: this host is little-endian
  if (h.descr.size() >= 3 && (h.descr[0] == '<' || h.descr[0] == '>' || h.descr[0] == '|')) {
    h.kind = h.descr[1];
    unsigned size = 0;
    auto [end, ec] = std::from_chars(h.descr.data() + 2, h.descr.data() + h.descr.size(), size);
    if (ec == std::errc() && end == h.descr.data() + h.descr.size() && size > 0 && size <= 64) h.itemsize = size;
  }
  std::string fo = dict_value(path, dict, "fortran_order");
  if (fo == "True")
    h.fortran_order = true;
  else if (fo != "False")
    fail(path, "npy fortran_order is '" + fo + "', expected True or False");
  std::string shape = dict_value(path, dict, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    fail(path, "npy shape '" + shape + "' is not a tuple");
  const char* p = shape.c_str() + 1;
  const char* end = shape.c_str() + shape.size() - 1;
  h.count = 1;
  while (p < end) {
    while (p < end && (std::isspace(static_cast<unsigned char>(*p)) || *p == ',')) ++p;
    if (p >= end) break;
    int64_t dim = 0;
    auto [q, ec] = std::from_chars(p, end, dim);
    if (ec != std::errc() || dim < 0) fail(path, "npy shape '" + shape + "' is not a tuple of sizes");
    h.shape.push_back(dim);
    h.count = sat_mul(h.count, static_cast<uint64_t>(dim));
    p = q;
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p < end && *p != ',') fail(path, "npy shape '" + shape + "' is not a tuple of sizes");
  }
  // Python's "(2)" is the number 2: a tuple of one size is written "(2,)".
  if (h.shape.size() == 1 && shape.find(',') == std::string::npos)
    fail(path, "npy shape '" + shape + "' is not a tuple (one size is written '(n,)')");
  return h;
}

// The preamble and the header dict text; `in` left after the header.
std::string read_dict(InFile& in) {
  const std::string& path = in.path;
  unsigned char pre[12] = {};
  if (in.size < 10) fail(path, "not a .npy file (bad magic)");
  in.read(pre, 10);
  if (std::memcmp(pre, kNpyMagic, 6) != 0) fail(path, "not a .npy file (bad magic)");
  const int major = pre[6], minor = pre[7];
  uint64_t header_len, prefix;
  if (major == 1) {
    header_len = pre[8] | static_cast<uint64_t>(pre[9]) << 8;
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (in.size < 12) fail(path, "truncated npy header");
    in.read(pre + 10, 2);
    header_len = 0;
    for (int b = 3; b >= 0; --b) header_len = header_len << 8 | pre[8 + b];
    prefix = 12;
  } else {
    fail(path, "npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " is not supported (1.0, 2.0 and 3.0 are)");
  }
  if (header_len > kNpyMaxHeaderBytes)
    fail(path, "npy header of " + std::to_string(header_len) + " bytes is longer than numpy's limit of " +
                   std::to_string(kNpyMaxHeaderBytes) + " bytes");
  if (in.size < prefix + header_len) fail(path, "truncated npy header");
  std::string dict(header_len, '\0');
  in.read(dict.data(), header_len);
  return dict;
}

}  // namespace

void require_npy_data(const InFile& in, const NpyHeader& h) {
  if (h.itemsize == 0) fail(in.path, "npy dtype '" + h.descr + "' has no item size");
  const uint64_t need = sat_mul(h.count, h.itemsize), have = in.remaining();
  if (need > have)
    fail(in.path, "truncated: shape " + npy_shape_text(h.shape) + " needs " + byte_count_text(need) +
                      " of data, the file has " + std::to_string(have));
  if (need < have)
    fail(in.path, std::to_string(have - need) + " bytes follow the data of shape " + npy_shape_text(h.shape));
}

uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

std::string byte_count_text(uint64_t bytes) {
  if (bytes == std::numeric_limits<uint64_t>::max()) return "more than 2^64 bytes";
  return std::to_string(bytes) + " bytes";
}

std::string npy_shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {
// The files input_memory_bytes judged, kept open for the rest of the process with the size they
// had: a later read of the same path reads the judged file through a copy of its descriptor.
struct Judged {
  int fd;
  uint64_t size;
};
std::map<std::string, Judged>& judged_files() {
  static std::map<std::string, Judged> files;
  return files;
}

// A stream over the judged file of path, from its start; nullptr when path was not judged.
FILE* reopen_judged(const std::string& path, uint64_t* size) {
  auto it = judged_files().find(path);
  if (it == judged_files().end()) return nullptr;
  const int fd = ::fcntl(it->second.fd, F_DUPFD_CLOEXEC, 0);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
    if (fd >= 0) ::close(fd);
    fail(path, std::string("cannot read: ") + std::strerror(errno));
  }
  *size = static_cast<uint64_t>(st.st_size);
  if (*size != it->second.size) {
    ::close(fd);
    fail(path, "changed size since its memory was checked (" + std::to_string(it->second.size) + " bytes then, " +
                   std::to_string(*size) + " now)");
  }
  FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  }
  return f;
}
}  // namespace

InFile::InFile(const std::string& p) : path(p) {
  f = reopen_judged(p, &size);
  if (f) return;
  f = open_regular(p);
  struct stat st;
  ::fstat(::fileno(f), &st);
  size = static_cast<uint64_t>(st.st_size);
}

InFile::~InFile() { std::fclose(f); }

void InFile::read(void* dst, size_t bytes) {
  if (bytes > 0 && std::fread(dst, 1, bytes, f) != bytes) fail(path, "read error (truncated file?)");
}

uint64_t InFile::remaining() const {
  const long pos = std::ftell(f);
  return pos < 0 || static_cast<uint64_t>(pos) > size ? 0 : size - static_cast<uint64_t>(pos);
}

std::vector<std::string> input_paths(const std::string& spec) {
  struct stat st;
  if (spec.find(',') == std::string::npos || ::stat(spec.c_str(), &st) == 0) return {spec};
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t e; (e = spec.find(',', b)) != std::string::npos; b = e + 1) out.push_back(spec.substr(b, e - b));
  out.push_back(spec.substr(b));
  return out;
}

double input_memory_bytes(const std::string& spec) {
  double total = 0;
  for (const std::string& path : input_paths(spec)) {
    // Judged on the opened file (its descriptor, not the path), which stays open for the read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st {};
    if (fd < 0) continue;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      continue;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    auto [it, fresh] = judged_files().insert({path, Judged{fd, static_cast<uint64_t>(st.st_size)}});
    if (!fresh) {  // judged before (another family's check): the file first judged stays the one read
      ::close(fd);
      st.st_size = static_cast<off_t>(it->second.size);
    }
    const std::string ext = file_extension(path);
    if (ext == ".npy")
      total += 8.0 * static_cast<double>(peek_npy_header(path).count);
    else if (ext == ".txt" || ext == ".csv")
      total += kTextBytesPerFileByte * static_cast<double>(st.st_size);
    else
      total += static_cast<double>(st.st_size);
  }
  return total;
}

NpyHeader read_npy_header(InFile& in) { return parse_dict(in.path, read_dict(in)); }

NpyHeader peek_npy_header(const std::string& path) {
  InFile in(path);
  return read_npy_header(in);
}

std::string read_text_input(const std::string& path) {
  InFile in(path);
  const double avail = memory_available_bytes();
  const uint64_t limit = avail > 0 ? static_cast<uint64_t>(0.9 * avail / kTextBytesPerFileByte) : uint64_t(1) << 34;
  auto too_big = [&] {
    fail(path, "text file larger than " + std::to_string(limit >> 20) +
                   " MiB cannot be read with the memory available (use .npy or raw binary)");
  };
  if (in.size > limit) too_big();
  std::string data;
  data.reserve(static_cast<size_t>(in.size));
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, in.f)) > 0) {
    data.append(buf, got);
    if (data.size() > limit) too_big();  // the file grew while being read
  }
  if (std::ferror(in.f)) fail(path, "read error");
  return data;
}

}  // namespace accsum
