// Correctly rounded, reproducible sum and dot product on CUDA: the five levels of Collange,
// Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel reduction on multi-
// and many-core architectures" (Parallel Computing 49, 2015; ExBLAS) mapped onto CUB's thread /
// warp / block / device layering. The pieces live in blocks/ (docs/cuda-layers.md), the per-thread
// agent in agent/superacc_agent.cuh, every tuning constant in agent/superacc_policy.cuh (SuperaccPolicy).
//
//   level 1 (thread, registers; thread/thread_expansion.cuh): a floating-point expansion of FPE
//     doubles per thread (Collange et al. Alg. 2, TwoSum of core/numerics/numerics.h), optionally with
//     early exit, run level by level over a batch of 8 terms (8 independent TwoSum chains in
//     flight, one vote per level). Dot products first split each product exactly: p = fl(a*b),
//     e = fma(a, b, -p) (TwoProductFMA, Ogita, Rump, Oishi 2005, Alg. 3.5); p enters the
//     expansion at term 0, e at term 1 (e is below ulp(p); any split of the terms among
//     accumulators keeps the sum exact). fpe = 0 skips this level.
//   level 2 (thread, shared memory; thread/lane_accumulator.cuh, warp/warp_ring.cuh): what the
//     expansion cannot hold goes to a private superaccumulator per thread (numerics/superacc_lanes.h: 43
//     int64 digits of 50 bits, each double cut into two digit pieces by five FP64 operations). A
//     private accumulator needs no atomics, so no carry can be lost to contention. Residues are
//     compacted per warp first (ballot + a 64-entry ring): a warp pays for a flush only when 32
//     are waiting. With `adaptive`, a warp whose expansion keeps leaving residues bypasses it for
//     a while (SuperaccAgent::adapt). lanes = 0 has no private accumulators: the residues go to
//     the block's shared one with atomics (measured slower where residues are frequent, so not
//     the default; docs/sum-dot-speed.md).
//   level 3 (block; block/block_merge.cuh): the lanes' digits are summed per warp with no carry
//     propagated (low and high parts, so no lane needs a final normalization), then per block,
//     and re-cut into core/numerics/superacc.hpp's 32-bit digits: one record per block in device memory.
//   level 4-5 (device; device/superacc_finish.cuh): every block adds its record into device-wide
//     digit totals with atomics (low and high parts, no carries); in the last block to finish one
//     warp propagates the carries as a parallel prefix and rounds as core's BasicSuperacc::round()
//     does; the host receives one double.
//
// Inputs that break the expansion's preconditions take a slow path (rare on real data): sum
// terms with |x| >= 2^970 or non-finite go straight to the private accumulator or to the
// special-value flags. Dot products outside [2^-968, 2^970) (where e would be inexact or p could
// have overflowed), zero products and special values go to an exact block-shared SuperaccDot
// (range 2^-2148 .. 2^2140) through shared-memory atomics on its 32-bit digits, whose 31
// headroom bits need no carries for 2^31 pieces (core/numerics/superacc.hpp). Why 2^-968 is enough: for
// normal a, b, |p| < 2^(ea+eb+2), so |p| >= 2^-968 gives ea+eb >= -969 and the exact product's
// lowest bit 2^(ea+eb-104) >= 2^-1073; if a is subnormal, |b| > 2^54 and the lowest bit is
// >= 2^-1074 * 2^2. Then a*b - p is a double and fma returns it exactly.
//
// The sign of an exact zero: term 0 of every expansion, and the tracker z of the terms that
// bypass it, start at -0.0 and stay -0.0 exactly while every term added was -0 (IEEE: -0 + -0 =
// -0, x + -x = +0); the slow paths set a flag for anything else. The result is -0 only if n > 0
// and no thread saw a term other than -0.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda/block/block_merge.cuh"
#include "backends/cuda/device/pair_sum_reduce.cuh"
#include "backends/cuda/device/superacc_finish.cuh"
#include "backends/cuda/agent/superacc_policy.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/agent/superacc_agent.cuh"
#include "backends/cuda/stream_enqueue.hpp"
#include "backends/cuda/thread/superacc_lanes.cuh"
#include "core/numerics/superacc.hpp"
#include "families/sum_dot/superacc_state.hpp"

