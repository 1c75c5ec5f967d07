// libFuzzer target: the gemm family's reader of two .npy matrices (datasets/gemm_data.cpp
// read_gemm_npy), through the one .npy reader (datasets/npy_input.hpp). The first two bytes
// give the length of A's file; the rest is B's. Only UsageError may come out.
#include "datasets/gemm_data.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string a = accsum_fuzz::temp_path("-A.npy"), b = accsum_fuzz::temp_path("-B.npy");
  size_t split = size >= 2 ? (data[0] | size_t(data[1]) << 8) : 0;
  if (size >= 2) data += 2, size -= 2;
  if (split > size) split = size;
  accsum_fuzz::write_file(a, data, split);
  accsum_fuzz::write_file(b, data + split, size - split);
  try {
    accsum::Dataset d = accsum::read_gemm_npy(a + "," + b);
    const size_t m = static_cast<size_t>(d.rows), n = static_cast<size_t>(d.cols), k = static_cast<size_t>(d.inner);
    if (d.a.size() != m * k || d.b.size() != k * n || d.c.size() != m * n) std::abort();
  } catch (const accsum::UsageError&) {
  }
  return 0;
}
