// Dataset files: .npy (NumPy format 1.0/2.0; '<f8' or '<f4', C order), raw little-endian
// float64 (.bin, .raw) and text (.txt, .csv). Every malformed input is a UsageError naming the
// file and what is wrong; writes go to a temporary file in the same directory, then rename.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "datasets/dataset.hpp"
#include "datasets/npy_input.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "file I/O assumes a little-endian host");

namespace accsum {
namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw UsageError("'" + path + "': " + what);
}

Dataset read_npy(const std::string& path, const std::string& family, bool with_y) {
  InFile in(path);
  const NpyHeader h = read_npy_header(in);  // datasets/npy_input.hpp: the one .npy reader
  const size_t itemsize = h.itemsize;
  if (h.descr != "<f8" && h.descr != "<f4") {
    if (h.descr.size() >= 2 && h.descr[0] == '>')
      fail(path, "dtype '" + h.descr + "' is big-endian; only little-endian '<f8' and '<f4' are supported");
    if (h.kind == 'f')
      fail(path, "float dtype '" + h.descr + "' is not supported (use float64 '<f8' or float32 '<f4')");
    fail(path, "dtype '" + h.descr + "' is not a float type (use float64 '<f8' or float32 '<f4')");
  }
  if (h.fortran_order) fail(path, "fortran_order is True; only C-order arrays are supported");

  int64_t n = 0;
  const auto& s = h.shape;
  if (with_y) {
    if (s.size() != 2 || s[0] != 2)
      fail(path, "shape " + npy_shape_text(s) + " is not a " + family + " dataset; expected (2, n) (row 0 x, row 1 y)");
    n = s[1];
  } else {
    if (s.size() == 1)
      n = s[0];
    else if (s.size() == 2 && (s[0] == 1 || s[1] == 1))
      n = s[0] * s[1];
    else
      fail(path, "shape " + npy_shape_text(s) + " is not a " + family + " dataset; expected (n,), (1, n) or (n, 1)");
  }
  if (n <= 0) fail(path, "holds no data (shape " + npy_shape_text(s) + ")");
  require_npy_data(in, h);
  Dataset d;
  d.family = family;
  d.n = n;
  auto fill = [&](std::vector<double>& dst) {
    dst.resize(n);
    if (itemsize == 8) {
      in.read(dst.data(), static_cast<size_t>(n) * 8);
      return;
    }
    std::vector<float> block;
    for (int64_t b = 0; b < n; b += 1 << 16) {
      int64_t e = std::min<int64_t>(n, b + (1 << 16));
      block.resize(e - b);
      in.read(block.data(), block.size() * 4);
      std::copy(block.begin(), block.end(), dst.begin() + b);  // exact widening
    }
  };
  fill(d.x);
  if (with_y) fill(d.y);
  return d;
}

Dataset read_raw(const std::string& path, const std::string& family, bool with_y) {
  InFile in(path);
  if (in.size % 8 != 0)
    fail(path, "size " + std::to_string(in.size) + " bytes is not a multiple of 8 (raw files hold float64)");
  const int64_t count = static_cast<int64_t>(in.size / 8);
  if (count == 0) fail(path, "holds no data");
  if (with_y && count % 2 != 0)
    fail(path, "holds " + std::to_string(count) + " doubles; a " + family + " dataset needs an even count (x then y)");
  Dataset d;
  d.family = family;
  d.n = with_y ? count / 2 : count;
  d.x.resize(d.n);
  in.read(d.x.data(), static_cast<size_t>(d.n) * 8);
  if (with_y) {
    d.y.resize(d.n);
    in.read(d.y.data(), static_cast<size_t>(d.n) * 8);
  }
  return d;
}

// Text: numbers (decimal, hex floats, nan, inf) separated by whitespace, commas or newlines;
// lines starting with '#' are comments. With y, every line holds exactly two numbers (x y).
// Numbers beyond the double range (1e400) are errors; underflow rounds as strtod does.
Dataset read_text(const std::string& path, const std::string& family, bool with_y) {
  const std::string data = read_text_input(path);  // datasets/npy_input.hpp
  Dataset d;
  d.family = family;
  const bool dot = with_y;
  for_each_line(data, [&](std::string& line, int64_t line_no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const char* p = line.c_str();
    const char* end = p + line.size();
    auto skip_space = [&] {
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
    };
    skip_space();
    if (p == end || *p == '#') return;
    int numbers = 0;
    double row[2] = {0, 0};
    for (;;) {
      if (*p == ',') fail(path, "line " + std::to_string(line_no) + ": empty field");
      char* q = nullptr;
      errno = 0;
      double v = std::strtod(p, &q);
      if (q == p) {
        std::string token(p, std::find_if(p, end, [](char ch) { return ch == ' ' || ch == '\t' || ch == ','; }));
        fail(path, "line " + std::to_string(line_no) + ": '" + token + "' is not a number");
      }
      if (q < end && *q != ' ' && *q != '\t' && *q != ',')
        fail(path, "line " + std::to_string(line_no) + ": trailing garbage '" +
                       std::string(static_cast<const char*>(q), end) + "'");
      // A decimal (or hex) number beyond the double range is an error, not a silent +-inf; the
      // tokens inf and nan stay accepted, and underflow rounds (to a subnormal or zero) as strtod does.
      if (errno == ERANGE && std::isinf(v))
        fail(path, "line " + std::to_string(line_no) + ": '" + std::string(p, static_cast<const char*>(q)) +
                       "' is outside the double range (|x| > 1.8e308; write inf for an infinity)");
      if (dot) {
        if (numbers < 2) row[numbers] = v;
      } else {
        d.x.push_back(v);
      }
      ++numbers;
      p = q;
      skip_space();
      if (p == end) break;
      if (*p == ',') {
        ++p;
        skip_space();
        if (p == end) fail(path, "line " + std::to_string(line_no) + ": empty field after ','");
      }
    }
    if (dot) {
      if (numbers != 2)
        fail(path, "line " + std::to_string(line_no) + " has " + std::to_string(numbers) + " numbers; a " + family +
                       " dataset needs two columns (x y)");
      d.x.push_back(row[0]);
      d.y.push_back(row[1]);
    }
  });
  d.n = static_cast<int64_t>(d.x.size());
  if (d.n == 0) fail(path, "holds no numbers");
  return d;
}

