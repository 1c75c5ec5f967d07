#include "core/ieee_special.hpp"

#include <utility>

namespace accsum {

SpecialOutcome special_outcome_sum(const double* x, int64_t n) {
  bool pos = false, neg = false;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (std::isfinite(v)) continue;
    if (std::isnan(v)) return SpecialOutcome::nan;
    (v > 0 ? pos : neg) = true;
  }
  if (pos && neg) return SpecialOutcome::nan;
  return pos ? SpecialOutcome::pos_inf : neg ? SpecialOutcome::neg_inf : SpecialOutcome::none;
}

SpecialOutcome special_outcome_dot(const double* x, const double* y, int64_t n) {
  bool pos = false, neg = false;
  for (int64_t i = 0; i < n; ++i) {
    const double a = x[i], b = y[i];
    if (std::isfinite(a) && std::isfinite(b)) continue;  // an exact product of finite values is finite
    if (std::isnan(a) || std::isnan(b)) return SpecialOutcome::nan;
    if (a == 0 || b == 0) return SpecialOutcome::nan;  // inf * 0
    (std::signbit(a) != std::signbit(b) ? neg : pos) = true;
  }
  if (pos && neg) return SpecialOutcome::nan;
  return pos ? SpecialOutcome::pos_inf : neg ? SpecialOutcome::neg_inf : SpecialOutcome::none;
}

namespace {

class IeeeRuleKernel : public Kernel {
 public:
  IeeeRuleKernel(std::unique_ptr<Kernel> inner, const Problem& p, bool dot)
      : inner_(std::move(inner)), x_(p.x), y_(dot ? p.y : nullptr), n_(p.n) {}
  double run() override { return ieee_result(inner_->run(), x_, y_, n_); }
  double last_device_seconds() const override { return inner_->last_device_seconds(); }
  double transfer_seconds() const override { return inner_->transfer_seconds(); }

 private:
  std::unique_ptr<Kernel> inner_;
  const double* x_;
  const double* y_;
  int64_t n_;
};

}  // namespace

KernelFactory with_ieee_rule(KernelFactory make, bool dot) {
  if (!make) return make;
  return [make = std::move(make), dot](const Problem& p, const Params& q) -> std::unique_ptr<Kernel> {
    auto k = make(p, q);
    if (!k || !p.x || (dot && !p.y)) return k;
    return std::make_unique<IeeeRuleKernel>(std::move(k), p, dot);
  };
}

}  // namespace accsum
