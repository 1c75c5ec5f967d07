// moddot on OpenCL: the round-to-nearest variants of the lambda- and (alpha, beta, gamma,
// delta)-algorithms of Jean, Graillat (SYNASC 2010), whose splitting bounds are derived in
// core/numerics/moddot.hpp (OpenCL C has no rounding-mode control, so the paper's round-toward-zero
// versions cannot run here). Each work-item sums a grid-strided share of the products in
// exact floating point, reduced mod p every lambda terms (lambda) or every `block` terms
// (abgd: default 2^26, the paper's one-pass limit);
// work-group residues are merged by addition mod p in local memory, the group residues on
// the host. Residue arithmetic is exact: the same bits as cpu for any launch shape.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "core/numerics/moddot.hpp"
#include "datasets/residues.hpp"

namespace accsum::opencl {
namespace {

const char* kModdotSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

double mod_p(double x, double p) { double r = fmod(x, p); return r < 0 ? r + p : r; }  /* fmod: 0 ulp */
double add_mod(double a, double b, double p) { double s = a + b; return s >= p ? s - p : s; }
double reduce52(double x, double p, double pinv) {
  double q = floor(x * pinv);
  double r = fma(-q, p, x);
  r = r < 0 ? r + p : r;
  return r >= p ? r - p : r;
}
double to_field(double v, double p) { v = v < 0 ? v + p : v; return v >= p ? v - p : v; }

void group_merge(double v, double p, __local double* sh, __global double* out) {
  const int t = get_local_id(0);
  sh[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (t < s) sh[t] = add_mod(sh[t], sh[t + s], p);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = sh[0];
}

__kernel void moddot_abgd(__global const double* x, __global const double* y, long n, double p, long block,
                          __global double* out, __local double* sh) {
  const long W = get_global_size(0);
  long i = get_global_id(0);
  double acc = 0;
  const double s1 = 0x1p131, s2 = 0x1p105, s3 = 0x1p79;
  while (i < n) {
    double A = 0, B = 0, C = 0, D = 0;
    for (long c = 0; c < block && i < n; ++c, i += W) {
      double h = x[i] * y[i];
      double r = fma(x[i], y[i], -h);
      double al = (s1 + h) - s1, bp = h - al;
      double be = (s2 + bp) - s2, ep = bp - be;
      double t = ep + r;
      double ga = (s3 + t) - s3, de = t - ga;
      A += al; B += be; C += ga; D += de;
    }
    acc = add_mod(acc, add_mod(add_mod(mod_p(A, p), mod_p(B, p), p), add_mod(mod_p(C, p), mod_p(D, p), p), p), p);
  }
  group_merge(acc, p, sh, out);
}

__kernel void moddot_lambda(__global const double* x, __global const double* y, long n, double p, double pinv,
                            double sigma, double scale, double two_l1, long lambda,
                            __global double* out, __local double* sh) {
  const long W = get_global_size(0);
  long i = get_global_id(0);
  double Sa = 0, Sb = 0, Sr = 0;
  while (i < n) {
    double ca = 0, cb = 0, cr = 0;
    for (long c = 0; c < lambda && i < n; ++c, i += W) {
      double h = x[i] * y[i];
      double r = fma(x[i], y[i], -h);
      double al = (sigma + h) - sigma, be = h - al;
      ca += to_field(al * scale, p);
      cb += to_field(be, p);
      cr += to_field(r, p);
    }
    Sa = add_mod(Sa, reduce52(ca, p, pinv), p);
    Sb = add_mod(Sb, reduce52(cb, p, pinv), p);
    Sr = add_mod(Sr, reduce52(cr, p, pinv), p);
  }
  group_merge(add_mod(mod_p(Sa * two_l1, p), add_mod(Sb, Sr, p), p), p, sh, out);
}
)CLC";

template <class T>
void arg(cl_kernel k, cl_uint i, const T& v) {
  ACCSUM_CL_CHECK(clSetKernelArg(k, i, sizeof(T), &v));
}

class ModdotCl : public ClKernel {
 public:
  ModdotCl(const Problem& pr, bool lambda, int64_t groups_param, int64_t block)
      : ClKernel(pr), lambda_(lambda), p_(prime_of(pr.data)), block_(block) {
    ls_ = 256;
    while (ls_ > 1 && ls_ > context().max_work_group) ls_ /= 2;
    const int64_t want = groups_param > 0 ? groups_param : static_cast<int64_t>(context().compute_units) * 8;
    groups_ = std::max<int64_t>(1, std::min<int64_t>(want, (pr.n + ls_ - 1) / static_cast<int64_t>(ls_)));
    out_ = Buffer(groups_ * sizeof(double));
    kernel_ = make_kernel(program(kModdotSource), lambda ? "moddot_lambda" : "moddot_abgd");
  }
  ~ModdotCl() override {
    if (kernel_) clReleaseKernel(kernel_);
  }
  double run() override {
    const double pd = static_cast<double>(p_);
    cl_mem x = in_->x.get(), y = in_->y.get(), out = out_.get();
    cl_long n = in_->n;
    cl_uint a = 0;
    arg(kernel_, a++, x);
    arg(kernel_, a++, y);
    arg(kernel_, a++, n);
    arg(kernel_, a++, pd);
    if (lambda_) {
      const int l = moddot::split_level(p_);
      arg(kernel_, a++, 1.0 / pd);
      arg(kernel_, a++, std::ldexp(1.0, l + 53));
      arg(kernel_, a++, std::ldexp(1.0, -(l + 1)));
      arg(kernel_, a++, std::ldexp(1.0, l + 1));
      arg(kernel_, a++, static_cast<cl_long>(moddot::lambda_of(p_)));
    } else {
      arg(kernel_, a++, static_cast<cl_long>(block_));
    }
    arg(kernel_, a++, out);
    ACCSUM_CL_CHECK(clSetKernelArg(kernel_, a++, ls_ * sizeof(double), nullptr));
    size_t global = groups_ * ls_, local = ls_;
    cl_event ev = nullptr;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, kernel_, 1, nullptr, &global, &local, 0, nullptr, &ev));
    std::vector<double> part(groups_);
    out_.read(part.data(), part.size() * sizeof(double));  // blocking: waits for the kernel
    double r = 0;
    for (double v : part) r = moddot::add_mod(r, v, pd);
    last_ = event_span_seconds(ev, ev);
    clReleaseEvent(ev);
    return r;
  }

