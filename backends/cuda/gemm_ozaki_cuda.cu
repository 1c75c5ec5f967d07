// sgemm-ozaki and dgemm-ozaki on CUDA: the Ozaki scheme II of families/gemm/ozaki.hpp, bit for bit the
// cpu backend's; one pipeline templated on the input format F (float, double).
//
// Phases of one run (each timed with events; Result::figures report the split):
//   scale:    row summaries of A and column summaries of B (max |entry| bits, lowest set bit),
//             then their integer norm sums (families/gemm/ozaki_bound.hpp), read back (3(M + N)
//             words) to choose the plan and each row's error bound on the host; then the symmetric int8
//             residues of the scaled A (transposed through shared memory to row-major, the "T"
//             operand) and B, one plane per modulus, zero-padded to multiples of 32.
//   products: one cuBLAS int8 GEMM per modulus and block of 2^16 inner indices (CUDA_R_8I in,
//             CUDA_R_32I out, CUBLAS_COMPUTE_32I, TN layout, leading dimensions multiples of 32);
//             between blocks the int32 planes are reduced mod p_l so the next block adds exactly.
//   combine:  one pass over the L int32 planes: residues, CRT to the exact 128-bit (double: 256-bit)
//             C', alpha C' + beta c rounded once to F (the accumulation and the rounding fused: each
//             entry's L words are read once and one value written).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "families/gemm/gemm_host.hpp"
#include "backends/cuda/agent/ozaki_agent.cuh"
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/int8_gemm.cuh"
#include "backends/cuda/stream_enqueue.hpp"
#include "backends/cuda/warp/warp.cuh"
#include "core/numerics/float_entry.hpp"
#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_run.hpp"

