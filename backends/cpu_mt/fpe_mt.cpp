// cpu-mt expansion arithmetic (the fpe family): the pairs are split among threads in static
// chunks. The data-parallel algorithms run several expansions at a time across SIMD lanes
// (backends/cpu_mt/fpe_simd.hpp), the sequential ones pair by pair with the serial definition of
// families/fpe/fpe_ops.hpp; either way the bits equal the cpu backend's.
#include <memory>
#include <string>

#include "families/fpe/fpe_entries.hpp"
#include "backends/cpu_mt/fpe_simd.hpp"
#include "core/frame/parallel.hpp"

namespace accsum {
namespace {

std::unique_ptr<Kernel> threaded(const Problem& p, const Params& prm, FpeBatchFn f, const char* what) {
  return std::make_unique<FpePairKernel>(p, f, what, threads_of(prm));
}

enum SimdOp { kSafe, kFast, kMul, kMulRenorm };

template <int R>
FpeBatchFn simd_op(SimdOp op) {
  using namespace fpe_simd;
  switch (op) {
    case kSafe:
      return batch<R, add_safe<R>>;
    case kFast:
      return batch<R, add_fast<R>>;
    case kMul:
      return batch<R, mul_plain<R>>;
    case kMulRenorm:
      break;
  }
  return batch<R, mul_renorm<R>>;
}

FpeBatchFn simd_for(int R, SimdOp op) {
  switch (R) {
    case 2:
      return simd_op<2>(op);
    case 4:
      return simd_op<4>(op);
    case 8:
      return simd_op<8>(op);
    case 16:
      return simd_op<16>(op);
    case 32:
      return simd_op<32>(op);
  }
  throw UsageError("R = " + std::to_string(R) + " is not one of 2, 4, 8, 16, 32");
}

AlgoEntry mt(AlgoEntry e) {
  e.params.push_back(threads_param());
  return e.promises_reproducible().shapes(thread_variants);
}

Registrar reg_safe(mt(fpe_entry_add_safe("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, simd_for(fpe_r_of(p), kSafe), "sum");
}));
Registrar reg_fast(mt(fpe_entry_add_fast("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, simd_for(fpe_r_of(p), kFast), "sum");
}));
Registrar reg_mul(mt(fpe_entry_mul("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, simd_for(fpe_r_of(p), param_int(prm, "renormalize") ? kMulRenorm : kMul), "product");
}));
Registrar reg_seq_add(mt(fpe_entry_seq_add("cpu-mt")).baseline().maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, fpe_batch_for<fpe::seq_add>(fpe_r_of(p)), "sum");
}));
Registrar reg_seq_mul(mt(fpe_entry_seq_mul("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, fpe_batch_for<fpe::seq_mul>(fpe_r_of(p)), "product");
}));

}  // namespace
}  // namespace accsum
