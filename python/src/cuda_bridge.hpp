#pragma once
// accsum on CUDA arrays (DLPack: torch.Tensor, cupy.ndarray): the cuda backend's entries on the
// caller's device pointers, ordered after the work queued on the caller's stream. A build without
// the cuda backend binds the same names, which raise RuntimeError.
#include <nanobind/nanobind.h>

namespace accsum::python {

void bind_cuda(nanobind::module_& m);

}  // namespace accsum::python
