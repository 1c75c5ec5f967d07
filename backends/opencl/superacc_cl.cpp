// `superacc` and `superacc-dot` on OpenCL (Collange, Defour, Graillat, Iakymchuk, "Numerical
// reproducibility for the parallel reduction on multi- and many-core architectures", Parallel
// Computing 2015): per-work-item expansions, local-memory
// superaccumulators with 64-bit atomics, a device-level merge and the rounding on the device
// (kernels and scheme: kernels/superacc.cl). The host reads back one double.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "families/sum_dot/superacc_host.hpp"
#include "core/numerics/superacc.hpp"
#include "core/numerics/superacc_lanes.h"
#include "families/sum_dot/superacc_state.hpp"

namespace accsum::opencl {
namespace {

// kernels/superacc.cl with its includes inlined (cmake/embed_opencl.cmake).
const char* kSource =
#include "opencl/superacc.cl.inc"
    ;

// Whether local 64-bit atomics can be used: the device has cl_khr_int64_base_atomics and
// $ACCSUM_OPENCL_NO_ATOM64 (a test hook for the fallback) is unset.
bool use_atom64() {
  if (const char* e = std::getenv("ACCSUM_OPENCL_NO_ATOM64"))
    if (*e && std::string(e) != "0") return false;
  size_t len = 0;
  clGetDeviceInfo(context().device, CL_DEVICE_EXTENSIONS, 0, nullptr, &len);
  std::string ext(len, '\0');
  clGetDeviceInfo(context().device, CL_DEVICE_EXTENSIONS, len, ext.data(), nullptr);
  return ext.find("cl_khr_int64_base_atomics") != std::string::npos;
}

constexpr int64_t kMaxSlice = int64_t(1) << 29;  // terms per partial: < 2^31 pieces per digit
// U: 16-byte loads of each input per work-item and batch (the next batch's are in flight while
// one is added): 128 B of x for a sum, 64 B of x and of y for a dot — the fastest on NVIDIA's
// OpenCL on the H200 at n = 2^28 (results/opencl_ratios_h200.md: sum 0.889x the plain sum with 8,
// 0.860x with 4; dot 0.834-0.860x with 4, 0.805-0.809x with 2).
constexpr int kSumVecs = 8, kDotVecs = 4;
// Groups per compute unit. LANES on a GPU: groups of kGpuLaneLocal work-items, 5 per unit: one
// wave, each group's fixed cost (clearing and merging its lanes) paid once per unit and no more
// (measured on an H100, NVIDIA OpenCL, n = 2^22 .. 2^28: 0.65 / 0.91 / 0.96x the plain sum at
// 2^22 / 2^26 / 2^28, against 0.55 / 0.76 / 0.93x with 20 groups of 128).
constexpr int kGpuLaneGroupsPerUnit = 5, kGpuGroupsPerUnit = 8, kCpuGroupsPerUnit = 1;
constexpr size_t kGpuLaneLocal = 64, kGpuLocal = 256, kCpuLocal = 64;
constexpr int64_t kMinBatchesPerGroup = 4;  // small n: fewer groups, each at least this many batches
constexpr size_t kFinalLocal = 1024;        // the merge of the partials: many partials summed at once

constexpr size_t kWarp = 32;
size_t lane_bytes(size_t local) { return local * ACCSUM_LANE_DIGITS * sizeof(cl_long); }

// Whether `local` private lane accumulators and the group's one accumulator fit the device's
// local memory (NVIDIA's OpenCL gives a work-group 48 KiB: 128 work-items for a sum or a dot).
bool lanes_fit(const Context& c, bool dot, size_t& local) {
  cl_ulong mem = 0;
  clGetDeviceInfo(c.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof mem, &mem, nullptr);
  const size_t group =
      ((dot ? SuperaccDot::kDigits : Superacc::kDigits) + 8) * sizeof(cl_long) + 256;  // + flags, slack
  if (mem < group + lane_bytes(1)) return false;
  size_t most = (mem - group) / lane_bytes(1);
  if (most >= kWarp) most -= most % kWarp;  // whole warps
  local = std::min(local, most);
  return true;
}

class SuperaccCl : public ClKernel {
 public:
  SuperaccCl(const Problem& p, const Params& q, bool dot) : ClKernel(p), dot_(dot) {
    Context& c = context();
    cpu::SuperaccConfig cfg = cpu::superacc_config(q);
    long long want_local = param_int(q, "local"), want_groups = param_int(q, "groups");
    const bool want_lanes = param_int(q, "lanes") != 0;
    local_ = want_local > 0 ? static_cast<size_t>(want_local)
             : !c.is_gpu    ? kCpuLocal
             : want_lanes   ? kGpuLaneLocal
                            : kGpuLocal;
    local_ = std::min(local_, c.max_work_group);
    atom64_ = use_atom64();
    // Private accumulators in local memory when they fit (LANES: no atomics in the hot loop),
    // else the per-term atomics of kernels/superacc_atomic_partial.clh. lanes=0 forces the latter.
    lanes_ = want_lanes && atom64_ && lanes_fit(c, dot, local_);
    const long long vecs = param_int(q, "vecs"), regs = param_int(q, "regs");
    global_merge_ = lanes_ && param_int(q, "merge") != 0;
    const int u = vecs > 0 ? static_cast<int>(vecs) : dot ? kDotVecs : kSumVecs;
    digits_ = dot ? SuperaccDot::kDigits : Superacc::kDigits;
    int lsb = dot ? SuperaccDot::kLsbExp : Superacc::kLsbExp;
    // Several superaccumulators per group spread the atomic contention (Collange et al. 2015, Sec. 4.1, use 16).
    int copies = c.is_gpu && !lanes_ ? 16 : 1;
    std::string opts = "-DDIGITS=" + std::to_string(digits_) + " -DLSB=" + std::to_string(lsb) +
                       " -DDOT=" + (dot ? "1" : "0") + " -DFPE_N=" + std::to_string(cfg.fpe) +
                       " -DEARLY_EXIT=" + (cfg.early_exit ? "1" : "0") + " -DCOPIES=" + std::to_string(copies) +
                       " -DHAVE_ATOM64=" + (atom64_ ? "1" : "0") + " -DU=" + std::to_string(u) +
                       " -DLANES=" + (lanes_ ? "1" : "0") + " -DGLOBAL_MERGE=" + (global_merge_ ? "1" : "0") +
                       " -DLS=" + std::to_string(local_);
    // NVIDIA's compiler only: a register cap per work-item (more resident groups).
    if (regs > 0 && c.platform_name.find("NVIDIA") != std::string::npos)
      opts += " -cl-nv-maxrregcount=" + std::to_string(regs);
    cl_program prog = program(kSource, opts);
    partial_k_ = make_kernel(prog, "superacc_partial");
    final_k_ = make_kernel(prog, "superacc_final");
    // Enough groups to fill the device, and slices below kMaxSlice terms.
    int64_t n = in_->n;
    int64_t per_unit = !c.is_gpu ? kCpuGroupsPerUnit : lanes_ ? kGpuLaneGroupsPerUnit : kGpuGroupsPerUnit;
    groups_ = want_groups > 0 ? want_groups : std::max<int64_t>(per_unit * int64_t(c.compute_units), 1);
    if (want_groups <= 0 && lanes_)  // small n: each group at least kMinBatchesPerGroup batches
      groups_ = std::min<int64_t>(groups_, std::max<int64_t>(1, n / (int64_t(local_) * 2 * u * kMinBatchesPerGroup)));
    groups_ = std::max<int64_t>(groups_, (n + kMaxSlice - 5) / (kMaxSlice - 4));      // a slice: <= n / G + 3 terms
    groups_ = std::min<int64_t>(groups_, std::max<int64_t>(1, n / int64_t(local_)));  // tiny n: few groups
    count_ = global_merge_ ? 1 : atom64_ ? groups_ : groups_ * static_cast<int64_t>(local_);
    partial_ = Buffer(static_cast<size_t>(count_) * (digits_ + 5) * sizeof(cl_long));
    if (global_merge_) {  // the one partial starts at zero; superacc_final clears it after each run
      std::vector<cl_long> zero(digits_ + 5, 0);
      partial_.write(zero.data(), zero.size() * sizeof(cl_long));
    }
    result_ = Buffer(sizeof(double));
    size_t kernel_max = c.max_work_group;  // the final kernel's own limit (its registers)
    clGetKernelWorkGroupInfo(final_k_, c.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max, &kernel_max, nullptr);
    final_local_ = std::max<size_t>(1, std::min({kFinalLocal, c.max_work_group, kernel_max}));
    const size_t stride = digits_ + 5;
    final_cells_ = std::max<size_t>(final_local_ / stride, 1) * stride;
  }
  ~SuperaccCl() override {
    clReleaseKernel(partial_k_);
    clReleaseKernel(final_k_);
  }

