#pragma once
// The fpe family (its descriptor: families/fpe/fpe.cpp): what its algorithms share — the proven bounds and their
// domains, the expansion length of a problem, and a kernel that applies a per-pair operation.
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/frame/registry.hpp"

namespace accsum {

// p, the precision of binary64, as the bounds of Collange et al. 2016 write it.
constexpr int kP = 53;

const std::vector<std::string>& fpe_dist_names();

// Domains of the proven bounds ("" inside): ulp-nonoverlapping inputs with |x_i| <= 2^{-52i}|x_0|,
// no overflow; multiplication also needs the products x_i y_j (i+j <= R-1) above 2^-969.
std::string fpe_add_domain(const Params&, const ExactFacts& f);
std::string fpe_mul_domain(const Params&, const ExactFacts& f);
// Relative bounds in units of u^R = 2^(-53R) (so that R = 32 stays representable): the safe
// addition relative to |x + y|, the multiplication relative to |x_0 y_0|. These are what the
// entries' BoundFns return and what Metrics::bound shows for this family.
double fpe_add_safe_bound(int R);
double fpe_mul_bound(int R);

inline int fpe_r_of(const Problem& p) {
  auto it = p.data.find("R");
  if (it == p.data.end() && p.n == 0) return 2;  // no pairs: any R
  if (it == p.data.end()) throw UsageError("an fpe problem needs data R");
  return std::atoi(it->second.c_str());
}

// A batch of pairs: out_k = op(x_k, y_k) for k in [0, count), each of R terms.
using FpeBatchFn = void (*)(const double* x, const double* y, double* out, int64_t count);

// The batch of a per-pair operation F(x, y, out, R) with R fixed at compile time (so the lane
// loops of families/fpe/fpe_ops.hpp unroll).
template <int R, void (*F)(const double*, const double*, double*, int)>
void fpe_batch(const double* x, const double* y, double* out, int64_t count) {
  for (int64_t k = 0; k < count; ++k) F(x + k * R, y + k * R, out + k * R, R);
}

template <void (*F)(const double*, const double*, double*, int)>
FpeBatchFn fpe_batch_for(int R) {
  switch (R) {
    case 2:
      return fpe_batch<2, F>;
    case 4:
      return fpe_batch<4, F>;
    case 8:
      return fpe_batch<8, F>;
    case 16:
      return fpe_batch<16, F>;
    case 32:
      return fpe_batch<32, F>;
  }
  throw UsageError("R = " + std::to_string(R) + " is not one of 2, 4, 8, 16, 32");
}

// A host kernel that runs a batch function over all pairs on `threads` threads with static
// chunks (every pair's bits are those of the serial definition whatever the split).
class FpePairKernel : public Kernel {
 public:
  FpePairKernel(const Problem& p, FpeBatchFn op, std::string what, int threads = 1);
  void execute() override;
  Result result() override { return Result{out_, what_, {}}; }

 private:
  const double* x_;
  const double* y_;
  int64_t n_;
  int R_;
  FpeBatchFn op_;
  std::string what_;
  int threads_;
  std::vector<double> out_;
};

}  // namespace accsum
