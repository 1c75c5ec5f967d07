// What the fpe family's algorithms share (families/fpe/family_fpe.hpp): the generators' names,
// the proven bounds (Collange, Joldes, Muller, Popescu, ASAP 2016) and their domains, and the
// host kernel that applies a per-pair operation.
#include <algorithm>
#include <cmath>
#include <thread>

#include "families/fpe/family_fpe.hpp"

namespace accsum {

const std::vector<std::string>& fpe_dist_names() {
  static const std::vector<std::string> names{"random", "cancel", "wide", "zeros", "specials"};
  return names;
}

std::string fpe_add_domain(const Params&, const ExactFacts& f) {
  auto has = [&](const char* k) {
    auto it = f.family.find(k);
    return it != f.family.end() && it->second != 0;
  };
  if (has("invalid_expansion")) return "an input is not an ulp-nonoverlapping expansion (Def. II.2)";
  if (has("overflow")) return "a term or a leading sum/product reaches 2^1020 (overflow)";
  if (has("index_decay_violated"))
    return "an input violates |x_i| <= 2^(-52 i) |x_0|, the hypothesis of the proofs (interleaved or leading zeros)";
  return "";
}

std::string fpe_mul_domain(const Params& p, const ExactFacts& f) {
  std::string why = fpe_add_domain(p, f);
  if (!why.empty()) return why;
  auto it = f.family.find("mul_underflow");
  if (it != f.family.end() && it->second != 0)
    return "a product x_i*y_j with i+j <= R-1 lies below 2^-969 (2MultFMA's error need not be a double)";
  return "";
}

FpePairKernel::FpePairKernel(const Problem& p, FpeBatchFn op, std::string what, int threads)
    : x_(p.x), y_(p.y), n_(p.n), R_(fpe_r_of(p)), op_(op), what_(std::move(what)), threads_(std::max(1, threads)) {
  out_.assign(static_cast<size_t>(n_) * R_, 0.0);
}

void FpePairKernel::execute() {
  const int threads = static_cast<int>(std::min<int64_t>(threads_, std::max<int64_t>(1, n_)));
  auto chunk = [&](int t) {
    const int64_t b = n_ * t / threads, e = n_ * (t + 1) / threads;
    if (e > b) op_(x_ + b * R_, y_ + b * R_, out_.data() + b * R_, e - b);
  };
  if (threads == 1) return chunk(0);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(chunk, t);
  chunk(0);
  for (auto& th : pool) th.join();
}

double fpe_add_safe_bound(int R) {
  // Collange et al. 2016, after Prop. III.1: keeping the first R terms leaves an error below
  // (2^{-Rp+3R-1} + 2^{-(R+1)p+3R} + ...)|s_0| = 2^{-Rp+3R-1} / (1 - 2^{-(p-1)}) |s_0|, and
  // |s_0| <= (1 + 2^{-p+1}) |x + y|: relative bound 2^{-50R-1} (1 + 2^-50), in units of 2^{-pR}.
  return std::ldexp(1.0 + 0x1p-50, 3 * R - 1);
}

double fpe_mul_bound(int R) {
  // Collange et al. 2016, Prop. IV.2, eq. (6): relative to |x_0 y_0|,
  // 2^{-(p-1)R} (R-1) [1 + 2^{p-2}(1+2^-p) + (R^3 - R)((R-1)!)^2], evaluated upwards, in units
  // of 2^{-pR} (2^{-1664} at R = 32 is below the smallest double).
  double fact = 1;
  for (int i = 2; i <= R - 1; ++i) fact *= i;  // (R-1)! <= 31! < 2^113: rounding is tiny
  const double r3 = static_cast<double>(R) * R * R - R;
  double bracket = 1 + std::ldexp(1 + 0x1p-53, kP - 2) + r3 * fact * fact;
  bracket *= 1 + 0x1p-40;                   // covers the roundings of this evaluation
  return std::ldexp(bracket * (R - 1), R);  // 2^{-(p-1)R} = 2^R u^R
}

}  // namespace accsum
