#pragma once
// The fpe family's registry entries, shared by the cpu, cpu-mt and cuda backends: summary,
// guarantee, parameters, proven bound with its citation and domain. Each backend adds its maker.
#include <string>

#include "families/fpe/family_fpe.hpp"
#include "families/fpe/fpe_ops.hpp"
#include "core/frame/registry.hpp"

namespace accsum {

inline void fpe_mul_plain(const double* x, const double* y, double* p, int R) { fpe::mul(x, y, p, R, false); }
inline void fpe_mul_renorm(const double* x, const double* y, double* p, int R) { fpe::mul(x, y, p, R, true); }

inline const std::string& fpe_paper() {
  static const std::string s =
      "Collange, Joldes, Muller, Popescu, Parallel floating-point expansions for extended-precision GPU "
      "computations, ASAP 2016";
  return s;
}

inline int fpe_r_of_facts(const ExactFacts& f) {
  auto it = f.family.find("R");
  return it == f.family.end() ? 2 : static_cast<int>(it->second);
}

inline AlgoEntry fpe_entry_add_safe(const std::string& backend) {
  return AlgoEntry("fpe", "fpe-add-safe", backend,
                   "data-parallel safe addition of R-term expansions (Algorithm 1), relative error ~2^(-50R-1)")
      .promises(Guarantee::bound)
      .within_domain(fpe_add_domain)
      .bounded_by([](const Params&, const ExactFacts& f) { return fpe_add_safe_bound(fpe_r_of_facts(f)); },
                  "relative to |x+y|, in units of 2^(-53R): 2^(3R-1)(1+2^-50), i.e. 2^(-Rp+3R-1)/(1-2^(1-p)) "
                  "(1+2^(1-p)), p = 53: " +
                      fpe_paper() + ", Prop. III.1 and the bound after it");
}

inline AlgoEntry fpe_entry_add_fast(const std::string& backend) {
  return AlgoEntry("fpe", "fpe-add-fast", backend,
                   "data-parallel fast addition (Fig. 5, our reading: lane-wise 2Sum + R-1 error shifts); no bound, "
                   "fails on cancellation");
}

inline AlgoEntry fpe_entry_mul(const std::string& backend) {
  return AlgoEntry("fpe", "fpe-mul", backend,
                   "data-parallel multiplication of R-term expansions (Algorithm 2), optional renormalisation")
      .with_params({ParamSpec{
          "renormalize", "renormalise the product (error-free VecSum + VecSumErrBranch)", true, 0, 1, {}, "0", true}})
      .promises(Guarantee::bound)
      .within_domain(fpe_mul_domain)
      .bounded_by(
          [](const Params&, const ExactFacts& f) { return fpe_mul_bound(fpe_r_of_facts(f)); },
          "relative to |x_0 y_0|, in units of 2^(-53R): 2^(-(p-1)R)(R-1)[1 + 2^(p-2)(1+2^-p) + (R^3-R)((R-1)!)^2]: " +
              fpe_paper() + ", Prop. IV.2 (the renormalisation is error-free)");
}

inline AlgoEntry fpe_entry_seq_add(const std::string& backend) {
  return AlgoEntry("fpe", "fpe-seq-add", backend,
                   "sequential addition, one expansion per thread: merge + VecSum renormalisation (CAMPARY style)");
}

inline AlgoEntry fpe_entry_seq_mul(const std::string& backend) {
  return AlgoEntry("fpe", "fpe-seq-mul", backend,
                   "sequential truncated product, one expansion per thread: 2MultFMA by order + renormalisation "
                   "(CAMPARY style)");
}

// QD's double-double (R = 2) and quad-double (R = 4) operations (Hida, Li, Bailey, ARITH-15 2001);
// for R >= 8 on the leading 4 terms, the others zero. No proven bound (the paper gives none).
inline AlgoEntry fpe_entry_qd_add(const std::string& backend, const std::string& how) {
  return AlgoEntry("fpe", "fpe-qd-add", backend,
                   "QD addition (" + how +
                       "): dd_real (R = 2) / qd_real (R = 4; R >= 8: on the leading 4 terms), "
                       "Hida-Li-Bailey 2001");
}

inline AlgoEntry fpe_entry_qd_mul(const std::string& backend, const std::string& how) {
  return AlgoEntry("fpe", "fpe-qd-mul", backend,
                   "QD multiplication (" + how +
                       "): dd_real (R = 2) / qd_real (R = 4; R >= 8: on the leading 4 "
                       "terms), Hida-Li-Bailey 2001");
}

}  // namespace accsum
