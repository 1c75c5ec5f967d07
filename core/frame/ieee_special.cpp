#include "core/frame/ieee_special.hpp"

#include "core/frame/family.hpp"
#include "core/numerics/ieee_special.h"

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
    const int product = accsum_product_class(accsum_bits(a), accsum_bits(b));
    if (product == ACCSUM_PRODUCT_NAN) return SpecialOutcome::nan;
    (product == ACCSUM_PRODUCT_NEG_INF ? neg : pos) = true;
  }
  if (pos && neg) return SpecialOutcome::nan;
  return pos ? SpecialOutcome::pos_inf : neg ? SpecialOutcome::neg_inf : SpecialOutcome::none;
}

namespace {

// Computes with the inner kernel, then applies the rule to its one value (a scalar result is a
// stored double on every backend, so reading it here costs nothing on the finite path).
class IeeeRuleKernel : public Kernel {
 public:
  IeeeRuleKernel(std::unique_ptr<Kernel> inner, const Problem& p)
      : inner_(std::move(inner)), x_(p.x), y_(p.y), n_(p.n) {}
  void execute() override {
    inner_->execute();
    value_ = inner_->result();
    if (value_.values.size() == 1) value_.values[0] = ieee_result(value_.values[0], x_, y_, n_);
  }
  Result result() override { return value_; }
  double last_device_seconds() const override { return inner_->last_device_seconds(); }
  double transfer_seconds() const override { return inner_->transfer_seconds(); }
  std::vector<std::string> placement() const override { return inner_->placement(); }

 private:
  std::unique_ptr<Kernel> inner_;
  const double* x_;
  const double* y_;
  int64_t n_;
  Result value_;
};

}  // namespace

KernelFactory with_ieee_rule(KernelFactory make, std::string family_name) {
  if (!make) return make;
  return [make = std::move(make), family_name](const Problem& p, const Params& q) -> std::unique_ptr<Kernel> {
    auto k = make(p, q);
    const FamilyDescriptor* f = find_family(family_name);  // looked up when all are registered
    if (!k || !p.x || p.on_device || !f || !f->ieee_reduction) return k;
    return std::make_unique<IeeeRuleKernel>(std::move(k), p);
  };
}

namespace {
// Every entry of a family with ieee_reduction, on every backend, registered before or after.
Registrar reg_ieee_rule(MakeWrapper{
    [](MakeFn make, const AlgoEntry& e) { return with_ieee_rule(std::move(make), e.family); }});
}  // namespace

}  // namespace accsum
