// libFuzzer target: the gemm and dgemm families' reader of two .npy matrices (datasets/gemm_data.cpp
// read_gemm_npy<float>, <double>), through the one .npy reader (datasets/npy_input.hpp). The first
// two bytes give the length of A's file; the rest is B's. Only UsageError may come out.
#include "datasets/gemm_data.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string a = accsum_fuzz::temp_path("-A.npy"), b = accsum_fuzz::temp_path("-B.npy");
  size_t split = size >= 2 ? (data[0] | size_t(data[1]) << 8) : 0;
  if (size >= 2) data += 2, size -= 2;
  if (split > size) split = size;
  accsum_fuzz::write_file(a, data, split);
  accsum_fuzz::write_file(b, data + split, size - split);
  const auto sizes_match = [](const auto& x, const auto& y, const auto& z, const accsum::Dataset& d) {
    const size_t m = static_cast<size_t>(d.rows), n = static_cast<size_t>(d.cols), k = static_cast<size_t>(d.inner);
    return x.size() == m * k && y.size() == k * n && z.size() == m * n;
  };
  try {
    const accsum::Dataset d = accsum::read_gemm_npy<float>(a + "," + b);
    if (!sizes_match(d.a, d.b, d.c, d)) std::abort();
  } catch (const accsum::UsageError&) {
  }
  try {
    const accsum::Dataset d = accsum::read_gemm_npy<double>(a + "," + b);
    if (!sizes_match(d.a64, d.b64, d.c64, d)) std::abort();
  } catch (const accsum::UsageError&) {
  }
  return 0;
}
