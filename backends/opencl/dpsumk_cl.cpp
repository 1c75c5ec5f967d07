// dpsumk / dpdotk on OpenCL: the kernels of kernels/dpsumk.cl (K, dot, TwoProduct and the
// work-group size are compile-time macros: one cached program per combination), timed with
// profiling events. Same launch structure and the same bits as the CUDA backend (dpsumk_cuda.cu).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "families/sum_dot/dpsum.hpp"

namespace accsum::opencl {
namespace {

// backends/opencl/kernels/dpsumk.cl, embedded by cmake/embed_opencl.cmake.
const char* kDpsumkSource =
#include "opencl/dpsumk.cl.inc"
    ;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A power-of-two work-group size the device accepts, at most 256, whose K lane levels
// (K * size doubles of local memory) take at most half the device's local memory.
size_t group_size(int K = 1) {
  cl_ulong local_mem = 0;
  clGetDeviceInfo(context().device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, nullptr);
  size_t ls = 256;
  while (ls > 1 && (ls > context().max_work_group || K * ls * sizeof(double) > local_mem / 2)) ls /= 2;
  return ls;
}

cl_program dp_program(int K, bool dot, bool dekker, size_t ls, int plain = 0, int src = 0) {
  std::string opts = "-DKC=" + std::to_string(K) + " -DDOT=" + std::to_string(dot) +
                     " -DDEKKER=" + std::to_string(dekker) + " -DLS=" + std::to_string(ls) +
                     " -DPLAIN=" + std::to_string(plain) + " -DSRC=" + std::to_string(src);
  return program(kDpsumkSource, opts);
}

// Owns a cl_kernel and a list of events of one run.
struct Launches {
  std::vector<cl_event> events;
  ~Launches() { clear(); }
  void clear() {
    for (auto e : events) clReleaseEvent(e);
    events.clear();
  }
  cl_event* next() {
    events.push_back(nullptr);
    return &events.back();
  }
  double seconds() const { return events.empty() ? 0.0 : event_span_seconds(events.front(), events.back()); }
};

class DpFusedCl : public ClKernel {
 public:
  DpFusedCl(const Problem& p, int K, bool dot, bool dekker)
      : ClKernel(p),
        K_(K),
        dot_(dot),
        ls_(group_size(K)),
        G_(fused_lanes(p.n)),
        groups_(std::max<int64_t>(1, ceil_div(G_, ls_))),
        a_(K * groups_ * sizeof(double)),
        b_(K * ceil_div(groups_, ls_) * sizeof(double)),
        state_(K) {
    cl_program prog = dp_program(K, dot, dekker, ls_);
    fused_ = make_kernel(prog, "dp_fused");
    merge_ = make_kernel(prog, "dp_merge");
  }
  ~DpFusedCl() override {
    clReleaseKernel(fused_);
    clReleaseKernel(merge_);
  }
  double run() override {
    if (in_->n == 0) {
      last_ = 0;
      return 0.0;
    }
    Launches ev;
    cl_mem x = in_->x.get(), y = dot_ ? in_->y.get() : in_->x.get(), a = a_.get(), b = b_.get();
    set_args(fused_, x, y, cl_long(in_->n), cl_long(G_), a, LocalBytes{K_ * ls_ * sizeof(double)});
    enqueue(fused_, groups_, ev.next());
    for (int64_t count = groups_; count > 1;) {
      int64_t nb = ceil_div(count, ls_);
      set_args(merge_, a, cl_long(count), b, LocalBytes{K_ * ls_ * sizeof(double)});
      enqueue(merge_, nb, ev.next());
      std::swap(a, b);
      count = nb;
    }
    ACCSUM_CL_CHECK(
        clEnqueueReadBuffer(context().queue, a, CL_TRUE, 0, K_ * sizeof(double), state_.data(), 0, nullptr, nullptr));
    last_ = ev.seconds();
    return kf_finalize<0>(state_.data(), K_);
  }

 private:
  void enqueue(cl_kernel k, int64_t groups, cl_event* e) {
    size_t global = static_cast<size_t>(groups) * ls_;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, k, 1, nullptr, &global, &ls_, 0, nullptr, e));
  }
  int K_;
  bool dot_;
  size_t ls_;
  int64_t G_, groups_;
  Buffer a_, b_;
  std::vector<double> state_;
  cl_kernel fused_{}, merge_{};
};

class DpTreeCl : public ClKernel {
 public:
  DpTreeCl(const Problem& p, int K, bool dot, bool dekker)
      : ClKernel(p),
        K_(K),
        dot_(dot),
        dekker_(dekker),
        ls_(group_size()),
        N_(dot ? 2 * p.n : p.n),
        p_(std::max<int64_t>(N_, 1) * sizeof(double)),
        out_(2 * sizeof(double)) {}
  ~DpTreeCl() override {
    for (auto& row : k_)
      for (auto k : row)
        if (k) clReleaseKernel(k);
  }
  double run() override {
    if (in_->n == 0) {
      last_ = 0;
      return 0.0;
    }
    Launches ev;
    pass(0, dot_ ? 2 : 1, 1, ev);  // DPSum (or DPDot); its top is the plain sum
    for (int k = 2; k < K_; ++k) pass(0, 0, -1, ev);
    pass(1, 0, 0, ev);  // DPRed
    double r[2];
    out_.read(r, sizeof r);
    last_ = ev.seconds();
    return ieee_result(r[0], r[1]);
  }

 private:
  void pass(int plain, int src, int top_index, Launches& ev) {
    const int64_t seg = 4 * static_cast<int64_t>(ls_);
    for (int64_t stride = 1;; stride *= seg) {
      int64_t terms = ceil_div(N_, stride), groups = ceil_div(terms, seg);
      cl_kernel& k = k_[plain][src];  // [plain][src]: src 0 in place, 1 copy of x, 2 DPDot
      if (!k) k = make_kernel(dp_program(1, dot_, dekker_, ls_, plain, src), "dp_tree");
      cl_mem x = in_->x.get(), y = dot_ ? in_->y.get() : in_->x.get(), p = p_.get(), o = out_.get();
      set_args(k, x, y, p, cl_long(terms), cl_long(stride), o, cl_int(groups == 1 ? top_index : -1),
               LocalBytes{ls_ * sizeof(double)});
      size_t global = static_cast<size_t>(groups) * ls_;
      ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, k, 1, nullptr, &global, &ls_, 0, nullptr, ev.next()));
      src = 0;
      if (groups == 1) break;
    }
  }
  int K_;
  bool dot_, dekker_;
  size_t ls_;
  int64_t N_;
  Buffer p_, out_;
  cl_kernel k_[2][3]{};
};

std::unique_ptr<Kernel> make(const Problem& p, const Params& prm, bool dot) {
  const int K = dp_K(prm);
  const bool dekker = dot && dp_dekker(prm);
  if (dp_variant(prm) == DpVariant::tree) return std::make_unique<DpTreeCl>(p, K, dot, dekker);
  return std::make_unique<DpFusedCl>(p, K, dot, dekker);
}

Registrar reg_sum(dp_entry(false, "opencl", "DPSumK in OpenCL (tree or fused; same bits as cpu)")
                      .maker([](const Problem& p, const Params& prm) { return make(p, prm, false); }));
Registrar reg_dot(dp_entry(true, "opencl", "DPDotK in OpenCL (tree or fused; same bits as cpu)")
                      .maker([](const Problem& p, const Params& prm) { return make(p, prm, true); }));

}  // namespace
}  // namespace accsum::opencl
