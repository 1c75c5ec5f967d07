#pragma once
// OpenCL C prelude: core/numerics/numerics.h as OpenCL C (kernels/numerics_prelude.cl, embedded
// by cmake/embed_opencl.cmake). One definition serves host C++, CUDA and OpenCL C.
namespace accsum::opencl {
inline const char* eft_prelude =
#include "opencl/numerics_prelude.cl.inc"
    ;
}  // namespace accsum::opencl