namespace accsum::cuda {
namespace {

// Calls f(std::integral_constant<int, L>{}) for L = moduli (kMinModuli..Max).
template <int Max, int L = ozaki::kMinModuli, class Fn>
void with_moduli(int moduli, Fn&& f) {
  if constexpr (L < Max) {
    if (moduli != L) return with_moduli<Max, L + 1>(moduli, std::forward<Fn>(f));
  }
  return f(std::integral_constant<int, L>{});
}

class Event {
 public:
  Event() { ACCSUM_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record() { ACCSUM_CUDA_CHECK(cudaEventRecord(e_)); }
  double seconds_since(const Event& from) const {
    float ms = 0;
    ACCSUM_CUDA_CHECK(cudaEventElapsedTime(&ms, from.e_, e_));
    return ms * 1e-3;
  }
  void sync() { ACCSUM_CUDA_CHECK(cudaEventSynchronize(e_)); }

 private:
  cudaEvent_t e_{};
};

template <class T>
DeviceBuffer<T> upload(const T* host, size_t n) {
  DeviceBuffer<T> d(n);
  if (n) ACCSUM_CUDA_CHECK(cudaMemcpy(d.get(), host, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// A call's line summaries and norm sums in one device block with a pinned host mirror, so that each
// read-back is one copy: [row S1, S2 | col S1, S2] (uint64), [row | col max bits], [row | col low].
template <class F>
class LineSummaries {
  using Bits = BitsOf<F>;
  using Sum = unsigned long long;  // what atomicAdd takes; read back as uint64
  static_assert(sizeof(Sum) == sizeof(uint64_t), "the norm sums are read back as uint64");

 public:
  LineSummaries(int64_t M, int64_t N)
      : M_(M),
        N_(N),
        max_at_(2 * (M + N) * sizeof(Sum)),
        low_at_(max_at_ + (M + N) * sizeof(Bits)),
        bytes_(low_at_ + (M + N) * sizeof(int)),
        device_(bytes_) {
    if (bytes_) ACCSUM_CUDA_CHECK(cudaMallocHost(&host_, bytes_));
  }
  ~LineSummaries() {
    if (host_) cudaFreeHost(host_);
  }
  LineSummaries(const LineSummaries&) = delete;
  LineSummaries& operator=(const LineSummaries&) = delete;

  Sum* row_s() const { return reinterpret_cast<Sum*>(device_.get()); }  // S1 then S2
  Sum* col_s() const { return row_s() + 2 * M_; }
  Bits* row_max() const { return reinterpret_cast<Bits*>(device_.get() + max_at_); }
  Bits* col_max() const { return row_max() + M_; }
  int* row_low() const { return reinterpret_cast<int*>(device_.get() + low_at_); }
  int* col_low() const { return row_low() + M_; }

  // Sums and maxima 0, lows 0x7f7f7f7f (above any exponent).
  void clear() {
    if (bytes_ == 0) return;
    ACCSUM_CUDA_CHECK(cudaMemsetAsync(device_.get(), 0, low_at_));
    ACCSUM_CUDA_CHECK(cudaMemsetAsync(device_.get() + low_at_, 0x7f, bytes_ - low_at_));
  }
  // One copy (after the stream's kernels) of the maxima and lows, and the sums with `sums`; then the
  // rows' and columns' LinesOf.
  void read_back(bool sums, ozaki::LinesOf<F>* rows, ozaki::LinesOf<F>* cols) {
    if (bytes_ == 0) return;
    const size_t from = sums ? 0 : max_at_;
    ACCSUM_CUDA_CHECK(cudaMemcpy(host_ + from, device_.get() + from, bytes_ - from, cudaMemcpyDeviceToHost));
    const auto* max = reinterpret_cast<const Bits*>(host_ + max_at_);
    const auto* low = reinterpret_cast<const int*>(host_ + low_at_);
    const auto* s = reinterpret_cast<const uint64_t*>(host_);
    rows->max_bits.assign(max, max + M_);
    cols->max_bits.assign(max + M_, max + M_ + N_);
    rows->low.assign(low, low + M_);
    cols->low.assign(low + M_, low + M_ + N_);
    if (!sums) {  // no sums this time: none kept from an earlier call (clear keeps the storage)
      for (auto* l : {rows, cols}) {
        l->s1.clear();
        l->s2.clear();
      }
      return;
    }
    rows->s1.assign(s, s + M_);
    rows->s2.assign(s + M_, s + 2 * M_);
    cols->s1.assign(s + 2 * M_, s + 2 * M_ + N_);
    cols->s2.assign(s + 2 * M_ + N_, s + 2 * (M_ + N_));
  }

 private:
  int64_t M_, N_;
  size_t max_at_, low_at_, bytes_;
  DeviceBuffer<char> device_;
  char* host_ = nullptr;
};

template <class F>
class OzakiCudaKernel : public Kernel, public DeviceProduct {
  static constexpr int kMost = ozaki::Format<F>::kMaxModuli;
  using Bits = BitsOf<F>;

 public:
  OzakiCudaKernel(const Problem& p, int moduli, ozaki::Accuracy accuracy)
      : p_(p),
        moduli_(moduli),
        accuracy_(accuracy),
        Mp_(round_up(p.rows, kTile)),
        Np_(round_up(p.cols, kTile)),
        Kp_(round_up(p.inner, kTile)) {
    alpha_ = data_scalar<F>(p.data, "alpha", F(1));
    beta_ = data_scalar<F>(p.data, "beta", F(0));
    const int planes = moduli_ == 0 ? kMost : moduli_;
    if (!p.on_device) {  // on device matrices (multiply_into), the caller's a, b and out are used in place
      Event t0, t1;
      t0.record();
      a_ = upload(p.*MatricesOf<F>::pa, static_cast<size_t>(p.rows * p.inner));
      b_ = upload(p.*MatricesOf<F>::pb, static_cast<size_t>(p.inner * p.cols));
      c_ = upload(p.*MatricesOf<F>::pc, static_cast<size_t>(p.rows * p.cols));
      t1.record();
      t1.sync();
      upload_s_ = t1.seconds_since(t0);
      out_ = DeviceBuffer<F>(entries());
    }
    ra_ = DeviceBuffer<int8_t>(static_cast<size_t>(planes * Mp_ * Kp_));
    rb_ = DeviceBuffer<int8_t>(static_cast<size_t>(planes * Kp_ * Np_));
    t_ = DeviceBuffer<int32_t>(static_cast<size_t>(planes * Mp_ * Np_));
    lines_ = std::make_unique<LineSummaries<F>>(p.rows, p.cols);
  }

  void execute() override {
    if (entries() == 0 || (p_.on_device && !out_in_)) return;
    Event start, planned, tuned, scaled, products, combined, done;
    start.record();
    summarize_and_plan();
    planned.record();
    tune_products();  // once per shape and process; not part of the call's time
    tuned.record();
    with_moduli<kMost>(plan_.moduli, [&](auto L) { make_residues<decltype(L)::value>(); });
    scaled.record();
    multiply();
    products.record();
    with_moduli<kMost>(plan_.moduli, [&](auto L) { combine_entries<decltype(L)::value>(); });
    combined.record();
    sum_flagged_exactly();
    done.record();
    done.sync();
    ACCSUM_CUDA_CHECK(cudaGetLastError());
    scale_s_ = planned.seconds_since(start) + scaled.seconds_since(tuned);
    products_s_ = products.seconds_since(scaled);
    combine_s_ = combined.seconds_since(products);
    exact_entries_s_ = done.seconds_since(combined);
    last_ = scale_s_ + done.seconds_since(scaled);
  }

  void multiply_into(const void* a, const void* b, void* out, void* stream) override {
    if (!p_.on_device) throw std::logic_error("multiply_into needs a kernel made on device matrices");
    a_in_ = static_cast<const F*>(a);
    b_in_ = static_cast<const F*>(b);
    out_in_ = static_cast<F*>(out);
    // The phases run on the legacy default stream (the plan is made on the host between them): it
    // waits for the caller's stream, and execute() returns when the last phase is done.
    cudaEvent_t queued{};
    ACCSUM_CUDA_CHECK(cudaEventCreateWithFlags(&queued, cudaEventDisableTiming));
    cudaError_t err = cudaEventRecord(queued, static_cast<cudaStream_t>(stream));
    if (err == cudaSuccess) err = cudaStreamWaitEvent(cudaStreamLegacy, queued, 0);
    cudaEventDestroy(queued);
    ACCSUM_CUDA_CHECK(err);
    try {
      execute();
    } catch (...) {
      out_in_ = nullptr;
      throw;
    }
    out_in_ = nullptr;
  }

  Result result() override {
    if (p_.on_device) throw std::logic_error("a product of device matrices is in the caller's matrix");
    std::vector<F> h(out_.size());
    if (!h.empty()) ACCSUM_CUDA_CHECK(cudaMemcpy(h.data(), out_.get(), h.size() * sizeof(F), cudaMemcpyDeviceToHost));
    auto figures = ozaki::plan_info<F>(plan_, p_.inner, accuracy_, row_bound_, exact_entries_);
    const double ops = 2.0 * double(Mp_) * double(Np_) * double(Kp_) * plan_.moduli;
    const double tops = products_s_ > 0 ? ops / products_s_ : 0;
    figures.insert(figures.end(), {{"ozaki_scale_s", scale_s_},
                                   {"ozaki_products_s", products_s_},
                                   {"ozaki_accumulate_round_s", combine_s_},
                                   {"ozaki_exact_entries_s", exact_entries_s_},
                                   {"ozaki_int8_tops", tops * 1e-12},
                                   {"ozaki_int8_tuning_s", tune_s_},
                                   {"ozaki_int8_launches", static_cast<double>(int8_launches())},
                                   {"ozaki_int8_peak_share", tops / kInt8PeakOps}});
    std::vector<double> v(h.begin(), h.end());
    v.insert(v.end(), row_bound_.begin(), row_bound_.end());
    return Result{std::move(v), ozaki::kWithRowBounds, figures};
  }
  double last_device_seconds() const override { return last_; }
  double transfer_seconds() const override { return upload_s_; }

 private:
  // Line summaries on the device, read back; the plan on the host. The accuracy modes always need the
  // norm sums: those are made before the one read-back; a cr plan needs them only when it leaves
  // lines uncovered or the norms may lower its moduli (a second read-back).
  void summarize_and_plan() {
    const int64_t M = p_.rows, N = p_.cols, K = p_.inner;
    constexpr int64_t kColsPerBlock = 64;  // row summaries and norms: columns per block
    // 16-byte loads where the columns of A (B) are a multiple of kVec entries long.
    const bool rows_vec = M % kVec<F> == 0, cols_vec = K % kVec<F> == 0;
    const int64_t rows_per_block = 256 * (rows_vec ? kVec<F> : 1);
    const dim3 rg(capped((M + rows_per_block - 1) / rows_per_block, 1 << 30),
                  capped((K + kColsPerBlock - 1) / kColsPerBlock, 65535));
    const dim3 rg_one(capped((M + 255) / 256, 1 << 30), rg.y);
    const dim3 cg(capped(N, 1 << 30), capped((K + kSummaryChunk - 1) / kSummaryChunk, 65535));
    LineSummaries<F>& l = *lines_;
    auto norm_sums = [&] {
      if (K == 0) return;
      // One row per thread: the norm terms' conversions make this pass compute-bound, and 4 (doubles: 2) rows
      // per thread measured slower on an H100 (0.128 against 0.101 ms at N = 8192).
      row_norms<<<rg_one, 256>>>(a(), M, K, kColsPerBlock, l.row_max(), l.row_s(), l.row_s() + M);
      with_vec(cols_vec, [&](auto v) {
        col_norms<decltype(v)::value><<<cg, 256>>>(b(), K, N, l.col_max(), l.col_s(), l.col_s() + N);
      });
    };
    l.clear();
    if (K > 0) {
      with_vec(rows_vec, [&](auto v) {
        row_summaries<decltype(v)::value><<<rg, 256>>>(a(), M, K, kColsPerBlock, l.row_max(), l.row_low());
      });
      with_vec(cols_vec,
               [&](auto v) { col_summaries<decltype(v)::value><<<cg, 256>>>(b(), K, N, l.col_max(), l.col_low()); });
    }
    const bool sums_first = ozaki::chooses_by_bound(accuracy_, moduli_);
    if (sums_first) norm_sums();
    // The GPU waits while the host plans: the lines, norms and bounds are members, so that their storage
    // is reused from call to call (fresh pages cost more than the plan's arithmetic).
    l.read_back(sums_first, &rows_, &cols_);
    const ozaki::Plan cover = ozaki::cover_plan(K, rows_, cols_, moduli_);
    row_bound_.assign(static_cast<size_t>(M), 0.0);  // an exact plan's bound
    if (!ozaki::needs_norms<F>(cover, K, accuracy_, moduli_)) {
      plan_ = cover;
      return;
    }
    if (!sums_first) {
      norm_sums();
      l.read_back(true, &rows_, &cols_);
    }
    // The norms as doubles: for a choice by the bound, and for the row bounds of a plan that is not exact
    // (an exact plan lowered by the norms needs only their integer sums).
    const bool by_bound = sums_first;
    if (by_bound) {
      ozaki::norms_into(rows_, row_norms_);
      ozaki::norms_into(cols_, col_norms_);
    }
    plan_ = ozaki::refine_plan(K, rows_, cols_, cover, accuracy_, moduli_, row_norms_, col_norms_);
    if (plan_.exact()) return;
    if (!by_bound) {
      ozaki::norms_into(rows_, row_norms_);
      ozaki::norms_into(cols_, col_norms_);
    }
    ozaki::plan_row_bounds(plan_, K, row_norms_, col_norms_, alpha_, row_bound_);
  }

  // A side of at most kNarrowSideBits bits (floats only) takes the 32-bit residue form.
  template <int L>
  void make_residues() {
    const dim3 block(kTile, kRowsPerPass);
    const dim3 rg(capped(Kp_ / kTile, 1 << 20), capped(Mp_ / kTile, 65535));
    const dim3 cg(capped((Kp_ / kPack + 255) / 256, 1 << 20), capped(Np_, 65535));
    const int64_t M = p_.rows, N = p_.cols, K = p_.inner;
    with_narrow(plan_.bits_a, [&](auto narrow) {
      residues_rows<L, decltype(narrow)::value>
          <<<rg, block>>>(a(), M, K, Mp_, Kp_, lines_->row_max(), plan_.bits_a, ra_.get());
    });
    with_narrow(plan_.bits_b, [&](auto narrow) {
      residues_cols<L, decltype(narrow)::value>
          <<<cg, 256>>>(b(), K, N, Kp_, Np_, lines_->col_max(), plan_.bits_b, rb_.get());
    });
  }
  // fn(V) with V = kVec<F> (16-byte loads) when `vec`, else 1, as a std::integral_constant.
  template <class Fn>
  static void with_vec(bool vec, Fn&& fn) {
    if (vec) return fn(std::integral_constant<int, kVec<F>>{});
    fn(std::integral_constant<int, 1>{});
  }
  template <class Fn>
  static void with_narrow(int bits, Fn&& fn) {
    if constexpr (std::is_same_v<F, float>)
      if (bits <= ozaki::kNarrowSideBits) return fn(std::true_type{});
    fn(std::false_type{});
  }

  // The int8 products of the inner block from k0, one per modulus, as one strided batch (run as one launch or one
  // per modulus, whichever the tuning found faster): T_l (+)= A_l^T B_l, column-major Mp x Np.
  Int8GemmShape block_shape(int64_t k0) const {
    const int kb = static_cast<int>(std::min<int64_t>(ozaki::kBlockK, Kp_ - k0));
    Int8GemmShape s{static_cast<int>(Mp_), static_cast<int>(Np_), kb,    static_cast<int>(Kp_),
                    static_cast<int>(Kp_), static_cast<int>(Mp_), k0 > 0};
    s.batch = plan_.moduli;
    s.stride_a = Mp_ * Kp_;
    s.stride_b = Kp_ * Np_;
    s.stride_c = Mp_ * Np_;
    return s;
  }
  // Chooses the products' algorithm for every block shape of this plan's moduli (int8_gemm.cuh; done once per
  // shape and process) on spread bytes in the planes, which make_residues overwrites before any product is used.
  void tune_products() {
    if (Mp_ == 0 || Np_ == 0 || Kp_ == 0) return;
    const size_t pa = static_cast<size_t>(Mp_ * Kp_) * plan_.moduli, pb = static_cast<size_t>(Kp_ * Np_) * plan_.moduli;
    for (int64_t k0 = 0; k0 < Kp_; k0 += ozaki::kBlockK) {
      if (products_.tuned(block_shape(k0))) continue;
      fill_tuning_bytes<<<capped((pa + 255) / 256, 1 << 16), 256>>>(ra_.get(), pa);
      fill_tuning_bytes<<<capped((pb + 255) / 256, 1 << 16), 256>>>(rb_.get(), pb);
      ACCSUM_CUDA_CHECK(cudaGetLastError());
      tune_s_ += products_.tune(block_shape(k0), ra_.get() + k0, rb_.get() + k0, t_.get());
    }
  }

  // The int8 GEMM launches of one call: per inner block, one batch or one per modulus (as tuned).
  int int8_launches() const {
    int n = 0;
    for (int64_t k0 = 0; k0 < Kp_; k0 += ozaki::kBlockK) n += products_.launches(block_shape(k0));
    return n;
  }

  // The int8 GEMMs of every modulus per inner block, reducing the planes mod p_l between blocks.
  void multiply() {
    const size_t pt = static_cast<size_t>(Mp_ * Np_);
    for (int64_t k0 = 0; k0 < Kp_; k0 += ozaki::kBlockK) {
      if (k0 > 0)
        with_moduli<kMost>(plan_.moduli, [&](auto L) {
          reduce_planes<decltype(L)::value><<<capped((pt + 255) / 256, 1 << 16), 256>>>(t_.get(), pt);
        });
      products_.run(block_shape(k0), ra_.get() + k0, rb_.get() + k0, t_.get());
    }
  }

  template <int L>
  void combine_entries() {
    CombineArgs<F> g{p_.rows,
                     p_.cols,
                     p_.inner,
                     Mp_,
                     static_cast<size_t>(Mp_ * Np_),
                     lines_->row_max(),
                     lines_->col_max(),
                     plan_.bits_a,
                     plan_.bits_b,
                     alpha_,
                     beta_,
                     a(),
                     b(),
                     c_.get(),
                     0,
                     0,
                     false,
                     nullptr,
                     nullptr,
                     0.0,
                     nullptr,
                     nullptr};
    if (alpha_ != F(0)) {
      ozaki::split_scalar(alpha_, &g.alpha_m, &g.alpha_e);
      g.alpha_power_of_two = ozaki::power_of_two_scalar<F>(g.alpha_m);
    }
    if (flags_entries()) flag_unproven(g);
    args_ = g;
    dim3 grid(capped((p_.rows + 255) / 256, 1 << 20), capped((p_.cols + kCombineCols - 1) / kCombineCols, 65535));
    if constexpr (std::is_same_v<F, float>)
      if (flags_entries()) {
        combine<L, F, true><<<grid, 256>>>(t_.get(), g, CrtFormOf<F>::make(plan_), out());
        return;
      }
    combine<L, F, false><<<grid, 256>>>(t_.get(), g, CrtFormOf<F>::make(plan_), out());
  }

  // The faithful check's inputs in g: each line's terms of the entry bound (uploaded), a cleared bitmap and count.
  void flag_unproven(CombineArgs<F>& g) {
    const size_t words = flag_words();
    if (flagged_.size() < words) flagged_ = DeviceBuffer<uint32_t>(words);
    const size_t M = static_cast<size_t>(p_.rows), N = static_cast<size_t>(p_.cols);
    line_terms_.resize(M + N);
    for (size_t i = 0; i < M; ++i) line_terms_[i] = ozaki::line_terms(row_norms_, i, plan_.bits_a);
    for (size_t j = 0; j < N; ++j) line_terms_[M + j] = ozaki::line_terms(col_norms_, j, plan_.bits_b);
    if (line_terms_d_.size() < M + N) line_terms_d_ = DeviceBuffer<ozaki::LineTerms>(M + N);
    ACCSUM_CUDA_CHECK(cudaMemcpyAsync(line_terms_d_.get(), line_terms_.data(), (M + N) * sizeof(ozaki::LineTerms),
                                      cudaMemcpyHostToDevice));
    ACCSUM_CUDA_CHECK(cudaMemsetAsync(flagged_.get(), 0, words * sizeof(uint32_t)));
    ACCSUM_CUDA_CHECK(cudaMemsetAsync(flagged_count_.get(), 0, sizeof(unsigned long long)));
    g.row_terms = line_terms_d_.get();
    g.col_terms = line_terms_d_.get() + M;
    g.abs_alpha = std::fabs(static_cast<double>(alpha_));
    g.flagged = flagged_.get();
    g.flagged_count = flagged_count_.get();
  }

  // --accuracy=faithful on floats (ozaki::checks_each_entry): combine flags the entries whose own bound does not
  // prove them faithful, and exact_flagged sums those exactly.
  size_t flag_words() const { return static_cast<size_t>(ceil_div(static_cast<int64_t>(entries()), kFlagBits)); }
  bool flags_entries() const { return std::is_same_v<F, float> && ozaki::checks_each_entry(accuracy_, plan_); }
  // The count is read back (the host sizes the list by it, and the report gives it); none flagged: nothing to do.
  void sum_flagged_exactly() {
    exact_entries_ = 0;
    if constexpr (std::is_same_v<F, float>) {
      if (!flags_entries()) return;
      unsigned long long count = 0;
      ACCSUM_CUDA_CHECK(cudaMemcpy(&count, flagged_count_.get(), sizeof count, cudaMemcpyDeviceToHost));
      exact_entries_ = static_cast<int64_t>(count);
      if (count == 0) return;
      if (flagged_list_.size() < count) flagged_list_ = DeviceBuffer<uint64_t>(count);
      ACCSUM_CUDA_CHECK(cudaMemsetAsync(flagged_next_.get(), 0, sizeof(unsigned long long)));
      const size_t words = flag_words();
      constexpr int kWarpsPerBlock = 8, kBlocksPerSm = 16, kCompactThreads = 256;
      const int64_t most = int64_t{sm_count()} * kBlocksPerSm;
      compact_flagged<<<capped(ceil_div(static_cast<int64_t>(words), kCompactThreads), most), kCompactThreads>>>(
          flagged_.get(), words, flagged_next_.get(), flagged_list_.get());
      exact_flagged<<<capped(ceil_div(static_cast<int64_t>(count), kWarpsPerBlock), most),
                      kWarpThreads * kWarpsPerBlock>>>(flagged_list_.get(), count, args_, out());
    }
  }

  // The matrices: uploaded ones, or the caller's device matrices during multiply_into.
  const F* a() const { return a_in_ ? a_in_ : a_.get(); }
  const F* b() const { return b_in_ ? b_in_ : b_.get(); }
  F* out() const { return out_in_ ? out_in_ : out_.get(); }
  size_t entries() const { return static_cast<size_t>(p_.rows * p_.cols); }

  Problem p_;
  int moduli_;
  ozaki::Accuracy accuracy_;
  std::vector<double> row_bound_;
  ozaki::LinesOf<F> rows_, cols_;           // the lines' summaries as read back
  ozaki::LineNorms row_norms_, col_norms_;  // and their norms, where the plan needs them
  int64_t Mp_, Np_, Kp_;
  F alpha_ = 1, beta_ = 0;
  DeviceBuffer<F> a_, b_, c_, out_;
  const F* a_in_ = nullptr;
  const F* b_in_ = nullptr;
  F* out_in_ = nullptr;
  DeviceBuffer<int8_t> ra_, rb_;
  DeviceBuffer<int32_t> t_;
  std::unique_ptr<LineSummaries<F>> lines_;
  Int8Gemm products_;
  ozaki::Plan plan_;
  CombineArgs<F> args_{};                     // the last combine's, for exact_flagged
  std::vector<ozaki::LineTerms> line_terms_;  // rows, then columns
  DeviceBuffer<ozaki::LineTerms> line_terms_d_;
  DeviceBuffer<uint32_t> flagged_;  // one bit per entry of C
  DeviceBuffer<unsigned long long> flagged_count_{1}, flagged_next_{1};
  DeviceBuffer<uint64_t> flagged_list_;  // the flagged entries, compacted
  int64_t exact_entries_ = 0;
  double tune_s_ = 0, upload_s_ = 0, scale_s_ = 0, products_s_ = 0, combine_s_ = 0, exact_entries_s_ = 0, last_ = -1;
};

Registrar reg_ozaki(ozaki::ozaki_entry<float, OzakiCudaKernel>(
    "cuda", "float GEMM exact on cuBLAS int8 GEMMs of residues (Ozaki scheme II), rounded once"));
Registrar reg_dozaki(ozaki::ozaki_entry<double, OzakiCudaKernel>(
    "cuda", "double GEMM exact on cuBLAS int8 GEMMs of residues (Ozaki scheme II, up to 26 moduli), rounded once"));

}  // namespace
}  // namespace accsum::cuda
