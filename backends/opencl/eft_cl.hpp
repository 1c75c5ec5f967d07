#pragma once
// OpenCL C prelude every accsum kernel source starts with: core/numerics/numerics.h itself (fp64 on,
// contraction off, the error-free transforms accsum_two_sum, accsum_two_prod_fma, ..., the
// superaccumulator's named constants, cut, carry propagation and rounding), embedded as a raw
// string by CMake (CMakeLists.txt: build/generated/core/numerics_h.inc). One definition serves
// host C++, CUDA and OpenCL C.
namespace accsum::opencl {
inline const char* eft_prelude =
#include "core/numerics_h.inc"
    ;
}  // namespace accsum::opencl