namespace accsum::cuda {
namespace {

template <bool DOT>
using Record = SuperaccOf<DOT>;

// Shared-memory bytes for the block's flags after its record.
constexpr size_t kFlagsBytes = 16;

// Levels 1-5: each block reduces its share of the data into one record (SuperaccAgent::consume)
// and adds it into the device totals; the last block to finish rounds them. x (and y) are 16-byte
// aligned. Shared memory: one WarpArea per warp, then the block's Record and flags (reused by
// finish_totals at the end). gate: the bounded pass's {result, decided flag} (BoundedPass), launched
// before this kernel in the same stream: when the flag is set every block returns at once, block 0
// having copied the bounded result to out (so out holds the result either way). lean_tail: the
// block merge into 32-bit digit halves (placed after the flags) and the one-pass negation in the
// rounding (LeanTail).
template <class Policy>
__global__ void __launch_bounds__(Policy::kMaxBlockThreads, Policy::kMinBlocksPerSm)
    superacc_blocks(const double* __restrict__ x, const double* __restrict__ y, int64_t n,
                    DeviceTotals<typename Policy::Record>* __restrict__ totals, unsigned* __restrict__ done,
                    double* __restrict__ out, int adapt, int lean_tail, typename Policy::Record* merged,
                    const double* __restrict__ gate) {
  if (gate && gate[1] != 0.0) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *out = gate[0];
    return;
  }
  using R = typename Policy::Record;
  using Area = typename SuperaccAgent<Policy>::Area;
  extern __shared__ __align__(16) unsigned char smem[];
  const int warps = warp_of(blockDim.x), warp = warp_of(threadIdx.x), lane = lane_of(threadIdx.x);
  Area* areas = reinterpret_cast<Area*>(smem);
  auto* block_acc = reinterpret_cast<R*>(smem + sizeof(Area) * warps);
  auto* block_flags = reinterpret_cast<unsigned*>(block_acc + 1);
  DigitHalves<R>* halves = nullptr;
  if (Policy::kLanes && lean_tail)
    halves = reinterpret_cast<DigitHalves<R>*>(smem + sizeof(Area) * warps + sizeof(R) + kFlagsBytes);

  // Levels 1-2 (shared memory is cleared while the first loads are in flight).
  SuperaccAgent<Policy> agent;
  agent.init(areas[warp], lane, block_acc, adapt != 0);
  agent.consume(x, y, n, [&] {
    block_clear(block_acc, block_flags, halves);
    __syncthreads();
  });
  const unsigned wflags = agent.finish_thread();
  if (lane == 0) atomicOr(block_flags, wflags);

  // Level 3 (without private lanes the block's accumulator is complete once every warp is done).
  if constexpr (Policy::kLanes)
    block_merge_lanes(areas, block_acc, halves);
  else
    __syncthreads();
  block_add_totals(block_acc, block_flags, *totals, halves);

