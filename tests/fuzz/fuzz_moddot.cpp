// libFuzzer target: the moddot family's residue reader (datasets/residues.cpp read_residues),
// .npy through the one .npy reader and text through the one text reader (datasets/npy_input.hpp).
// The first byte picks the format (even: .npy, odd: .txt). Only UsageError may come out, and
// what is read must be residues in [0, p).
#include <cmath>

#include "datasets/residues.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string npy = accsum_fuzz::temp_path("-r.npy"), txt = accsum_fuzz::temp_path("-r.txt");
  const bool text = size > 0 && (data[0] & 1);
  if (size > 0) ++data, --size;
  const std::string& path = text ? txt : npy;
  accsum_fuzz::write_file(path, data, size);
  try {
    accsum::Dataset d = accsum::read_residues(path);
    const double p = static_cast<double>(accsum::prime_of(d.data));
    if (d.x.size() != static_cast<size_t>(d.n) || d.y.size() != static_cast<size_t>(d.n)) std::abort();
    for (int64_t i = 0; i < d.n; ++i)
      if (!(d.x[i] >= 0 && d.x[i] < p && d.y[i] >= 0 && d.y[i] < p) || d.x[i] != std::floor(d.x[i])) std::abort();
  } catch (const accsum::UsageError&) {
  }
  return 0;
}