 private:
  bool lambda_;
  uint64_t p_;
  int64_t block_;
  size_t ls_ = 256;
  int64_t groups_ = 1;
  Buffer out_;
  cl_kernel kernel_ = nullptr;
};

ParamSpec rn_only() {
  return ParamSpec{"rounding", "rn only: OpenCL has no rounding-mode control (our round-to-nearest variant)", false, 0,
                   0, {"rn"}, "rn"};
}
ParamSpec groups_param() {
  return ParamSpec{"groups", "work-groups (0 = 8 per compute unit)", true, 0, 1 << 20, {}, "0"};
}
std::vector<Params> group_variants(const Params& p) {
  std::vector<Params> out;
  for (const char* g : {"1", "3", "64"}) {
    Params q = p;
    q["groups"] = g;
    out.push_back(q);
  }
  return out;
}

Registrar reg_lambda(AlgoEntry("moddot", "moddot-lambda", "opencl",
    "lambda-algorithm, round-to-nearest variant (Jean-Graillat Thm. 3; bounds in core/numerics/moddot.hpp)")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rn_only(), groups_param()})
    .shapes(group_variants)
    .maker([](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
      return std::make_unique<ModdotCl>(pr, true, param_int(prm, "groups"), 0);
    }));

Registrar reg_abgd(AlgoEntry("moddot", "moddot-abgd", "opencl",
    "(alpha,beta,gamma,delta)-algorithm, round-to-nearest variant, blocks of 2^26 (--block) per work-item (baseline)")
    .promises(Guarantee::exact).promises_reproducible().baseline()
    .with_params({rn_only(), groups_param(), moddot::block_param()})
    .shapes(group_variants)
    .maker([](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
      return std::make_unique<ModdotCl>(pr, false, param_int(prm, "groups"), param_int(prm, "block"));
    }));

}  // namespace
}  // namespace accsum::opencl