  // Level 5 in the last block to finish.
  if (!last_block_done(done)) return;
  finish_totals(*totals, n, out, smem, merged, lean_tail != 0);
  reset_block_counter(done);
}

// ---- host side ----

template <class Policy>
void launch_blocks(const double* x, const double* y, int64_t n, void* totals, unsigned* done, double* out, int adapt,
                   int lean_tail, int grid, int block, size_t smem, void* merged, const double* gate,
                   cudaStream_t stream) {
  using R = typename Policy::Record;
  superacc_blocks<Policy><<<grid, block, smem, stream>>>(x, y, n, static_cast<DeviceTotals<R>*>(totals), done, out,
                                                         adapt, lean_tail, static_cast<R*>(merged), gate);
}

using LaunchFn = void (*)(const double*, const double*, int64_t, void*, unsigned*, double*, int, int, int, int, size_t,
                          void*, const double*, cudaStream_t);

// One instantiation of the kernel: its launcher, its address (attributes, occupancy) and the shared
// memory each warp's area takes.
struct Variant {
  LaunchFn launch;
  const void* func;
  size_t area_bytes;
};
template <int FPE, bool EE, bool DOT, bool LANES = true>
Variant variant() {
  using P = SuperaccPolicy<FPE, EE, DOT, LANES>;
  return {launch_blocks<P>, reinterpret_cast<const void*>(superacc_blocks<P>), sizeof(typename SuperaccAgent<P>::Area)};
}

// lanes = 0 (the block's shared accumulator takes the residues) is built for the expansion sizes
// and early exit that keep residues rare: fpe 2, 4 or 8 with early_exit = 1.
template <bool DOT>
Variant pick(int fpe, bool ee, bool lanes) {
  if (!lanes) {
    if (!ee) throw UsageError("superacc: lanes=0 needs early_exit=1");
    if (fpe == 2) return variant<2, true, DOT, false>();
    if (fpe == 4) return variant<4, true, DOT, false>();
    if (fpe == 8) return variant<8, true, DOT, false>();
    throw UsageError("superacc: lanes=0 needs fpe 2, 4 or 8");
  }
#define ACCSUM_PICK(F) \
  if (fpe == F) return ee ? variant<F, true, DOT>() : variant<F, false, DOT>();
  if (fpe == 0) return variant<0, false, DOT>();
  ACCSUM_PICK(2)
  ACCSUM_PICK(3)
  ACCSUM_PICK(4)
  ACCSUM_PICK(6)
  ACCSUM_PICK(8)
#undef ACCSUM_PICK
  throw UsageError("superacc: fpe must be one of 0, 2, 3, 4, 6, 8");
}

// The bounded pass (device/pair_sum_reduce.cuh): one launch over the data, as many blocks as fit
// (no more than there is work for); gate() gates the exact kernel queued behind it, and
// read() tells whether its bound decided the rounding.
template <bool DOT>
class BoundedPass {
 public:
  // out: two doubles of device memory for {result, decided flag}.
  BoundedPass(const DeviceInput& in, double* out) : x_(in.x), y_(in.y), n_(in.n), out_(out), done_(1) {
    using P = PairSumPolicy;
    const auto kernel = pair_sum_blocks<P, DOT>;
    int per_sm = 0;
    // The exact kernel queued behind this one takes most of the shared memory: this one asks for the
    // same split, so the SMs need not be reconfigured between the two launches.
    ACCSUM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    ACCSUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, P::kThreads, 0));
    const int64_t work = ceil_div(n_ / 2, P::kThreads * P::kVecs);
    grid_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(int64_t(sm_count()) * std::max(per_sm, 1), work)));
    partials_ = DeviceBuffer<PairSum>(grid_);
    scale_ = pair_bound_scale(pair_sum_depth(n_, grid_, DOT ? 2 : 1));
    slack_ = DOT ? pair_dot_slack(n_) : 0.0;
    ACCSUM_CUDA_CHECK(cudaMemset(done_.get(), 0, sizeof(unsigned)));
  }
  void launch(cudaStream_t stream = nullptr) {
    pair_sum_blocks<PairSumPolicy, DOT>
        <<<grid_, PairSumPolicy::kThreads, 0, stream>>>(x_, y_, n_, partials_.get(), done_.get(), scale_, slack_, out_);
  }
  // {result, decided flag (1.0 when the bound decided)} on the device, for the exact kernel's gate.
  const double* gate() const { return out_; }

 private:
  const double *x_, *y_;
  int64_t n_;
  int grid_ = 1;
  double scale_ = 0, slack_ = 0;
  DeviceBuffer<PairSum> partials_;
  double* out_;
  DeviceBuffer<unsigned> done_;
};

