// The fpe family on CUDA (Collange, Joldes, Muller, Popescu, "Parallel floating-point expansions
// for extended-precision GPU computations", ASAP 2016, Sec. V):
//  - data-parallel (fpe-add-safe, fpe-add-fast, fpe-mul): warp-synchronous, one expansion term per
//    lane, 32/R expansions per warp; the vector shifts of families/fpe/fpe_ops.hpp are width-R shuffles
//    and its any() a ballot restricted to the expansion's lanes (so every expansion runs exactly
//    the rounds of the serial definition: the bits equal the cpu backend's);
//  - sequential (fpe-seq-add, fpe-seq-mul): one expansion per thread, the serial definition itself;
//  - QD (fpe-qd-add, fpe-qd-mul): one expansion per thread, families/fpe/qd_ops.hpp (Hida, Li, Bailey 2001).
// shared=1 is the paper's memory-constrained case (Sec. VI, Tables II and IV): the kernel also
// holds 256 bytes of shared memory per expansion term (per lane for the data-parallel kernels,
// R * 256 per thread for the others), which limits how many threads an SM can keep resident; the
// block size is then the one (at most --block) that keeps the most threads resident.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "families/fpe/fpe_entries.hpp"
#include "backends/cuda/warp/warp.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "core/numerics/eft.hpp"
#include "families/fpe/fpe_ops.hpp"
#include "families/fpe/qd_ops.hpp"

