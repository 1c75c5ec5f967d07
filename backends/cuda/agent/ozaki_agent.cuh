#pragma once
// The device side of sgemm-ozaki and dgemm-ozaki on CUDA (backends/cuda/gemm_ozaki_cuda.cu launches
// them; families/gemm/ozaki.hpp defines every step): line summaries and norms of A and B, the int8
// residues of the scaled operands, the reduction of the int32 planes between inner blocks, and the
// combine pass (residues, CRT, alpha C' + beta c rounded once), with the exact fallback of flagged entries.
// Included by that one translation unit (an anonymous namespace, as before).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/warp/warp.cuh"
#include "core/numerics/float_entry.hpp"
#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_bound.hpp"

namespace accsum::cuda {
namespace {

using ozaki::kMaxModuli;
using ozaki::modulus;
template <class F>
using BitsOf = typename ozaki::Format<F>::Bits;

constexpr int kTile = 32;        // residue tiles and padding of M, N, K
constexpr int kRowsPerPass = 8;  // thread rows of a residue tile block (32 x 8 threads)
constexpr int kPack = 4;         // residues stored per thread and plane (one char4: 4 bytes)
static_assert(kTile * kRowsPerPass == kTile * (kTile / kPack),
              "a residue tile block stores its 32 x 32 tile in one pass");
constexpr int kSummaryChunk = 8192;       // column summaries and norms: entries per block
constexpr int kFlagBits = 32;             // entries per word of the faithful check's bitmap
constexpr int kCombineCols = 8;           // columns per combine thread: its set-up (parameters, CRT form) amortized
constexpr double kInt8PeakOps = 1979e12;  // H100/H200 SXM dense INT8 tensor-core peak (ops/s)

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
unsigned capped(int64_t blocks, int64_t cap) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

// The largest bits of a line by atomics (64-bit: as unsigned long long, what atomicMax takes).
__device__ __forceinline__ void atomic_max_bits(uint32_t* at, uint32_t v) { atomicMax(at, v); }
__device__ __forceinline__ void atomic_max_bits(uint64_t* at, uint64_t v) {
  atomicMax(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ uint32_t warp_max_bits(uint32_t v) { return __reduce_max_sync(0xffffffffu, v); }
__device__ __forceinline__ uint64_t warp_max_bits(uint64_t v) {
  for (int d = 16; d > 0; d /= 2) {
    const uint64_t o = __shfl_xor_sync(0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}

// Entries per 16-byte load: the summary and norm passes read V consecutive entries of a column at once
// where the columns' length is a multiple of V (then every such group is 16-byte aligned, as cudaMalloc'd
// buffers are), else one at a time (V = 1).
template <class F>
constexpr int kVec = 16 / static_cast<int>(sizeof(F));
template <int V, class F>
__device__ __forceinline__ void load_entries(const F* __restrict__ x, F (&v)[V]) {
  if constexpr (V == 1) {
    v[0] = *x;
  } else if constexpr (sizeof(F) == 4) {
    const float4 q = *reinterpret_cast<const float4*>(x);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    const double2 q = *reinterpret_cast<const double2*>(x);
    v[0] = q.x, v[1] = q.y;
  }
}
template <class F>
__device__ __forceinline__ void add_summary(F x, BitsOf<F>& m, int& lo) {
  const BitsOf<F> b = ozaki::abs_bits(x);
  m = b > m ? b : m;
  if (b < ozaki::Format<F>::kInf) lo = min(lo, ozaki::low_exponent(b));
}

// Row summaries of A (M x K, column-major): a thread takes V consecutive rows (one load per column,
// coalesced along the rows) over a chunk of columns.
template <int V, class F>
__global__ void row_summaries(const F* __restrict__ a, int64_t M, int64_t K, int64_t cols_per_block,
                              BitsOf<F>* __restrict__ max_bits, int* __restrict__ low) {
  const int64_t i = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * V;
  if (i >= M) return;
  for (int64_t k0 = blockIdx.y * cols_per_block; k0 < K; k0 += gridDim.y * cols_per_block) {
    BitsOf<F> m[V] = {};
    int lo[V];
#pragma unroll
    for (int c = 0; c < V; ++c) lo[c] = ozaki::kNoLow;
    const int64_t k1 = k0 + cols_per_block < K ? k0 + cols_per_block : K;
    for (int64_t k = k0; k < k1; ++k) {
      F v[V];
      load_entries<V>(a + i + k * M, v);
#pragma unroll
      for (int c = 0; c < V; ++c) add_summary(v[c], m[c], lo[c]);
    }
#pragma unroll
    for (int c = 0; c < V; ++c) {
      atomic_max_bits(max_bits + i + c, m[c]);
      atomicMin(low + i + c, lo[c]);
    }
  }
}

// Column summaries of B (K x N, column-major): a block per (column, chunk), V entries per load, warp
// reductions.
template <int V, class F>
__global__ void col_summaries(const F* __restrict__ b, int64_t K, int64_t N, BitsOf<F>* __restrict__ max_bits,
                              int* __restrict__ low) {
  for (int64_t j = blockIdx.x; j < N; j += gridDim.x)
    for (int64_t k0 = blockIdx.y * static_cast<int64_t>(kSummaryChunk); k0 < K;
         k0 += gridDim.y * static_cast<int64_t>(kSummaryChunk)) {
      BitsOf<F> m = 0;
      int lo = ozaki::kNoLow;
      const int64_t k1 = k0 + kSummaryChunk < K ? k0 + kSummaryChunk : K;
      for (int64_t k = k0 + threadIdx.x * V; k < k1; k += blockDim.x * V) {
        F v[V];
        load_entries<V>(b + k + j * K, v);
#pragma unroll
        for (int c = 0; c < V; ++c) add_summary(v[c], m, lo);
      }
      m = warp_max_bits(m);
      lo = __reduce_min_sync(0xffffffffu, lo);
      if ((threadIdx.x & 31) == 0) {
        atomic_max_bits(max_bits + j, m);
        atomicMin(low + j, lo);
      }
    }
}

// The integer norm sums S1, S2 of each line (families/gemm/ozaki_bound.hpp), given the lines' max
// bits from the summaries above: integer atomics, so the sums do not depend on the order. Zero and
// IEEE-special lines keep sums of 0.
template <class F>
__device__ __forceinline__ void add_norm_terms(F v, int top, uint64_t& s1, uint64_t& s2) {
  if (ozaki::finite_scalar(v)) {
    s1 += ozaki::norm1_term(v, top);
    s2 += ozaki::norm2_term(v, top);
  }
}
template <class B>
__device__ __forceinline__ bool summed_line(B max_bits) {
  return max_bits != 0 && !ozaki::special_line(max_bits);
}
template <class F>
__global__ void row_norms(const F* __restrict__ a, int64_t M, int64_t K, int64_t cols_per_block,
                          const BitsOf<F>* __restrict__ max_bits, unsigned long long* __restrict__ s1,
                          unsigned long long* __restrict__ s2) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= M || !summed_line(max_bits[i])) return;
  const int top = ozaki::line_top(max_bits[i]);
  for (int64_t k0 = blockIdx.y * cols_per_block; k0 < K; k0 += gridDim.y * cols_per_block) {
    uint64_t n1 = 0, n2 = 0;
    const int64_t k1 = k0 + cols_per_block < K ? k0 + cols_per_block : K;
    for (int64_t k = k0; k < k1; ++k) add_norm_terms(a[i + k * M], top, n1, n2);
    atomicAdd(s1 + i, static_cast<unsigned long long>(n1));
    atomicAdd(s2 + i, static_cast<unsigned long long>(n2));
  }
}
template <int V, class F>
__global__ void col_norms(const F* __restrict__ b, int64_t K, int64_t N, const BitsOf<F>* __restrict__ max_bits,
                          unsigned long long* __restrict__ s1, unsigned long long* __restrict__ s2) {
  for (int64_t j = blockIdx.x; j < N; j += gridDim.x) {
    if (!summed_line(max_bits[j])) continue;
    const int top = ozaki::line_top(max_bits[j]);
    for (int64_t k0 = blockIdx.y * static_cast<int64_t>(kSummaryChunk); k0 < K;
         k0 += gridDim.y * static_cast<int64_t>(kSummaryChunk)) {
      uint64_t n1 = 0, n2 = 0;
      const int64_t k1 = k0 + kSummaryChunk < K ? k0 + kSummaryChunk : K;
      for (int64_t k = k0 + threadIdx.x * V; k < k1; k += blockDim.x * V) {
        F v[V];
        load_entries<V>(b + k + j * K, v);
#pragma unroll
        for (int c = 0; c < V; ++c) add_norm_terms(v[c], top, n1, n2);
      }
      for (int d = 16; d > 0; d /= 2) {
        n1 += __shfl_down_sync(0xffffffffu, n1, d);
        n2 += __shfl_down_sync(0xffffffffu, n2, d);
      }
      if ((threadIdx.x & 31) == 0) {
        atomicAdd(s1 + j, static_cast<unsigned long long>(n1));
        atomicAdd(s2 + j, static_cast<unsigned long long>(n2));
      }
    }
  }
}

// The L residues of kPack consecutive entries of one line (scaled by 2^(bits - line_top)), stored
// as one char4 per plane at out[l * plane + at] (at a multiple of kPack: the padded dimensions are
// multiples of kTile). Each entry's scaled integer is computed once; its residues come from
// 32-bit remainders by constants (residue_symmetric_chunks, or residue_symmetric_narrow for a side of at
// most kNarrowSideBits bits: the values of residue_symmetric; doubles: residue_symmetric_wide, the values
// of scaled_residue).
template <int L, bool NARROW>
__device__ __forceinline__ void store_residues(const float (&v)[kPack], uint32_t line_max, int bits,
                                               int8_t* __restrict__ out, size_t plane, size_t at) {
  const bool used = line_max != 0 && !ozaki::special_line(line_max);
  const double factor = used ? ozaki::pow2(bits - ozaki::line_top(line_max)) : 0.0;
  auto store = [&](auto&& residue) {
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const char4 r = make_char4(
          static_cast<signed char>(residue(0, modulus(l))), static_cast<signed char>(residue(1, modulus(l))),
          static_cast<signed char>(residue(2, modulus(l))), static_cast<signed char>(residue(3, modulus(l))));
      *reinterpret_cast<char4*>(out + l * plane + at) = r;
    }
  };
  if constexpr (NARROW) {
    int32_t x[kPack];
#pragma unroll
    for (int c = 0; c < kPack; ++c) x[c] = used ? ozaki::scaled_integer_narrow(v[c], factor) : 0;
    store([&](int c, int p) { return ozaki::residue_symmetric_narrow(x[c], p); });
  } else {
    ozaki::Chunks16 x[kPack];
#pragma unroll
    for (int c = 0; c < kPack; ++c) x[c] = ozaki::chunks16(used ? ozaki::scaled_integer_by(v[c], factor) : 0);
    store([&](int c, int p) { return ozaki::residue_symmetric_chunks(x[c], p); });
  }
}
template <int L, bool NARROW>
__device__ __forceinline__ void store_residues(const double (&v)[kPack], uint64_t line_max, int bits,
                                               int8_t* __restrict__ out, size_t plane, size_t at) {
  static_assert(!NARROW, "doubles take the wide form");
  const bool used = line_max != 0 && !ozaki::special_line(line_max);
  const int shift = used ? bits - ozaki::line_top(line_max) : 0;
  ozaki::ScaledInteger x[kPack];
#pragma unroll
  for (int c = 0; c < kPack; ++c)
    if (used) x[c] = ozaki::scaled_integer_wide(v[c], shift);
#pragma unroll
  for (int l = 0; l < L; ++l) {
    const char4 r = make_char4(static_cast<signed char>(ozaki::residue_symmetric_wide(x[0], modulus(l))),
                               static_cast<signed char>(ozaki::residue_symmetric_wide(x[1], modulus(l))),
                               static_cast<signed char>(ozaki::residue_symmetric_wide(x[2], modulus(l))),
                               static_cast<signed char>(ozaki::residue_symmetric_wide(x[3], modulus(l))));
    *reinterpret_cast<char4*>(out + l * plane + at) = r;
  }
}

// A (M x K, column-major) -> planes of Mp x Kp row-major residues (row i at i * Kp), through a
// 32 x 32 shared tile (reads coalesced along i; each thread then stores kPack consecutive k of one
// row i, a char4 per plane).
template <int L, bool NARROW, class F>
__global__ void __launch_bounds__(kTile* kRowsPerPass)
    residues_rows(const F* __restrict__ a, int64_t M, int64_t K, int64_t Mp, int64_t Kp,
                  const BitsOf<F>* __restrict__ max_bits, int bits, int8_t* __restrict__ out) {
  __shared__ F tile[kTile][kTile + 1];  // [i - i0][k - k0]; rows of 33: the char4 reads hit 32 banks
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = (ty * kTile + tx) / (kTile / kPack), quad = (ty * kTile + tx) % (kTile / kPack);
  const size_t plane = static_cast<size_t>(Mp * Kp);
  for (int64_t i0 = blockIdx.y * static_cast<int64_t>(kTile); i0 < Mp; i0 += gridDim.y * static_cast<int64_t>(kTile))
    for (int64_t k0 = blockIdx.x * static_cast<int64_t>(kTile); k0 < Kp;
         k0 += gridDim.x * static_cast<int64_t>(kTile)) {
      for (int r = ty; r < kTile; r += kRowsPerPass) {
        const int64_t i = i0 + tx, k = k0 + r;
        tile[tx][r] = i < M && k < K ? a[i + k * M] : F(0);
      }
      __syncthreads();
      const int64_t i = i0 + row, k = k0 + quad * kPack;
      F v[kPack];
#pragma unroll
      for (int c = 0; c < kPack; ++c) v[c] = tile[row][quad * kPack + c];
      store_residues<L, NARROW>(v, i < M ? max_bits[i] : BitsOf<F>{0}, bits, out, plane,
                                static_cast<size_t>(i * Kp + k));
      __syncthreads();
    }
}

// B (K x N, column-major) -> planes of Kp x Np column-major residues (column j at j * Kp); each
// thread takes kPack consecutive k (one float4 load where K is a multiple of kPack: 16-byte
// aligned, as cudaMalloc'd buffers are).
template <int L, bool NARROW, class F>
__global__ void residues_cols(const F* __restrict__ b, int64_t K, int64_t N, int64_t Kp, int64_t Np,
                              const BitsOf<F>* __restrict__ max_bits, int bits, int8_t* __restrict__ out) {
  const size_t plane = static_cast<size_t>(Kp * Np);
  for (int64_t j = blockIdx.y; j < Np; j += gridDim.y) {
    const BitsOf<F> line_max = j < N ? max_bits[j] : BitsOf<F>{0};
    for (int64_t k = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * kPack; k < Kp;
         k += gridDim.x * static_cast<int64_t>(blockDim.x) * kPack) {
      F v[kPack];
      if constexpr (sizeof(F) == 4) {
        if (j < N && K % kPack == 0 && k + kPack <= K) {
          const float4 q = *reinterpret_cast<const float4*>(b + k + j * K);
          v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
          store_residues<L, NARROW>(v, line_max, bits, out, plane, static_cast<size_t>(k + j * Kp));
          continue;
        }
      }
#pragma unroll
      for (int c = 0; c < kPack; ++c) v[c] = k + c < K && j < N ? b[k + c + j * K] : F(0);
      store_residues<L, NARROW>(v, line_max, bits, out, plane, static_cast<size_t>(k + j * Kp));
    }
  }
}

// Bytes spread over [-127, 127] (a multiplicative hash of the index): what the int8 products are timed
// on while their algorithm is chosen, since tensor-core power, and so speed, depends on the data.
__global__ void fill_tuning_bytes(int8_t* __restrict__ out, size_t n) {
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < n;
       e += gridDim.x * static_cast<size_t>(blockDim.x))
    out[e] = static_cast<int8_t>(static_cast<int>((static_cast<uint32_t>(e) * 2654435761u) >> 24) % 255 - 127);
}

// Between inner blocks: each int32 plane l reduced mod p_l (so the next block's sum stays exact).
template <int L>
__global__ void reduce_planes(int32_t* __restrict__ t, size_t plane) {
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < plane;
       e += gridDim.x * static_cast<size_t>(blockDim.x))
#pragma unroll
    for (int l = 0; l < L; ++l) t[l * plane + e] %= modulus(l);
}

template <class F>
struct CombineArgs {
  int64_t M, N, K, Mp;
  size_t plane;
  const BitsOf<F>* row_max;
  const BitsOf<F>* col_max;
  int bits_a, bits_b;
  F alpha, beta;
  const F* a;
  const F* b;
  const F* c;
  int64_t alpha_m;  // alpha = alpha_m 2^alpha_e (split_scalar, once per call)
  int alpha_e;
  bool alpha_power_of_two;  // alpha = +-2^k: C' is rounded at its own width (power_of_two_times)
  // --accuracy=faithful with a plan that leaves lines uncovered (else null): each line's terms of the entry's
  // bound, and bit e of `flagged` set (with a count) for each entry its bound does not prove faithful, left to
  // exact_flagged.
  const ozaki::LineTerms* row_terms;
  const ozaki::LineTerms* col_terms;
  double abs_alpha;
  uint32_t* flagged;
  unsigned long long* flagged_count;
};

// C' of one entry from its residues and the entry rounded once: float through the CRT's 32-bit limbs,
// double through crt_magnitude (families/gemm/ozaki.hpp). With beta = 0 (C not read; BLAS's common
// call) alpha C' 2^scale is rounded by round_to_fast, with alpha split once per call (CombineArgs):
// the same bits as finish_entry_of at a fraction of its instructions; C' comes from crt_small when
// the plan's products fit its width, and with alpha = +-2^k is rounded at that width.
template <int L>
__device__ __forceinline__ float finish_from_residues(const int (&r)[L], const ozaki::CrtLimbs& crt, int scale,
                                                      const CombineArgs<float>& g, size_t e) {
  if (g.beta != 0.0f || g.alpha == 0.0f)
    return ozaki::finish_entry(ozaki::crt_symmetric_limbs<L>(r, crt), scale, g.alpha, g.beta, g.c + e);
  bool negative = false;
  ozaki::u128 magnitude;
  if (crt.small.applies) {
    const int64_t x = static_cast<int64_t>(ozaki::crt_small<L>(r, crt.small));
    negative = x < 0;
    const uint64_t m = negative ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
    if (g.alpha_power_of_two)
      return ozaki::round_to_fast<float>(ozaki::power_of_two_times<float>(negative, m, scale, g.alpha_m, g.alpha_e));
    magnitude = m;
  } else if (crt.small_wide.applies && g.alpha_power_of_two) {
    const ozaki::u128 x = ozaki::crt_small<L>(r, crt.small_wide);
    negative = static_cast<ozaki::i128>(x) < 0;
    return ozaki::round_to_fast<float>(
        ozaki::power_of_two_times<float>(negative, negative ? 0 - x : x, scale, g.alpha_m, g.alpha_e));
  } else {
    magnitude = ozaki::crt_magnitude_limbs<L>(r, crt, &negative);
  }
  return ozaki::round_to_fast<float>(ozaki::alpha_times(negative, magnitude, scale, g.alpha_m, g.alpha_e));
}
// The double CRT forms: the 256-bit definition and, for plans whose products fit an int128, crt_small.
struct CrtDouble {
  ozaki::CrtOf<double> full;
  ozaki::CrtSmallOf<ozaki::u128, ozaki::kMaxModuliDouble> small;
};
template <int L>
__device__ __forceinline__ double finish_from_residues(const int (&r)[L], const CrtDouble& crt, int scale,
                                                       const CombineArgs<double>& g, size_t e) {
  bool negative = false;
  ozaki::U256 magnitude;
  if (crt.small.applies && g.beta == 0.0 && g.alpha != 0.0) {
    const ozaki::u128 x = ozaki::crt_small<L>(r, crt.small);
    negative = static_cast<ozaki::i128>(x) < 0;
    const ozaki::u128 m = negative ? 0 - x : x;
    if (g.alpha_power_of_two)
      return ozaki::round_to_fast<double>(ozaki::power_of_two_times<double>(negative, m, scale, g.alpha_m, g.alpha_e));
    magnitude.limb[0] = static_cast<uint64_t>(m);
    magnitude.limb[1] = static_cast<uint64_t>(m >> 64);
  } else {
    magnitude = ozaki::crt_magnitude(r, crt.full, &negative);
  }
  if (g.beta != 0.0 || g.alpha == 0.0)
    return ozaki::finish_entry_of<double>(negative, magnitude, scale, g.alpha, g.beta, g.c + e);
  return ozaki::round_to_fast<double>(ozaki::alpha_times(negative, magnitude, scale, g.alpha_m, g.alpha_e));
}
// The CRT form each format's combine takes.
template <class F>
struct CrtFormOf {
  using type = ozaki::CrtLimbs;
  static type make(const ozaki::Plan& p) { return ozaki::make_crt_limbs(ozaki::make_crt(p.moduli), p.bound); }
};
template <>
struct CrtFormOf<double> {
  using type = CrtDouble;
  static type make(const ozaki::Plan& p) {
    type k;
    k.full = ozaki::make_crt<double>(p.moduli);
    k.small = ozaki::make_crt_small<ozaki::u128>(k.full, p.bound);
    return k;
  }
};

// The CRT and one rounding per entry (families/gemm/ozaki.hpp steps 4-5), IEEE specials on their lines; FAITHFUL:
// --accuracy=faithful's flags (an instance of its own, so the other modes' combine carries none of it).
template <int L, class F, bool FAITHFUL>
__global__ void combine(const int32_t* __restrict__ t, CombineArgs<F> g, typename CrtFormOf<F>::type crt,
                        F* __restrict__ out) {
  for (int64_t j = blockIdx.y; j < g.N; j += gridDim.y) {
    const BitsOf<F> cb = g.col_max[j];
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < g.M;
         i += gridDim.x * static_cast<int64_t>(blockDim.x)) {
      const BitsOf<F> ra = g.row_max[i];
      const size_t e = static_cast<size_t>(i + j * g.M);
      if (g.alpha != F(0) && (ozaki::special_line(ra) || ozaki::special_line(cb))) {
        out[e] = ozaki::special_entry(g.a + i, g.M, g.b + j * g.K, g.K, g.alpha, g.beta, g.c + e);
        continue;
      }
      int r[L];
      const size_t at = static_cast<size_t>(i + j * g.Mp);
#pragma unroll
      for (int l = 0; l < L; ++l) r[l] = ozaki::residue_positive(t[l * g.plane + at], modulus(l));
      const int scale = ozaki::line_top(ra) - g.bits_a + ozaki::line_top(cb) - g.bits_b;
      const F v = finish_from_residues<L>(r, crt, scale, g, e);
      out[e] = v;
      if constexpr (FAITHFUL)
        if (!faithful_within(v, ozaki::entry_bound(g.row_terms[i], g.col_terms[j], g.K, g.abs_alpha))) {
          atomicOr(&g.flagged[e / kFlagBits], 1u << (e % kFlagBits));
          atomicAdd(g.flagged_count, 1ull);
        }
    }
  }
}