template <bool DOT>
class SuperaccCuda : public CudaKernel, public StreamEnqueue {
 public:
  SuperaccCuda(const Problem& p, const Params& params) : CudaKernel(p), out_(kOutDoubles), done_(1), totals_(1) {
    const int fpe = static_cast<int>(param_int(params, "fpe"));
    const bool ee = param_int(params, "early_exit") != 0;
    block_ = static_cast<int>(param_int(params, "block"));
    adaptive_ = static_cast<int>(param_int(params, "adaptive"));
    lean_tail_ = static_cast<int>(param_int(params, "lean_tail"));
    const bool lanes = param_int(params, "lanes") != 0;
    const Variant v = pick<DOT>(fpe, ee, lanes);
    launch_ = v.launch;
    const void* func = v.func;
    if ((reinterpret_cast<uintptr_t>(in_->x) | reinterpret_cast<uintptr_t>(in_->y)) & 15)
      throw std::logic_error("superacc (cuda): device input is not 16-byte aligned");
    using Policy = SuperaccPolicy<0, false, DOT>;  // the tuning constants do not depend on fpe
    const size_t halves = lanes && lean_tail_ ? sizeof(DigitHalves<Record<DOT>>) : 0;
    smem_ = std::max(v.area_bytes * (block_ / kWarpThreads) + sizeof(Record<DOT>) + kFlagsBytes + halves,
                     finish_scratch_bytes<Record<DOT>>());
    ACCSUM_CUDA_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_)));
    int per_sm = 0;
    ACCSUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, block_, smem_));
    if (per_sm < 1) throw UsageError("superacc (cuda): block=" + std::to_string(block_) + " does not fit on this GPU");
    const int64_t grid_param = param_int(params, "grid");
    int64_t grid = grid_param > 0 ? grid_param : static_cast<int64_t>(sm_count()) * per_sm;
    if (grid_param == 0) {  // no more blocks than there is work for
      const int64_t work = ceil_div(in_->n / 2, static_cast<int64_t>(block_) * Policy::kVecsPerThread);
      grid = std::max<int64_t>(1, std::min(grid, work));
    }
    // Bound the terms per block so that block-shared digits (dot slow path) stay under 2^31 pieces.
    grid = std::max(grid, (in_->n >> Policy::kLogMaxTermsPerBlock) + 1);
    grid_ = static_cast<int>(std::min<int64_t>(grid, Policy::kMaxGrid));
    ACCSUM_CUDA_CHECK(cudaMemset(done_.get(), 0, sizeof(unsigned)));
    ACCSUM_CUDA_CHECK(cudaMemset(totals_.get(), 0, sizeof(DeviceTotals<Record<DOT>>)));
    const int64_t bytes = in_->n * static_cast<int64_t>(sizeof(double)) * (DOT ? 2 : 1);
    l2_bytes_ = l2_cache_bytes();
    if (bounded_pass_first(superacc_bounded_mode(params), bytes, l2_bytes_))
      bounded_ = std::make_unique<BoundedPass<DOT>>(*in_, out_.get() + 1);
  }

  // With the bounded pass: it runs first and the exact kernel, queued behind it, returns at once
  // where the bound decided (no round trip to the host between them); the time covers both. One copy
  // brings back the result (which the gated kernel wrote either way) and the bounded pass's flag.
  double run() override {
    timer_.start();
    if (bounded_) bounded_->launch();
    launch_(in_->x, in_->y, in_->n, totals_.get(), done_.get(), out_.get(), adaptive_, lean_tail_, grid_, block_, smem_,
            nullptr, bounded_ ? bounded_->gate() : nullptr, nullptr);
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    last_ = timer_.stop_seconds();
    double h[kOutDoubles];
    ACCSUM_CUDA_CHECK(cudaMemcpy(h, out_.get(), (bounded_ ? kOutDoubles : 1) * sizeof(double), cudaMemcpyDeviceToHost));
    decided_ = bounded_ && h[2] != 0.0;
    return h[0];
  }

  // The same launches queued on the caller's stream, the result left in device memory at out: no
  // event, no copy, no wait. Calls on one kernel must share a stream (totals_ and done_ are reused).
  void enqueue(double* out, void* stream) override {
    const auto s = static_cast<cudaStream_t>(stream);
    if (bounded_) bounded_->launch(s);
    launch_(in_->x, in_->y, in_->n, totals_.get(), done_.get(), out, adaptive_, lean_tail_, grid_, block_, smem_,
            nullptr, bounded_ ? bounded_->gate() : nullptr, s);
    ACCSUM_CUDA_CHECK(cudaGetLastError());
  }

  // bounded_pass: whether the bounded pass ran first (bounded=auto chooses by size and l2_bytes, the
  // L2 size the device reports); bounded_decided: whether it decided the rounding.
  std::vector<std::pair<std::string, double>> figures() const override {
    std::vector<std::pair<std::string, double>> f = {{"l2_bytes", double(l2_bytes_)},
                                                     {"bounded_pass", bounded_ ? 1.0 : 0.0}};
    if (bounded_) f.push_back({"bounded_decided", decided_ ? 1.0 : 0.0});
    return f;
  }

  // The exact, unrounded result (levels 1-4, without rounding) for the mpi backend's inner=cuda:
  // the finishing block stores its merged record, and only that one record comes back.
  Record<DOT> run_unrounded() {
    if (!merged_.get()) merged_ = DeviceBuffer<Record<DOT>>(1);
    launch_(in_->x, in_->y, in_->n, totals_.get(), done_.get(), out_.get(), adaptive_, lean_tail_, grid_, block_, smem_,
            merged_.get(), nullptr, nullptr);
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    Record<DOT> acc;
    ACCSUM_CUDA_CHECK(cudaMemcpy(&acc, merged_.get(), sizeof acc, cudaMemcpyDeviceToHost));
    acc.normalize();
    return acc;
  }

 private:
  // out_: the result, then the bounded pass's {result, decided flag}.
  static constexpr int kOutDoubles = 3;
  LaunchFn launch_ = nullptr;
  int block_ = 256, grid_ = 1, adaptive_ = 1, lean_tail_ = 0;
  int64_t l2_bytes_ = 0;
  size_t smem_ = 0;
  DeviceBuffer<double> out_;
  DeviceBuffer<unsigned> done_;                     // blocks finished; the last one resets it
  DeviceBuffer<DeviceTotals<Record<DOT>>> totals_;  // the blocks' records summed; the last block resets them
  DeviceBuffer<Record<DOT>> merged_;                // run_unrounded's result
  std::unique_ptr<BoundedPass<DOT>> bounded_;       // when it runs first (bounded_pass_first)
  bool decided_ = false;                            // the last run's bounded pass decided
  EventTimer timer_;
};