namespace accsum {
namespace {

using cuda::DeviceBuffer;
using cuda::EventTimer;
using cuda::kFullMask;
using cuda::kWarpThreads;

constexpr int kSharedBytesPerTerm = 256;
constexpr int kSharedDoublesPerTerm = kSharedBytesPerTerm / 8;
static_assert(kSharedDoublesPerTerm >= kWarpThreads, "a term's bytes hold a word per lane");

// ---- warp pieces: one R-lane vector per expansion ----
// A warp re-statement of families/fpe/fpe_ops.hpp's vector algorithms: a thread holds one lane
// (not the whole vector the shared text indexes), the shifts are shuffles and any() a ballot;
// tested bit for bit against the serial definition (tests/backends/cuda/test_fpe_cuda.cpp).

template <int R>
__device__ __forceinline__ double lanes_shift_up(double v, double in, int t) {
  double u = __shfl_up_sync(kFullMask, v, 1, R);
  return t == 0 ? in : u;
}
template <int R>
__device__ __forceinline__ double lanes_broadcast(double v, int i) {
  return __shfl_sync(kFullMask, v, i, R);
}

template <int R>
__device__ __forceinline__ unsigned lanes_mask(int lane) {
  const unsigned bits = R == 32 ? 0xFFFFFFFFu : ((1u << R) - 1u);
  return bits << (lane & ~(R - 1));
}

// The common tail of the additions (fpe::settle), lane t: R-2 error-propagation steps inserting
// 0, then the last step as a plain addition.
template <int R>
__device__ __forceinline__ double warp_settle(double s, double e, int t) {
  for (int i = 1; i <= R - 2; ++i) {
    double ep = lanes_shift_up<R>(e, 0.0, t);
    two_sum(s, ep, s, e);
  }
  return __dadd_rn(s, lanes_shift_up<R>(e, 0.0, t));
}

// Algorithm 1, lane t of the expansion (fpe::add_safe, lane by lane).
template <int R>
__device__ double warp_add_safe(double x, double y, int t, unsigned) {
  double s, e;
  two_sum(t == 0 ? x : 0.0, t == 0 ? y : 0.0, s, e);
  for (int i = 1; i < R; ++i) {
    double ep = lanes_shift_up<R>(e, lanes_broadcast<R>(x, i), t);
    two_sum(s, ep, s, e);
    ep = lanes_shift_up<R>(e, lanes_broadcast<R>(y, i), t);
    two_sum(s, ep, s, e);
  }
  return warp_settle<R>(s, e, t);
}

// The fast addition (fpe::add_fast), lane t.
template <int R>
__device__ double warp_add_fast(double x, double y, int t, unsigned) {
  double s, e;
  two_sum(x, y, s, e);
  return warp_settle<R>(s, e, t);
}

// The loop condition is over the whole warp, so every lane runs the same rounds and every
// full-mask shuffle and ballot has all 32 lanes (per-expansion exits diverge: undefined on sm_70+).
// A round with every e of an expansion zero leaves it unchanged, so the bits equal the per-
// expansion loop's (fpe::mul).
template <int R>
__device__ __forceinline__ void warp_propagate(double& s, double& e, int t, unsigned) {
  for (int round = 0; round < R && __ballot_sync(kFullMask, e != 0.0) != 0; ++round) {
    two_sum(s, e, s, e);
    e = lanes_shift_up<R>(e, 0.0, t);
  }
}

// Algorithm 2 as the paper's Fig. 7 (fpe::mul, lane t); renorm: the sequential renormalisation
// of the R terms, run redundantly by every lane on the gathered vector.
template <int R, bool RENORM>
__device__ double warp_mul(double x, double y, int t, unsigned mask) {
  double s = 0.0, r = 0.0;
  for (int i = 0; i < R - 1; ++i) {
    const double yi = lanes_broadcast<R>(y, i);
    double p, e, ep;
    two_prod_fma(x, yi, p, e);
    two_sum(s, p, s, ep);
    const double s0 = lanes_broadcast<R>(s, 0);
    if (t == i) r = s0;
    s = __shfl_down_sync(kFullMask, s, 1, R);
    if (t == R - 1) s = 0.0;
    warp_propagate<R>(s, e, t, mask);
    warp_propagate<R>(s, ep, t, mask);
  }
  s = __dadd_rn(s, __dmul_rn(x, lanes_broadcast<R>(y, R - 1)));
  const double s0 = lanes_broadcast<R>(s, 0);
  if (t == R - 1) r = s0;
  if (RENORM) {
    double v[R], out[R];
    for (int l = 0; l < R; ++l) v[l] = lanes_broadcast<R>(r, l);
    fpe::renormalize(v, R, out, R);
    for (int l = 0; l < R; ++l)
      if (l == t) r = out[l];
  }
  return r;
}

// The application's intermediate data of one expansion term (the memory-constrained case): the
// term's 256 bytes hold its x and y, written and read back, each thread at the word of its lane
// (so that a warp's accesses fall in distinct banks, as an application would arrange them).
__device__ __forceinline__ void through_shared(double* term, double& x, double& y) {
  volatile double* v = term;
  const int w = cuda::lane_of(threadIdx.x);
  v[w] = x;
  v[w ^ (kWarpThreads / 2)] = y;
  x = v[w];
  y = v[w ^ (kWarpThreads / 2)];
}

enum Op { kSafe, kFast, kMul, kMulRenorm, kSeqAdd, kSeqMul, kQdAdd, kQdMul };

constexpr bool per_thread(int op) { return op >= kSeqAdd; }

template <int R, int OP>
__device__ double lane_op(double x, double y, int t, unsigned mask) {
  if (OP == kSafe) return warp_add_safe<R>(x, y, t, mask);
  if (OP == kFast) return warp_add_fast<R>(x, y, t, mask);
  if (OP == kMul) return warp_mul<R, false>(x, y, t, mask);
  return warp_mul<R, true>(x, y, t, mask);
}

// Data-parallel kernel: the warp walks 32 consecutive terms at a time (32/R whole expansions, as
// R divides 32), every lane of the warp taking part in every shuffle.
template <int R, int OP, bool SHARED>
__global__ void fpe_lanes_kernel(const double* __restrict__ x, const double* __restrict__ y, double* __restrict__ out,
                                 int64_t terms) {
  extern __shared__ double pad[];
  const int lane = cuda::lane_of(threadIdx.x);
  const int t = lane & (R - 1);
  const unsigned mask = lanes_mask<R>(lane);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + (threadIdx.x - lane); base < terms;
       base += stride) {
    const int64_t i = base + lane;
    const bool in = i < terms;
    double xv = in ? x[i] : 0.0, yv = in ? y[i] : 0.0;
    if (SHARED) through_shared(pad + static_cast<size_t>(threadIdx.x) * kSharedDoublesPerTerm, xv, yv);
    const double r = lane_op<R, OP>(xv, yv, t, mask);
    if (in) out[i] = r;
  }
}

// Sequential kernel: one expansion per thread, the serial definition.
template <int R, int OP, bool SHARED>
__global__ void fpe_seq_kernel(const double* __restrict__ x, const double* __restrict__ y, double* __restrict__ out,
                               int64_t n) {
  extern __shared__ double pad[];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    double a[R], b[R], s[R];
    for (int l = 0; l < R; ++l) {
      a[l] = x[k * R + l];
      b[l] = y[k * R + l];
    }
    if (SHARED)  // R terms: R * 256 bytes per thread
      for (int l = 0; l < R; ++l)
        through_shared(pad + (static_cast<size_t>(threadIdx.x) * R + l) * kSharedDoublesPerTerm, a[l], b[l]);
    if (OP == kSeqAdd)
      fpe::seq_add(a, b, s, R);
    else if (OP == kSeqMul)
      fpe::seq_mul(a, b, s, R);
    else if (OP == kQdAdd)
      qd::add(a, b, s, R);
    else
      qd::mul(a, b, s, R);
    for (int l = 0; l < R; ++l) out[k * R + l] = s[l];
  }
}