  double run() override {
    set_partial_args();
    cl_mem part = partial_.get(), res = result_.get();
    cl_long count = count_;
    set_args(final_k_, part, count, res, LocalBytes{final_cells_ * sizeof(cl_long)});
    size_t global = static_cast<size_t>(groups_) * local_;
    cl_event e1, e2;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, partial_k_, 1, nullptr, &global, &local_, 0, nullptr, &e1));
    ACCSUM_CL_CHECK(
        clEnqueueNDRangeKernel(context().queue, final_k_, 1, nullptr, &final_local_, &final_local_, 0, nullptr, &e2));
    return finish(result_, e1, e2);
  }

  // The exact, unrounded result for the mpi backend's inner=opencl (Collange et al. 2015, level
  // 4 without 5): the partial kernel only; its partials are read back and added on the host.
  template <class SA>
  void accumulate_unrounded(SA& acc) {
    set_partial_args();
    size_t global = static_cast<size_t>(groups_) * local_;
    ACCSUM_CL_CHECK(
        clEnqueueNDRangeKernel(context().queue, partial_k_, 1, nullptr, &global, &local_, 0, nullptr, nullptr));
    const size_t stride = digits_ + 5;
    std::vector<cl_long> rec(static_cast<size_t>(count_) * stride);
    partial_.read(rec.data(), rec.size() * sizeof(cl_long));  // blocking: after the kernel
    if (global_merge_) {  // the final kernel clears the one partial; here the host does
      std::vector<cl_long> zero(stride, 0);
      partial_.write(zero.data(), zero.size() * sizeof(cl_long));
    }
    for (int64_t q = 0; q < count_; ++q) {
      const cl_long* r = rec.data() + q * stride;
      SA part;
      part.clear();
      for (int d = 0; d < SA::kDigits; ++d) part.digit[d] = r[d];
      // The flags F_NAN, F_PINF, F_NINF, F_NEGZERO, F_OTHER (kernels/superacc.cl) as core's counters.
      part.nan_count = r[SA::kDigits] != 0;
      part.pos_inf_count = r[SA::kDigits + 1] != 0;
      part.neg_inf_count = r[SA::kDigits + 2] != 0;
      part.neg_zero_count = r[SA::kDigits + 3] != 0;
      part.not_neg_zero_count = r[SA::kDigits + 4] != 0;
      part.normalize();
      acc.merge(part);
    }
  }