// Defaults: the configuration measured fastest on the H200 (results/superacc_cuda_*.json).
std::vector<ParamSpec> superacc_params(const char* fpe, const char* early_exit, const char* adaptive,
                                       const char* block) {
  return {
      ParamSpec{"fpe",
                "level-1 expansion size n (0 = pure superaccumulator)",
                true,
                0,
                8,
                {"0", "2", "3", "4", "6", "8"},
                fpe},
      ParamSpec{
          "early_exit", "stop the expansion when the residue is zero (warp-wide vote)", true, 0, 1, {}, early_exit},
      ParamSpec{"adaptive",
                "bypass the expansion while it leaves residues in more than 4 of 16 batches",
                true,
                0,
                1,
                {},
                adaptive},
      ParamSpec{"lanes",
                "private accumulators per thread (1) or atomics on the block's shared one (0; CUDA: fpe 2, 4, 8, "
                "early_exit 1)",
                true,
                0,
                1,
                {},
                "1"},
      ParamSpec{"lean_tail",
                "exact kernel's block merge by 32-bit shared-memory atomics and one-pass negation in the rounding "
                "(1), or 64-bit atomics (compare-and-swap loops) and a second normalization (0); same bits",
                true,
                0,
                1,
                {},
                "0"},
      ParamSpec{"block", "threads per block", true, 128, 512, {"128", "256", "512"}, block},
      ParamSpec{"grid", "blocks (0 = as many as fit on the GPU at once)", true, 0, 1 << 20, {}, "0"},
  };
}

// Launch shapes that must give the same bits (correct rounding makes any shape agree).
std::vector<Params> superacc_shapes(const Params& p) {
  std::vector<Params> v = variants_of(p, "block", {"128", "256", "512"});
  v.push_back(with_param(p, "grid", "37"));
  v.push_back(with_param(p, "lean_tail", p.count("lean_tail") && p.at("lean_tail") == "1" ? "0" : "1"));
  return v;
}

// The mergeable state (families/sum_dot/superacc_state.hpp): the GPU adds a slice and hands back the
// exact, unrounded superaccumulator (the mpi backend's inner=cuda: MPI merges the ranks' and rounds
// once, Collange et al. 2015, level 4). Parameters: the cuda entry's, as the caller resolved them.
template <bool DOT>
std::unique_ptr<MergeableState> superacc_state(const Params& q) {
  auto kept = std::make_shared<KeptKernel<SuperaccCuda<DOT>>>();
  return std::make_unique<SuperaccState<Record<DOT>>>([q, kept](const Problem& s, Record<DOT>& acc) {
    acc.merge(kept->for_slice(s, [&] { return std::make_unique<SuperaccCuda<DOT>>(s, q); }).run_unrounded());
  });
}

template <bool DOT>
AlgoEntry superacc_cuda(const std::string& summary) {
  auto params = superacc_params("0", "0", "1", "512");
  params.push_back(superacc_bounded_param());
  return superacc_entry(DOT, "cuda", summary, std::move(params), make_kernel_of<SuperaccCuda<DOT>>)
      .shapes(superacc_shapes)
      .generates_by_index()
      .mergeable(superacc_state<DOT>);
}

Registrar reg_superacc(superacc_cuda<false>(
    "correctly rounded sum: per-thread FP expansion + private shared-memory superaccumulators (Collange, Defour, "
    "Graillat, Iakymchuk 2015)"));
Registrar reg_superacc_dot(
    superacc_cuda<true>("correctly rounded dot: TwoProductFMA + per-thread FP expansion + superaccumulators "
                        "(Collange, Defour, Graillat, Iakymchuk 2015)"));

}  // namespace
}  // namespace accsum::cuda
