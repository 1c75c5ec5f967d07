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
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/int8_gemm.cuh"
#include "backends/cuda/warp/warp.cuh"
#include "core/numerics/float_entry.hpp"
#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_run.hpp"

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
class OzakiCudaKernel : public Kernel {
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
    Event t0, t1;
    t0.record();
    a_ = upload(p.*MatricesOf<F>::pa, static_cast<size_t>(p.rows * p.inner));
    b_ = upload(p.*MatricesOf<F>::pb, static_cast<size_t>(p.inner * p.cols));
    c_ = upload(p.*MatricesOf<F>::pc, static_cast<size_t>(p.rows * p.cols));
    t1.record();
    t1.sync();
    upload_s_ = t1.seconds_since(t0);
    out_ = DeviceBuffer<F>(static_cast<size_t>(p.rows * p.cols));
    ra_ = DeviceBuffer<int8_t>(static_cast<size_t>(planes * Mp_ * Kp_));
    rb_ = DeviceBuffer<int8_t>(static_cast<size_t>(planes * Kp_ * Np_));
    t_ = DeviceBuffer<int32_t>(static_cast<size_t>(planes * Mp_ * Np_));
    lines_ = std::make_unique<LineSummaries<F>>(p.rows, p.cols);
  }

  void execute() override {
    if (out_.size() == 0) return;
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

  Result result() override {
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
      row_norms<<<rg_one, 256>>>(a_.get(), M, K, kColsPerBlock, l.row_max(), l.row_s(), l.row_s() + M);
      with_vec(cols_vec, [&](auto v) {
        col_norms<decltype(v)::value><<<cg, 256>>>(b_.get(), K, N, l.col_max(), l.col_s(), l.col_s() + N);
      });
    };
    l.clear();
    if (K > 0) {
      with_vec(rows_vec, [&](auto v) {
        row_summaries<decltype(v)::value><<<rg, 256>>>(a_.get(), M, K, kColsPerBlock, l.row_max(), l.row_low());
      });
      with_vec(cols_vec, [&](auto v) {
        col_summaries<decltype(v)::value><<<cg, 256>>>(b_.get(), K, N, l.col_max(), l.col_low());
      });
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
          <<<rg, block>>>(a_.get(), M, K, Mp_, Kp_, lines_->row_max(), plan_.bits_a, ra_.get());
    });
    with_narrow(plan_.bits_b, [&](auto narrow) {
      residues_cols<L, decltype(narrow)::value>
          <<<cg, 256>>>(b_.get(), K, N, Kp_, Np_, lines_->col_max(), plan_.bits_b, rb_.get());
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
                     a_.get(),
                     b_.get(),
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
        combine<L, F, true><<<grid, 256>>>(t_.get(), g, CrtFormOf<F>::make(plan_), out_.get());
        return;
      }
    combine<L, F, false><<<grid, 256>>>(t_.get(), g, CrtFormOf<F>::make(plan_), out_.get());
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
  size_t flag_words() const { return static_cast<size_t>(ceil_div(static_cast<int64_t>(out_.size()), kFlagBits)); }
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
                      kWarpThreads * kWarpsPerBlock>>>(flagged_list_.get(), count, args_, out_.get());
    }
  }

  Problem p_;
  int moduli_;
  ozaki::Accuracy accuracy_;
  std::vector<double> row_bound_;
  ozaki::LinesOf<F> rows_, cols_;           // the lines' summaries as read back
  ozaki::LineNorms row_norms_, col_norms_;  // and their norms, where the plan needs them
  int64_t Mp_, Np_, Kp_;
  F alpha_ = 1, beta_ = 0;
  DeviceBuffer<F> a_, b_, c_, out_;
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
