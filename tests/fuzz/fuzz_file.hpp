#pragma once
// Shared by the file-reader fuzz targets (npy, raw, text, gemm, moddot): the input is written to a temporary file with
// the reader's extension and read back with read_dataset, as `bench --input` does. The first byte picks the family
// (even: sum, odd: dot). The readers may only throw UsageError; anything else (another exception, a crash, a sanitizer
// report) is a bug the fuzzer reports.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "datasets/dataset.hpp"

namespace accsum_fuzz {

inline std::string temp_path(const char* ext) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/accsum-fuzz-" + std::to_string(::getpid()) + ext;
}

inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

inline int read_as(const uint8_t* data, size_t size, const char* ext) {
  static const std::string path = temp_path(ext);
  const bool with_y = size > 0 && (data[0] & 1);  // the dot family's layout, else the sum's
  if (size > 0) ++data, --size;
  write_file(path, data, size);
  try {
    accsum::Dataset d = accsum::read_dataset(path, with_y ? "dot" : "sum", with_y);
    // What a reader returns must be consistent.
    if (d.n <= 0 || d.x.size() != static_cast<size_t>(d.n)) std::abort();
    if (with_y && d.y.size() != static_cast<size_t>(d.n)) std::abort();
    if (!with_y && !d.y.empty()) std::abort();
  } catch (const accsum::UsageError&) {
  }
  return 0;
}

}  // namespace accsum_fuzz
