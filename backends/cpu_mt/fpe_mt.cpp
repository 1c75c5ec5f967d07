// cpu-mt expansion arithmetic (the fpe family): the pairs are split among threads in static
// chunks, each pair computed by the serial definition of core/fpe_ops.hpp (whose lane loops the
// compiler unrolls and vectorises for a fixed R), so the bits equal the cpu backend's.
#include <memory>

#include "backends/cpu/fpe_entries.hpp"
#include "backends/cpu_mt/parallel.hpp"

namespace accsum {
namespace {

using cpu_mt::threads_of;
using cpu_mt::threads_param;
using cpu_mt::thread_variants;

std::unique_ptr<Kernel> threaded(const Problem& p, const Params& prm, FpeBatchFn f, const char* what) {
  return std::make_unique<FpePairKernel>(p, f, what, threads_of(prm));
}

AlgoEntry mt(AlgoEntry e) {
  e.params.push_back(threads_param());
  return e.promises_reproducible().shapes(thread_variants);
}

Registrar reg_safe(mt(fpe_entry_add_safe("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, fpe_batch_for<fpe::add_safe>(fpe_r_of(p)), "sum");
}));
Registrar reg_fast(mt(fpe_entry_add_fast("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, fpe_batch_for<fpe::add_fast>(fpe_r_of(p)), "sum");
}));
Registrar reg_mul(mt(fpe_entry_mul("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  const int R = fpe_r_of(p);
  return threaded(p, prm, param_int(prm, "renormalize") ? fpe_batch_for<fpe_mul_renorm>(R) : fpe_batch_for<fpe_mul_plain>(R),
                  "product");
}));
Registrar reg_seq_add(mt(fpe_entry_seq_add("cpu-mt")).baseline().maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, fpe_batch_for<fpe::seq_add>(fpe_r_of(p)), "sum");
}));
Registrar reg_seq_mul(mt(fpe_entry_seq_mul("cpu-mt")).maker([](const Problem& p, const Params& prm) {
  return threaded(p, prm, fpe_batch_for<fpe::seq_mul>(fpe_r_of(p)), "product");
}));

}  // namespace
}  // namespace accsum