using LaunchFn = void (*)(const double*, const double*, double*, int64_t n, int block);

int max_shared_per_block() { return cuda::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin); }

// The memory-constrained launch: bytes_per_thread of dynamic shared memory per thread. Among
// the block sizes up to `block` (multiples of `step`), the one that keeps the most threads
// resident on an SM (the occupancy calculator: shared memory, registers, block limits).
template <class Kern>
int resident_block(Kern kern, int block, int bytes_per_thread, int step) {
  const int limit = std::min(block, max_shared_per_block() / bytes_per_thread);
  if (limit < 1) throw std::runtime_error("one thread's shared memory exceeds a block's");
  ACCSUM_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, limit * bytes_per_thread));
  int best = std::min(limit, step), best_threads = 0;
  for (int b = step; b <= limit; b += step) {
    int blocks = 0;
    ACCSUM_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kern, b, static_cast<size_t>(b) * bytes_per_thread));
    if (blocks * b >= best_threads) best = b, best_threads = blocks * b;
  }
  return best;
}

// step: the block sizes allowed (warp-synchronous kernels need whole warps).
template <class Kern>
void launch(Kern kern, const double* x, const double* y, double* out, int64_t items, int64_t threads_needed, int block,
            int bytes_per_thread, int step) {
  size_t shm = 0;
  if (bytes_per_thread > 0) {
    static std::map<std::pair<const void*, int>, int> chosen;  // (kernel, --block) -> block
    const auto key = std::make_pair(reinterpret_cast<const void*>(kern), block);
    auto it = chosen.find(key);
    if (it == chosen.end()) it = chosen.emplace(key, resident_block(kern, block, bytes_per_thread, step)).first;
    block = it->second;
    shm = static_cast<size_t>(block) * bytes_per_thread;
  }
  const int64_t want = (threads_needed + block - 1) / block;
  const int grid = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(want, 64LL * cuda::sm_count())));
  kern<<<grid, block, shm>>>(x, y, out, items);
  ACCSUM_CUDA_CHECK(cudaGetLastError());
}

template <int R, int OP, bool SHARED>
void launch_lanes(const double* x, const double* y, double* out, int64_t n, int block) {
  const int64_t terms = n * R;
  launch(fpe_lanes_kernel<R, OP, SHARED>, x, y, out, terms, terms, block, SHARED ? kSharedBytesPerTerm : 0,
         kWarpThreads);
}

template <int R, int OP, bool SHARED>
void launch_seq(const double* x, const double* y, double* out, int64_t n, int block) {
  launch(fpe_seq_kernel<R, OP, SHARED>, x, y, out, n, n, block, SHARED ? R * kSharedBytesPerTerm : 0, 1);
}

// Only the kernel kind the operation has is instantiated.
template <int R, int OP, bool SHARED>
LaunchFn launcher() {
  if constexpr (per_thread(OP))
    return launch_seq<R, OP, SHARED>;
  else
    return launch_lanes<R, OP, SHARED>;
}

template <int OP, bool SHARED>
LaunchFn pick_r(int R) {
  switch (R) {
    case 2:
      return launcher<2, OP, SHARED>();
    case 4:
      return launcher<4, OP, SHARED>();
    case 8:
      return launcher<8, OP, SHARED>();
    case 16:
      return launcher<16, OP, SHARED>();
    case 32:
      return launcher<32, OP, SHARED>();
  }
  throw UsageError("R = " + std::to_string(R) + " is not one of 2, 4, 8, 16, 32");
}