// The entries `combine` flagged, as a list (each entry is independent: any order), so that each gets a warp of
// its own however they cluster in the bitmap (a column of small entries sets 32 consecutive bits).
__global__ void compact_flagged(const uint32_t* __restrict__ flagged, size_t words, unsigned long long* next,
                                uint64_t* __restrict__ list) {
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += gridDim.x * static_cast<size_t>(blockDim.x)) {
    uint32_t bits = flagged[w];
    if (bits == 0) continue;
    unsigned long long at = atomicAdd(next, static_cast<unsigned long long>(__popc(bits)));
    for (; bits != 0; bits &= bits - 1)
      list[at++] = w * kFlagBits + static_cast<size_t>(__ffs(static_cast<int>(bits)) - 1);
  }
}

// Each listed entry summed exactly and rounded once (exact_float_entry, the cpu definition's) by one warp: its
// lanes sum strided shares of k in their own superaccumulators, merged digit by digit by shuffles (normalized
// digits below 2^32: 32 of them add without overflow), and lane 0 rounds.
__global__ void exact_flagged(const uint64_t* __restrict__ list, size_t count, CombineArgs<float> g,
                              float* __restrict__ out) {
  constexpr int kLoadsAhead = 8;  // a lane's products loaded per step
  const int lane = lane_of(threadIdx.x);
  const size_t warps = gridDim.x * static_cast<size_t>(blockDim.x) / kWarpThreads;
  FloatEntryAcc acc;
  for (size_t t = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) / kWarpThreads; t < count; t += warps) {
    const size_t e = list[t];
    const int64_t i = static_cast<int64_t>(e % static_cast<size_t>(g.M)), j = static_cast<int64_t>(e / g.M);
    acc.clear();
    if (g.alpha != 0.0f)
      for (int64_t k0 = lane; k0 < g.K; k0 += kWarpThreads * kLoadsAhead) {
        float av[kLoadsAhead], bv[kLoadsAhead];  // loaded together: their latencies overlap
#pragma unroll
        for (int c = 0; c < kLoadsAhead; ++c) {
          const int64_t k = k0 + kWarpThreads * c;
          av[c] = k < g.K ? g.a[i + k * g.M] : 0.0f;
          bv[c] = k < g.K ? g.b[j * g.K + k] : 0.0f;
        }
#pragma unroll
        for (int c = 0; c < kLoadsAhead; ++c)
          if (k0 + kWarpThreads * c < g.K) add_float_product(acc, av[c], bv[c], g.alpha);
      }
    if (lane == 0 && g.beta != 0.0f) acc.add(static_cast<double>(g.beta) * g.c[e]);
    acc.normalize();
    for (int d = 0; d < FloatEntryAcc::kDigits; ++d)
      for (int o = kWarpThreads / 2; o > 0; o /= 2) acc.digit[d] += __shfl_down_sync(kFullMask, acc.digit[d], o);
    for (int o = kWarpThreads / 2; o > 0; o /= 2) {
      acc.neg_zero_count += __shfl_down_sync(kFullMask, acc.neg_zero_count, o);
      acc.not_neg_zero_count += __shfl_down_sync(kFullMask, acc.not_neg_zero_count, o);
    }
    acc.pending = kWarpThreads;
    double hi, lo;
    if (lane == 0) out[e] = superacc_round_float(acc, &hi, &lo);
  }
}

}  // namespace
}  // namespace accsum::cuda
