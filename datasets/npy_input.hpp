#pragma once
// Reading the input files of every family the same way (datasets/files.cpp): a regular file
// only, opened without blocking (a FIFO or a device is refused at once), reads that fail on a
// short file; and the .npy preamble (versions 1.0 and 2.0) up to the header dict.
#include <cstdint>
#include <cstdio>
#include <string>

namespace accsum {

struct InFile {
  std::string path;
  FILE* f = nullptr;
  uint64_t size = 0;
  explicit InFile(const std::string& p);  // UsageError unless p is a readable regular file
  ~InFile();
  InFile(const InFile&) = delete;
  InFile& operator=(const InFile&) = delete;
  void read(void* dst, size_t bytes);  // UsageError when the file is shorter
  uint64_t remaining() const;           // bytes after the current position
};

// Reads the magic, version and header length of a .npy file from the start of `in` and returns
// the header dict text; `in` is left at the first data byte. UsageError for anything else.
std::string read_npy_dict(InFile& in);

}  // namespace accsum
