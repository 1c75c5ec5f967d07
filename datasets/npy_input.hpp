#pragma once
// The one reader of input files, shared by every family (sum, dot, gemm, moddot): a family only
// says which dtypes and shapes it accepts. Every input is
//   * a regular file: opened without blocking, so a FIFO or a device is refused at once (never
//     a hang), a directory too;
//   * a .npy file (NumPy format 1.0, 2.0, 3.0): the header length is judged before the header
//     is read (numpy's own limit, below), the dict parsed once here, the element count and the
//     byte count computed with checked arithmetic, and the data length checked against them
//     before any data is read;
//   * or a text file, read whole only when memory holds it (the same limit for every family).
// Everything malformed is a UsageError naming the file: one line, never a crash.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace accsum {

// numpy refuses .npy headers longer than 10 000 bytes unless told to trust the file
// (numpy.lib.format._MAX_HEADER_SIZE = 10000, the default max_header_size of numpy.load).
constexpr uint64_t kNpyMaxHeaderBytes = 10000;

struct InFile {
  std::string path;
  FILE* f = nullptr;
  uint64_t size = 0;
  explicit InFile(const std::string& p);  // UsageError unless p is a readable regular file
  ~InFile();
  InFile(const InFile&) = delete;
  InFile& operator=(const InFile&) = delete;
  void read(void* dst, size_t bytes);  // UsageError when the file is shorter
  uint64_t remaining() const;          // bytes after the current position
};

// A parsed .npy header. descr is as written with a native '=' read as little-endian '<'.
struct NpyHeader {
  std::string descr;      // "<f8", "<f4", "<i8", "<u8", ...
  char kind = 0;          // 'f', 'i', 'u', ... (descr[1])
  unsigned itemsize = 0;  // descr's digits (8 for "<f8"); 0 when descr is not a simple dtype
  bool fortran_order = false;
  std::vector<int64_t> shape;
  uint64_t count = 0;  // the product of shape
};

// Reads the preamble and header of `in` (at its start), leaving `in` at the first data byte.
// Refuses a header longer than kNpyMaxHeaderBytes (before reading it) and a malformed or
// truncated header. The family then judges dtype, order and shape, and calls require_npy_data.
NpyHeader read_npy_header(InFile& in);
// Refuses a data length other than count * itemsize (computed saturating: a shape whose bytes
// exceed 2^64 says so) and a dtype without an item size; `in` stays at the first data byte.
void require_npy_data(const InFile& in, const NpyHeader& h);
// The header of the .npy file at path, without reading its data (memory pre-checks).
NpyHeader peek_npy_header(const std::string& path);

// "(2, 5)", "(7,)".
std::string npy_shape_text(const std::vector<int64_t>& shape);
// The preamble and header of a version 1.0 .npy file (a multiple of 64 bytes); fortran_order:
// the data that follow are column-major.
std::string npy_header(const std::string& descr, const std::vector<int64_t>& shape, bool fortran_order = false);

// The whole of a text input, refused when the file is so large that reading it and its numbers
// (kTextBytesPerFileByte bytes of memory per byte of text) would not fit in the memory available.
std::string read_text_input(const std::string& path);
// Memory a text file of `file_bytes` may take once read: the text and one 8-byte number per
// two characters ("1\n"), with the vectors' growth.
constexpr double kTextBytesPerFileByte = 13;

// Calls fn(line, line_no) on each line of text, numbered from 1, without its '\n'.
template <class Fn>
void for_each_line(const std::string& text, const Fn& fn) {
  int64_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    fn(line, ++line_no);
  }
}

// The files an --input names: "A.npy,B.npy" is two files (each element of the comma list),
// unless the whole text names an existing file (a name with a comma). Every family reads its
// files through this list, and the CLI protects every element of it from being overwritten.
std::vector<std::string> input_paths(const std::string& spec);

// Host memory the files of an --input will take once read, judged from their sizes and .npy
// headers without reading their data: every element held as an 8-byte value (float32 widened,
// or a float32 matrix and its transposed copy), a text file kTextBytesPerFileByte per byte.
// Files that cannot be opened count 0 (their reader refuses them). Each file is judged by the
// size of its opened descriptor and stays open: every later read of that path (InFile) reads the
// file judged, never one swapped in under the name since, and refuses it if its size changed.
double input_memory_bytes(const std::string& spec);

// a * b and a + b, saturating at UINT64_MAX (sizes from untrusted headers).
uint64_t sat_mul(uint64_t a, uint64_t b);
uint64_t sat_add(uint64_t a, uint64_t b);
// "12345 bytes", or "more than 2^64 bytes" for a saturated count.
std::string byte_count_text(uint64_t bytes);

}  // namespace accsum
