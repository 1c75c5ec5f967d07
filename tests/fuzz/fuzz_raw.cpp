// libFuzzer target: the raw reader of datasets/files.cpp (see fuzz_file.hpp).
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return accsum_fuzz::read_as(data, size, ".bin");
}
