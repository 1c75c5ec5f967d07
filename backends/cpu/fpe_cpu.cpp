// The cpu backend's expansion arithmetic (the fpe family): each kernel applies the serial
// definition of families/fpe/fpe_ops.hpp to every pair, and each entry states its proven bound and domain
// (Collange, Joldes, Muller, Popescu, "Parallel floating-point expansions for extended-precision
// GPU computations", ASAP 2016). QD's dd_real / qd_real (Hida, Li, Bailey, "Algorithms for
// quad-double precision floating point arithmetic", ARITH-15 2001) are the R = 2 and 4 baselines.
#include <cstdlib>
#include <memory>
#include <string>

#include "families/fpe/fpe_entries.hpp"

#ifdef ACCSUM_HAVE_QD
#include <qd/dd_real.h>
#include <qd/qd_real.h>
#endif

namespace accsum {
namespace {

std::unique_ptr<Kernel> serial(const Problem& p, FpeBatchFn f, const char* what) {
  return std::make_unique<FpePairKernel>(p, f, what, 1);
}

Registrar reg_safe(fpe_entry_add_safe("cpu").maker([](const Problem& p, const Params&) {
  return serial(p, fpe_batch_for<fpe::add_safe>(fpe_r_of(p)), "sum");
}));
Registrar reg_fast(fpe_entry_add_fast("cpu").maker([](const Problem& p, const Params&) {
  return serial(p, fpe_batch_for<fpe::add_fast>(fpe_r_of(p)), "sum");
}));
Registrar reg_mul(fpe_entry_mul("cpu").maker([](const Problem& p, const Params& prm) {
  const int R = fpe_r_of(p);
  return serial(p, param_int(prm, "renormalize") ? fpe_batch_for<fpe_mul_renorm>(R) : fpe_batch_for<fpe_mul_plain>(R),
                "product");
}));
Registrar reg_seq_add(fpe_entry_seq_add("cpu").baseline().maker([](const Problem& p, const Params&) {
  return serial(p, fpe_batch_for<fpe::seq_add>(fpe_r_of(p)), "sum");
}));
Registrar reg_seq_mul(fpe_entry_seq_mul("cpu").maker([](const Problem& p, const Params&) {
  return serial(p, fpe_batch_for<fpe::seq_mul>(fpe_r_of(p)), "product");
}));

#ifdef ACCSUM_HAVE_QD
// QD on one pair: the expansion's R terms are the dd_real / qd_real components (QD keeps them
// nonoverlapping, most significant first: the same layout).
void qd_add2(const double* x, const double* y, double* s, int) {
  dd_real r = dd_real(x[0], x[1]) + dd_real(y[0], y[1]);
  s[0] = r.x[0];
  s[1] = r.x[1];
}
void qd_mul2(const double* x, const double* y, double* s, int) {
  dd_real r = dd_real(x[0], x[1]) * dd_real(y[0], y[1]);
  s[0] = r.x[0];
  s[1] = r.x[1];
}
void qd_add4(const double* x, const double* y, double* s, int) {
  qd_real r = qd_real(x[0], x[1], x[2], x[3]) + qd_real(y[0], y[1], y[2], y[3]);
  for (int i = 0; i < 4; ++i) s[i] = r.x[i];
}
void qd_mul4(const double* x, const double* y, double* s, int) {
  qd_real r = qd_real(x[0], x[1], x[2], x[3]) * qd_real(y[0], y[1], y[2], y[3]);
  for (int i = 0; i < 4; ++i) s[i] = r.x[i];
}

// R >= 8: QD has no longer type. qd_real on the leading four terms of each input, the result's
// other terms zero: what QD can deliver at that R (its error shows in the metrics; the paper's
// tables mark these cells "precision not supported").
template <void (*F4)(const double*, const double*, double*, int)>
void qd_leading4(const double* x, const double* y, double* s, int R) {
  F4(x, y, s, 4);
  for (int i = 4; i < R; ++i) s[i] = 0.0;
}

template <void (*F2)(const double*, const double*, double*, int),
          void (*F4)(const double*, const double*, double*, int)>
FpeBatchFn qd_pick(int R) {
  if (R == 2) return fpe_batch<2, F2>;
  if (R == 4) return fpe_batch<4, F4>;
  return fpe_batch_for<qd_leading4<F4>>(R);
}

Registrar reg_qd_add(fpe_entry_qd_add("cpu", "the QD library").maker([](const Problem& p, const Params&) {
  return serial(p, qd_pick<qd_add2, qd_add4>(fpe_r_of(p)), "sum");
}));
Registrar reg_qd_mul(fpe_entry_qd_mul("cpu", "the QD library").maker([](const Problem& p, const Params&) {
  return serial(p, qd_pick<qd_mul2, qd_mul4>(fpe_r_of(p)), "product");
}));
#endif

}  // namespace
}  // namespace accsum