 private:
  void set_partial_args() {
    cl_mem x = in_->x.get(), y = dot_ ? in_->y.get() : in_->x.get(), part = partial_.get();
    cl_long n = in_->n;
    set_args(partial_k_, x, y, n, part, LocalBytes{lanes_ ? lane_bytes(local_) : sizeof(cl_long)});
  }

  bool dot_;
  bool atom64_ = true, lanes_ = false, global_merge_ = false;
  int digits_ = 0;
  size_t local_ = 64, final_local_ = 64, final_cells_ = 0;
  int64_t groups_ = 1, count_ = 1;
  Buffer partial_, result_;
  cl_kernel partial_k_{}, final_k_{};
};

std::vector<ParamSpec> params() {
  // Defaults: the CUDA kernel's configuration (fpe=0: private accumulators only), 256 work-items
  // per group asked (LANES caps it to what 48 KB of local memory holds: 128).
  std::vector<ParamSpec> ps = cpu::superacc_params(0, 1);
  ps.push_back(ParamSpec{"local",
                         "work-group size (0 = 64 on a GPU with lanes, 256 without, 64 on a CPU device)",
                         true,
                         0,
                         1024,
                         {},
                         "0"});
  ps.push_back(ParamSpec{"groups",
                         "work-groups (0 = 5 per compute unit on a GPU with lanes, 8 without, 1 on a CPU device)",
                         true,
                         0,
                         1 << 20,
                         {},
                         "0"});
  ps.push_back(ParamSpec{
      "lanes", "private accumulators in local memory (1) or per-term local atomics (0)", true, 0, 1, {"0", "1"}, "1"});
  ps.push_back(ParamSpec{"merge",
                         "lanes: groups add their digits into one partial with global atomics (1) or write one "
                         "partial each for the final kernel (0)",
                         true,
                         0,
                         1,
                         {"0", "1"},
                         "1"});
  ps.push_back(ParamSpec{
      "vecs", "16-byte loads per input, work-item and batch (0 = 8 for a sum, 4 for a dot)", true, 0, 8, {}, "0"});
  ps.push_back(ParamSpec{
      "regs", "register cap per work-item on NVIDIA's OpenCL (0 = the compiler's choice)", true, 0, 255, {}, "0"});
  return ps;
}

// Work-group sizes compared for reproducibility (capped by the device).
std::vector<Params> local_variants(const Params& p) {
  std::vector<std::string> sizes;
  for (size_t l : {32, 64, 256}) sizes.push_back(std::to_string(std::min(l, context().max_work_group)));
  return variants_of(p, "local", sizes);
}

// The mergeable state (families/sum_dot/superacc_state.hpp): the device adds a slice (host memory) and
// hands back the unrounded superaccumulator (the mpi backend's inner=opencl: MPI merges the ranks'
// and rounds once). Parameters: the opencl entry's, as the caller resolved them.
template <class SA>
std::unique_ptr<MergeableState> superacc_state(const Params& q) {
  auto kept = std::make_shared<KeptKernel<SuperaccCl>>();
  return std::make_unique<SuperaccState<SA>>([q, kept](const Problem& s, SA& acc) {
    const bool dot = std::is_same_v<SA, SuperaccDot>;
    kept->for_slice(s, [&] { return std::make_unique<SuperaccCl>(s, q, dot); }).accumulate_unrounded(acc);
  });
}

template <bool DOT>
AlgoEntry superacc_cl(const std::string& summary) {
  return superacc_entry(DOT, "opencl", summary, params(),
                        [](const Problem& p, const Params& q) { return std::make_unique<SuperaccCl>(p, q, DOT); })
      .shapes(local_variants)
      .mergeable(superacc_state<SuperaccOf<DOT>>);
}

Registrar reg_sum(
    superacc_cl<false>("correctly rounded sum: work-item expansions + local superaccumulators (atomics)"));
Registrar reg_dot(superacc_cl<true>("correctly rounded dot: exact products into local superaccumulators (atomics)"));

}  // namespace
}  // namespace accsum::opencl