// ---- writing ----

// Shortest text that reads back to exactly v ("nan", "inf", "-inf" for specials).
void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::atomic<unsigned> temp_counter{0};

}  // namespace

std::string npy_header(const std::string& descr, const std::vector<int64_t>& shape, bool fortran_order) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran_order ? "True" : "False") +
                     ", 'shape': " + npy_shape_text(shape) + ", }";
  // Version 1.0: magic (6) + version (2) + length (2) + dict + padding + '\n', total a multiple of 64.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out(kNpyMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

FileFormat format_from_path(const std::string& path) {
  const std::string ext = file_extension(path);
  if (ext == ".npy") return FileFormat::npy;
  if (ext == ".bin" || ext == ".raw") return FileFormat::raw;
  if (ext == ".txt" || ext == ".csv") return FileFormat::text;
  throw UsageError("'" + path +
                   "': " + (ext.empty() ? std::string("no file extension") : "unknown file type '" + ext + "'") +
                   " (use .npy, .bin, .raw, .txt or .csv)");
}

Dataset read_dataset(const std::string& path, const std::string& family, bool with_y) {
  Dataset d;
  switch (format_from_path(path)) {
    case FileFormat::npy:
      d = read_npy(path, family, with_y);
      break;
    case FileFormat::raw:
      d = read_raw(path, family, with_y);
      break;
    case FileFormat::text:
      d = read_text(path, family, with_y);
      break;
  }
  d.generator = "file";
  d.source = path;
  d.id = next_dataset_id();
  return d;
}

void encode_dataset(const std::string& path, const Dataset& d, const std::string& dtype,
                    const std::function<void(const void*, size_t)>& emit) {
  const FileFormat fmt = format_from_path(path);
  const bool dot = !d.y.empty();
  if (d.n <= 0 || d.x.size() != static_cast<size_t>(d.n) || (dot && d.y.size() != static_cast<size_t>(d.n)))
    throw UsageError("'" + path + "': dataset has no data or inconsistent sizes");
  bool f4;
  if (dtype == "f8" || dtype == "<f8" || dtype == "float64")
    f4 = false;
  else if (dtype == "f4" || dtype == "<f4" || dtype == "float32")
    f4 = true;
  else
    throw UsageError("unknown dtype '" + dtype + "' (valid: f8, f4)");
  if (f4 && fmt != FileFormat::npy) throw UsageError("'" + path + "': dtype f4 is only available for .npy files");

  if (fmt == FileFormat::npy) {
    std::vector<int64_t> shape = dot ? std::vector<int64_t>{2, d.n} : std::vector<int64_t>{d.n};
    std::string head = npy_header(f4 ? "<f4" : "<f8", shape);
    emit(head.data(), head.size());
  }
  if (fmt == FileFormat::npy || fmt == FileFormat::raw) {
    auto put = [&](const std::vector<double>& v) {
      if (!f4) {
        emit(v.data(), v.size() * 8);
        return;
      }
      std::vector<float> block;
      for (size_t b = 0; b < v.size(); b += 1 << 16) {
        size_t e = std::min(v.size(), b + (1 << 16));
        block.assign(v.begin() + b, v.begin() + e);  // rounds to nearest (overflow to +-inf)
        emit(block.data(), block.size() * 4);
      }
    };
    put(d.x);
    if (dot) put(d.y);
  } else {
    const char sep = file_extension(path) == ".csv" ? ',' : ' ';
    std::string text;
    for (int64_t i = 0; i < d.n; ++i) {
      append_number(text, d.x[i]);
      if (dot) {
        text += sep;
        append_number(text, d.y[i]);
      }
      text += '\n';
      if (text.size() > (1 << 20)) {
        emit(text.data(), text.size());
        text.clear();
      }
    }
    emit(text.data(), text.size());
  }
}

void write_dataset(const std::string& path, const Dataset& d, const std::string& dtype) {
  format_from_path(path);
  // A fresh name, created exclusively: never a followed link, never someone else's file.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(temp_counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw UsageError("cannot write '" + path + "': " + std::strerror(errno));
  FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw UsageError("cannot write '" + path + "': " + std::strerror(errno));
  }
  bool ok = true;
  int err = 0;
  auto emit = [&](const void* bytes, size_t size) {
    if (ok && size > 0 && std::fwrite(bytes, 1, size, f) != size) ok = false, err = errno;
  };
  try {
    encode_dataset(path, d, dtype, emit);
  } catch (...) {
    std::fclose(f);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::fflush(f) != 0 && ok) ok = false, err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    std::remove(tmp.c_str());
    throw UsageError("cannot write '" + path + "': " + std::strerror(err));
  }
}

std::string file_extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

}  // namespace accsum