template <int OP>
LaunchFn pick(int R, bool shared) {
  return shared ? pick_r<OP, true>(R) : pick_r<OP, false>(R);
}

class FpeCudaKernel : public Kernel {
 public:
  FpeCudaKernel(const Problem& p, LaunchFn fn, std::string what, int block)
      : n_(p.n),
        R_(fpe_r_of(p)),
        fn_(fn),
        what_(std::move(what)),
        block_(block),
        x_(static_cast<size_t>(p.n) * R_),
        y_(static_cast<size_t>(p.n) * R_),
        out_(static_cast<size_t>(p.n) * R_) {
    const size_t bytes = static_cast<size_t>(n_) * R_ * sizeof(double);
    EventTimer t;
    t.start();
    if (bytes) {
      ACCSUM_CUDA_CHECK(cudaMemcpy(x_.get(), p.x, bytes, cudaMemcpyHostToDevice));
      ACCSUM_CUDA_CHECK(cudaMemcpy(y_.get(), p.y, bytes, cudaMemcpyHostToDevice));
    }
    upload_ = t.stop_seconds();
  }
  void execute() override {
    timer_.start();
    if (n_ > 0) fn_(x_.get(), y_.get(), out_.get(), n_, block_);
    last_ = timer_.stop_seconds();
  }
  Result result() override {
    Result r{std::vector<double>(static_cast<size_t>(n_) * R_), what_};
    if (n_ > 0)
      ACCSUM_CUDA_CHECK(
          cudaMemcpy(r.values.data(), out_.get(), r.values.size() * sizeof(double), cudaMemcpyDeviceToHost));
    return r;
  }
  double last_device_seconds() const override { return last_; }
  double transfer_seconds() const override { return upload_; }

 private:
  int64_t n_;
  int R_;
  LaunchFn fn_;
  std::string what_;
  int block_;
  DeviceBuffer<double> x_, y_, out_;
  EventTimer timer_;
  double last_ = -1, upload_ = 0;
};

std::vector<ParamSpec> cuda_params() {
  return {ParamSpec{"shared",
                    "memory-constrained case: 256 B of shared memory per expansion term (0 = registers only)",
                    true,
                    0,
                    1,
                    {},
                    "0"},
          ParamSpec{"block",
                    "threads per block (a multiple of 32); with shared=1 the size up to it that keeps the most "
                    "threads resident",
                    true,
                    32,
                    1024,
                    {},
                    "256"}};
}

AlgoEntry on_cuda(AlgoEntry e) {
  auto more = cuda_params();
  e.params.insert(e.params.end(), more.begin(), more.end());
  return e.promises_reproducible();
}

int block_of(const Params& prm) {
  const int b = static_cast<int>(param_int(prm, "block"));
  if (b % kWarpThreads) throw UsageError("--block must be a multiple of 32");
  return b;
}

template <int OP>
MakeFn cuda_maker(const char* what) {
  return [what](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
    int op = OP;
    if (OP == kMul && param_int(prm, "renormalize")) op = kMulRenorm;
    const bool shared = param_int(prm, "shared") != 0;
    const int R = fpe_r_of(p);
    LaunchFn fn = op == kMulRenorm ? pick<kMulRenorm>(R, shared) : pick<OP>(R, shared);
    return std::make_unique<FpeCudaKernel>(p, fn, what, block_of(prm));
  };
}

Registrar reg_safe(on_cuda(fpe_entry_add_safe("cuda")).maker(cuda_maker<kSafe>("sum")));
Registrar reg_fast(on_cuda(fpe_entry_add_fast("cuda")).maker(cuda_maker<kFast>("sum")));
Registrar reg_mul(on_cuda(fpe_entry_mul("cuda")).maker(cuda_maker<kMul>("product")));
Registrar reg_seq_add(on_cuda(fpe_entry_seq_add("cuda")).baseline().maker(cuda_maker<kSeqAdd>("sum")));
Registrar reg_seq_mul(on_cuda(fpe_entry_seq_mul("cuda")).maker(cuda_maker<kSeqMul>("product")));
Registrar reg_qd_add(on_cuda(fpe_entry_qd_add("cuda", "our device code")).maker(cuda_maker<kQdAdd>("sum")));
Registrar reg_qd_mul(on_cuda(fpe_entry_qd_mul("cuda", "our device code")).maker(cuda_maker<kQdMul>("product")));

}  // namespace
}  // namespace accsum
