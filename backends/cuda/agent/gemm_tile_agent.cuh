#pragma once
// The tiled SGEMM kernel with selective compensation (families/gemm/gemm_serial.hpp; Badin, Bic,
// Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs", 2011, Figs. 1-3),
// in CUB's layering: the block loads k-tiles (TileLoader), each thread accumulates its micro-tile
// (MicroTile), the kernel drives them; every size and place is the policy's (agent/gemm_policy.cuh). Every entry
// receives its products in the order k = 0..K-1 and its compensated additions after the same strips as the readable
// definition, so results are bit for bit the cpu backend's (--fmad=false keeps fma = 0 unfused).
//
// Any M, N, K: a block whose tile lies inside C, with M and K (cp.async ring: M and N) multiples of
// 4 (16-byte aligned columns or rows), loads whole k-tiles with 16-byte loads; edge blocks and the
// last partial k-tile load element by element, zero outside the matrices, and the partial k-tile
// runs only its valid k, so no padding product ever enters a sum.
#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/agent/gemm_policy.cuh"
#include "families/gemm/gemm_serial.hpp"

namespace accsum::cuda::gemm_tile {

using gemm::kNone;

// The k-tiles in shared memory (two, or the policy's cp.async ring): A as [k][m], B as [k][n].
template <class P>
struct Smem {
  float a[P::kBufs][P::BK][P::BM];
  float b[P::kBufs][P::BK][P::BN + P::kPadB];
};

struct Shape {
  int M, N, K;
};

// Block level: one k-tile of A and B, global -> registers (load) -> shared memory (store).
// A: a warp loads 32 consecutive float4 along m. B: a warp loads 16 columns x two 4-k groups
// (float4 along k), so its transposed scalar stores hit 32 distinct banks (Policy::kPadB).
template <class P>
struct TileLoader {
  float4 ra[P::kALoads], rb[P::kBLoads];
  const float* A;
  const float* B;
  Shape sh;
  int m0, n0;
  bool vector_ok;  // the block's tile is inside C and columns are 16-byte aligned

  __device__ static float at(const float* X, int rows, int r, int c, int cols) {
    return (r < rows && c < cols) ? X[r + static_cast<size_t>(c) * rows] : 0.0f;
  }
  // Load l of this thread: A at (k, m), B at (k, n), k and m multiples of 4.
  __device__ static void a_place(int l, int& k, int& m) {
    const int e = threadIdx.x + l * P::kThreads;
    k = e / (P::BM / 4);
    m = e % (P::BM / 4) * 4;
  }
  __device__ static void b_place(int l, int& k, int& n) {
    const int e = threadIdx.x + l * P::kThreads, r = e % (2 * P::BN);
    n = r / 2;
    k = (e / (2 * P::BN) * 2 + r % 2) * 4;
  }

  __device__ void load(int k0) {
    const bool fast = vector_ok && k0 + P::BK <= sh.K;
#pragma unroll
    for (int l = 0; l < P::kALoads; ++l) {
      int k, m;
      a_place(l, k, m);
      const int gm = m0 + m, gk = k0 + k;
      if (fast) {
        ra[l] = *reinterpret_cast<const float4*>(A + gm + static_cast<size_t>(gk) * sh.M);
      } else {
        ra[l] = make_float4(at(A, sh.M, gm, gk, sh.K), at(A, sh.M, gm + 1, gk, sh.K), at(A, sh.M, gm + 2, gk, sh.K),
                            at(A, sh.M, gm + 3, gk, sh.K));
      }
    }
#pragma unroll
    for (int l = 0; l < P::kBLoads; ++l) {
      int k, n;
      b_place(l, k, n);
      const int gk = k0 + k, gn = n0 + n;
      if (fast) {
        rb[l] = *reinterpret_cast<const float4*>(B + gk + static_cast<size_t>(gn) * sh.K);
      } else {
        rb[l] = make_float4(at(B, sh.K, gk, gn, sh.N), at(B, sh.K, gk + 1, gn, sh.N), at(B, sh.K, gk + 2, gn, sh.N),
                            at(B, sh.K, gk + 3, gn, sh.N));
      }
    }
  }

  __device__ void store(Smem<P>& s, int buf) const {
#pragma unroll
    for (int l = 0; l < P::kALoads; ++l) {
      int k, m;
      a_place(l, k, m);
      *reinterpret_cast<float4*>(&s.a[buf][k][m]) = ra[l];
    }
#pragma unroll
    for (int l = 0; l < P::kBLoads; ++l) {
      int k, n;
      b_place(l, k, n);
      s.b[buf][k][n] = rb[l].x;
      s.b[buf][k + 1][n] = rb[l].y;
      s.b[buf][k + 2][n] = rb[l].z;
      s.b[buf][k + 3][n] = rb[l].w;
    }
  }
};

// cp.async (PTX ISA, sm_80+): a 16-byte copy global -> shared that bypasses registers and L1 (.cg),
// grouped by commit; wait_group<N> returns once at most N of this thread's groups are pending.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Block level, cp.async ring: one k-tile of A (column-major) and of Bt (B copied row-major, K x N,
// row stride N) straight into ring slot `buf`, 16 bytes per copy, A along m and Bt along n, so
// both land as the compute reads them ([k][m], [k][n]). A warp copies 32 consecutive 16-byte
// segments of one row. k-tiles are requested in order, so each thread keeps the global address of
// its first copy of the next k-tile and steps it by one k-tile per request: a whole k-tile's copies
// cost one address add each, its shared offsets are constants, and one test picks the fast path.
// Edge blocks and the partial last k-tile store element by element (zero outside the matrices):
// synchronous shared stores, visible after the barrier that precedes the slot's use, like the copies.
template <class P>
struct AsyncTileLoader {
  // Threads per k-row of a tile, and k-rows between one thread's successive copies.
  static constexpr int kAQuadsPerRow = P::BM / 4, kBQuadsPerRow = P::BN / 4;
  static constexpr int kARowsPerLoad = P::kThreads / kAQuadsPerRow, kBRowsPerLoad = P::kThreads / kBQuadsPerRow;
  static_assert(P::kThreads % kAQuadsPerRow == 0 && P::kThreads % kBQuadsPerRow == 0,
                "a thread's copies share one column of A and of Bt");

  const float* A;
  const float* Bt;
  Shape sh;
  int m0, n0;
  bool vector_ok;      // the block's tile is inside C and rows of A and Bt are 16-byte aligned
  int ka, ma, kb, nb;  // this thread's first copy: k-row ka, rows ma .. ma + 3 of A; k-row kb, columns nb .. of Bt
  // Addresses of A at (m0 + ma, k0 + ka) and of Bt at (k0 + kb, n0 + nb) for the next k-tile requested,
  // as integers: they step past the matrices after the last k-tile, which a pointer may not. (Offsets
  // from A and Bt instead cost the 128x256 ring 2 registers and 6 % of its speed: different scheduling.)
  uintptr_t a_next, b_next;

  __device__ AsyncTileLoader(const float* A_, const float* Bt_, Shape sh_, int m0_, int n0_, bool vector_ok_)
      : A(A_), Bt(Bt_), sh(sh_), m0(m0_), n0(n0_), vector_ok(vector_ok_) {
    ka = threadIdx.x / kAQuadsPerRow, ma = threadIdx.x % kAQuadsPerRow * 4;
    kb = threadIdx.x / kBQuadsPerRow, nb = threadIdx.x % kBQuadsPerRow * 4;
    a_next = reinterpret_cast<uintptr_t>(A) + (m0 + ma + static_cast<size_t>(ka) * sh.M) * sizeof(float);
    b_next = reinterpret_cast<uintptr_t>(Bt) + (n0 + nb + static_cast<size_t>(kb) * sh.N) * sizeof(float);
  }

  __device__ static const float* address(uintptr_t a) { return reinterpret_cast<const float*>(a); }

  // Four consecutive entries (rows r .. r + 3 of k-row k) of X, whose k-rows are ld floats long and
  // hold ld entries, element by element, zero outside ld x K.
  __device__ static void quad_slow(float* dst, const float* X, int ld, int r, int k, int K) {
#pragma unroll
    for (int q = 0; q < 4; ++q) dst[q] = r + q < ld && k < K ? X[r + q + static_cast<size_t>(k) * ld] : 0.0f;
  }

  // k-tile k0, the one after the previous request.
  __device__ void load(Smem<P>& s, int buf, int k0) {
    if (vector_ok && k0 + P::BK <= sh.K) {
      const int a_step = kARowsPerLoad * sh.M, b_step = kBRowsPerLoad * sh.N;
#pragma unroll
      for (int l = 0; l < P::kALoads; ++l)
        cp_async16(&s.a[buf][ka + l * kARowsPerLoad][ma], address(a_next) + l * a_step);
#pragma unroll
      for (int l = 0; l < P::kBLoads; ++l)
        cp_async16(&s.b[buf][kb + l * kBRowsPerLoad][nb], address(b_next) + l * b_step);
    } else {
#pragma unroll
      for (int l = 0; l < P::kALoads; ++l)
        quad_slow(&s.a[buf][ka + l * kARowsPerLoad][ma], A, sh.M, m0 + ma, k0 + ka + l * kARowsPerLoad, sh.K);
#pragma unroll
      for (int l = 0; l < P::kBLoads; ++l)
        quad_slow(&s.b[buf][kb + l * kBRowsPerLoad][nb], Bt, sh.N, n0 + nb, k0 + kb + l * kBRowsPerLoad, sh.K);
    }
    a_next += static_cast<size_t>(P::BK) * sh.M * sizeof(float);
    b_next += static_cast<size_t>(P::BK) * sh.N * sizeof(float);
  }
};

// Thread level: the TM x TN entries one thread owns. Plain: s accumulates every product.
// Compensated: p accumulates a strip from +0 (its first product enters as mul_add(a, b, 0), as in
// the definition), flush() adds p to the total (s, c) by Kahan or DCS and restarts p. p lives
// in registers; s and c, touched once per strip, where the policy's kHome says: in registers, or
// in shared memory as float4 groups of 4 columns, thread-interleaved (group q of thread t at
// [q * kThreads + t]: conflict-free), which keeps the thread's registers for p.
template <class P, int COMP, bool FMA>
struct MicroTile {
  static constexpr bool kComp = COMP != kNone;
  static constexpr bool kSInSmem = kComp && P::kHome == kTotalInSmem;
  static constexpr bool kCInSmem = kComp && P::kHome != kCompInRegs;
  static constexpr int kGroups = P::TM * P::TN / 4;  // float4 groups of entries per thread
  // Register arrays that a configuration does not use shrink to one element.
  static constexpr int kSM = kSInSmem ? 1 : P::TM, kSN = kSInSmem ? 1 : P::TN;
  static constexpr int kCM = kComp && !kCInSmem ? P::TM : 1, kCN = kComp && !kCInSmem ? P::TN : 1;
  static constexpr int kPM = kComp ? P::TM : 1, kPN = kComp ? P::TN : 1;
  float s[kSM][kSN];
  float c[kCM][kCN];
  float p[kPM][kPN];
  float4* cs;  // this thread's first c group in shared memory
  float4* ss;  // and s group
  int ty, tx;  // the thread's place in the block's thread grid

  // Shared float4 groups of (s, c) per block, after the k-tiles.
  static constexpr int smem_groups() { return (int(kCInSmem) + int(kSInSmem)) * kGroups * P::kThreads; }

  __device__ void init(float4* state) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    ty = warp / P::kWarpsN * P::kWarpThreadsM + lane / P::kWarpThreadsN;
    tx = warp % P::kWarpsN * P::kWarpThreadsN + lane % P::kWarpThreadsN;
    cs = state + threadIdx.x;
    ss = cs + (kCInSmem ? kGroups * P::kThreads : 0);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int q = 0; q < kGroups; ++q) {
      set_s(q, zero);
      set_c(q, zero);
    }
    restart_strip();
  }
  __device__ void restart_strip() {
#pragma unroll
    for (int i = 0; i < kPM; ++i)
#pragma unroll
      for (int j = 0; j < kPN; ++j) p[i][j] = 0.0f;
  }
  // Row (column) of the block tile held in entry i (j).
  __device__ int row(int i) const { return i / 4 * P::kGroupStrideM + ty * 4 + i % 4; }
  __device__ int col(int j) const { return j / 4 * P::kGroupStrideN + tx * 4 + j % 4; }

  // Group q = i * TN / 4 + g: entries (i, 4g .. 4g + 3).
  __device__ float4 get_s(int q) const {
    if constexpr (kSInSmem)
      return ss[q * P::kThreads];
    else
      return make_float4(s[q / (P::TN / 4)][q % (P::TN / 4) * 4], s[q / (P::TN / 4)][q % (P::TN / 4) * 4 + 1],
                         s[q / (P::TN / 4)][q % (P::TN / 4) * 4 + 2], s[q / (P::TN / 4)][q % (P::TN / 4) * 4 + 3]);
  }
  __device__ void set_s(int q, float4 v) {
    if constexpr (kSInSmem) {
      ss[q * P::kThreads] = v;
    } else {
      float* r = &s[q / (P::TN / 4)][q % (P::TN / 4) * 4];
      r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
    }
  }
  __device__ float4 get_c(int q) const {
    if constexpr (kCInSmem)
      return cs[q * P::kThreads];
    else if constexpr (kComp)
      return make_float4(c[q / (P::TN / 4)][q % (P::TN / 4) * 4], c[q / (P::TN / 4)][q % (P::TN / 4) * 4 + 1],
                         c[q / (P::TN / 4)][q % (P::TN / 4) * 4 + 2], c[q / (P::TN / 4)][q % (P::TN / 4) * 4 + 3]);
    else
      return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  __device__ void set_c(int q, float4 v) {
    if constexpr (kCInSmem) {
      cs[q * P::kThreads] = v;
    } else if constexpr (kComp) {
      float* r = &c[q / (P::TN / 4)][q % (P::TN / 4) * 4];
      r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
    }
  }
  // The total of entry (i, j), for the store.
  __device__ float total(int i, int j) const {
    if constexpr (kSInSmem) {
      const float4 v = ss[(i * (P::TN / 4) + j / 4) * P::kThreads];
      return j % 4 == 0 ? v.x : j % 4 == 1 ? v.y : j % 4 == 2 ? v.z : v.w;
    } else {
      return s[i][j];
    }
  }

  // One k of the shared tile: the thread's fragments of A's column and B's row, TM x TN products.
  // FIRST: p restarts at this product (tile = 1, where every product is a strip).
  template <bool FIRST>
  __device__ void step(const Smem<P>& sm, int buf, int kk) {
    float a[P::TM], b[P::TN];
#pragma unroll
    for (int g = 0; g < P::kGroupsM; ++g) {
      const float4 v = *reinterpret_cast<const float4*>(&sm.a[buf][kk][row(4 * g)]);
      a[4 * g] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int g = 0; g < P::kGroupsN; ++g) {
      const float4 v = *reinterpret_cast<const float4*>(&sm.b[buf][kk][col(4 * g)]);
      b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < P::TM; ++i)
#pragma unroll
      for (int j = 0; j < P::TN; ++j) {
        if constexpr (kComp)
          p[i][j] = gemm::mul_add(a[i], b[j], FIRST ? 0.0f : p[i][j], FMA);
        else
          s[i][j] = gemm::mul_add(a[i], b[j], s[i][j], FMA);
      }
  }

  __device__ void flush() {
    if constexpr (kComp) {
#pragma unroll
      for (int q = 0; q < kGroups; ++q) {
        const float* x = &p[q / (P::TN / 4)][q % (P::TN / 4) * 4];
        float4 t = get_s(q), v = get_c(q);
        gemm::comp_add(COMP, t.x, v.x, x[0]);
        gemm::comp_add(COMP, t.y, v.y, x[1]);
        gemm::comp_add(COMP, t.z, v.z, x[2]);
        gemm::comp_add(COMP, t.w, v.w, x[3]);
        set_s(q, t);
        set_c(q, v);
      }
      restart_strip();
    }
  }
};

// Shared memory of one kernel instance: the k-tiles, then the (s, c) groups the policy puts there.
template <class P, int COMP>
constexpr size_t smem_bytes() {
  static_assert(sizeof(Smem<P>) % 16 == 0, "the (s, c) groups follow the k-tiles 16-byte aligned");
  return sizeof(Smem<P>) + sizeof(float4) * MicroTile<P, COMP, true>::smem_groups();
}

// One k-tile of the shared tiles: all BK steps (FULL, unrolled) or the first kmax. EACH: a
// compensated addition after every product (tile = 1). A strip's first product enters p = +0
// (flush() leaves it so), mul_add(a, b, 0) as in the definition, so every k-tile of a strip is
// one and the same code: a separate unrolled copy for the strip's first k-tile doubled the loop's
// code, and instruction fetch stalled on it.
template <class P, int COMP, bool FMA, bool EACH, bool FULL>
__device__ void consume_tile(MicroTile<P, COMP, FMA>& acc, const Smem<P>& sm, int buf, int kmax) {
#pragma unroll
  for (int kk = 0; kk < P::BK; ++kk) {
    if (!FULL && kk >= kmax) break;
    acc.template step<EACH>(sm, buf, kk);
    if (EACH) acc.flush();
  }
}

template <class P, int COMP, bool FMA, bool EACH>
__device__ void consume(MicroTile<P, COMP, FMA>& acc, const Smem<P>& sm, int buf, int kmax) {
  if (kmax == P::BK)
    consume_tile<P, COMP, FMA, EACH, true>(acc, sm, buf, kmax);
  else
    consume_tile<P, COMP, FMA, EACH, false>(acc, sm, buf, kmax);
}

// Block (tile_m, tile_n) of the grid, in column strips of kGroupTilesM row tiles.
template <class P>
__device__ void block_tile(const Shape& sh, int& tile_m, int& tile_n) {
  const int tiles_m = (sh.M + P::BM - 1) / P::BM, tiles_n = (sh.N + P::BN - 1) / P::BN;
  const int id = blockIdx.x, per_strip = P::kGroupTilesM * tiles_n;
  const int first_m = id / per_strip * P::kGroupTilesM;
  const int rows = tiles_m - first_m < P::kGroupTilesM ? tiles_m - first_m : P::kGroupTilesM;
  const int in_strip = id % per_strip;
  tile_m = first_m + in_strip % rows;
  tile_n = in_strip / rows;
}

// One block per tile of C.
template <class P>
unsigned blocks_of(int64_t M, int64_t N) {
  return static_cast<unsigned>(((M + P::BM - 1) / P::BM) * ((N + P::BN - 1) / P::BN));
}

// alpha*s + beta*c_in of entry (i, j) (gemm::finish), with the non-finite fallback of
// families/gemm/gemm_serial.hpp: a compensated entry that came out NaN or infinite is recomputed plainly.
template <class P, int COMP, bool FMA>
__device__ float entry_out(const MicroTile<P, COMP, FMA>& acc, int i, int j, int gm, int gn, const Shape& sh,
                           float alpha, float beta, const float* A, const float* B, const float* C) {
  float v = acc.total(i, j);
  if (COMP != kNone && alpha != 0.0f && !gemm::finite(v))
    v = gemm::dot_entry(A + gm, sh.M, B + static_cast<size_t>(gn) * sh.K, sh.K, kNone, 1, FMA);
  return gemm::finish(v, alpha, beta, C + gm + static_cast<size_t>(gn) * sh.M, FMA);
}

template <class P, int COMP, bool FMA>
__device__ void store_tile(const MicroTile<P, COMP, FMA>& acc, int m0, int n0, bool inside, const Shape& sh,
                           float alpha, float beta, const float* A, const float* B, const float* C, float* out) {
#pragma unroll
  for (int j = 0; j < P::TN; ++j) {
    const int gn = n0 + acc.col(j);
#pragma unroll
    for (int g = 0; g < P::kGroupsM; ++g) {
      const int gm = m0 + acc.row(4 * g);
      if (inside) {  // four consecutive rows of one column (M % 4 == 0): one 16-byte store
        float4 v;
        v.x = entry_out(acc, 4 * g, j, gm, gn, sh, alpha, beta, A, B, C);
        v.y = entry_out(acc, 4 * g + 1, j, gm + 1, gn, sh, alpha, beta, A, B, C);
        v.z = entry_out(acc, 4 * g + 2, j, gm + 2, gn, sh, alpha, beta, A, B, C);
        v.w = entry_out(acc, 4 * g + 3, j, gm + 3, gn, sh, alpha, beta, A, B, C);
        *reinterpret_cast<float4*>(out + gm + static_cast<size_t>(gn) * sh.M) = v;
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (gm + q < sh.M && gn < sh.N)
            out[gm + q + static_cast<size_t>(gn) * sh.M] =
                entry_out(acc, 4 * g + q, j, gm + q, gn, sh, alpha, beta, A, B, C);
      }
    }
  }
}

// After the k-tile that ends a strip (in_strip products so far reach tile, or K ends), the
// compensated kernels add each entry's strip sum to its total.
template <class P, int COMP, bool FMA, bool EACH>
__device__ void consume_and_flush(MicroTile<P, COMP, FMA>& acc, const Smem<P>& sm, int buf, int k0, bool more, int tile,
                                  int& in_strip, const Shape& sh) {
  constexpr bool kStrips = COMP != kNone && !EACH;
  const int kmax = sh.K - k0 < P::BK ? sh.K - k0 : P::BK;
  consume<P, COMP, FMA, EACH>(acc, sm, buf, kmax);
  in_strip += P::BK;
  if (kStrips && (in_strip == tile || !more)) {
    acc.flush();
    in_strip = 0;
  }
}

// k-tiles double-buffered through registers: the next tile's global loads are in flight while the
// current one is consumed; one barrier per k-tile.
template <class P, int COMP, bool FMA, bool EACH>
__device__ void k_loop_registers(MicroTile<P, COMP, FMA>& acc, Smem<P>& sm, const Shape& sh, int tile, int m0, int n0,
                                 bool vector_ok, const float* A, const float* B) {
  const int tiles = (sh.K + P::BK - 1) / P::BK;
  TileLoader<P> ld{{}, {}, A, B, sh, m0, n0, vector_ok};
  ld.load(0);
  ld.store(sm, 0);
  __syncthreads();
  int in_strip = 0;  // products of the current strip so far (counted, not k0 % tile: no division)
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1, k0 = t * P::BK;
    const bool more = t + 1 < tiles;
    if (more) ld.load(k0 + P::BK);
    consume_and_flush<P, COMP, FMA, EACH>(acc, sm, buf, k0, more, tile, in_strip, sh);
    if (more) ld.store(sm, buf ^ 1);
    __syncthreads();
  }
}

// k-tiles through the cp.async ring of kStages slots: kStages - 1 tiles are requested before the
// first is consumed; at tile t, once its copies have landed (wait_group) and every thread is past
// tile t - 1 (the barrier), tile t + kStages - 1 is requested into t - 1's slot. One barrier per
// k-tile; a group is committed every iteration, empty or not, so wait_group<kStages - 2> always
// means "tile t has landed".
template <class P, int COMP, bool FMA, bool EACH>
__device__ void k_loop_async(MicroTile<P, COMP, FMA>& acc, Smem<P>& sm, const Shape& sh, int tile, int m0, int n0,
                             bool vector_ok, const float* A, const float* Bt) {
  const int tiles = (sh.K + P::BK - 1) / P::BK;
  AsyncTileLoader<P> ld(A, Bt, sh, m0, n0, vector_ok);
#pragma unroll
  for (int t = 0; t < P::kStages - 1; ++t) {
    if (t < tiles) ld.load(sm, t, t * P::BK);
    cp_async_commit();
  }
  int in_strip = 0, buf = 0, next_buf = P::kStages - 1;
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<P::kStages - 2>();
    __syncthreads();
    const int next = t + P::kStages - 1;
    if (next < tiles) ld.load(sm, next_buf, next * P::BK);
    cp_async_commit();
    consume_and_flush<P, COMP, FMA, EACH>(acc, sm, buf, t * P::BK, t + 1 < tiles, tile, in_strip, sh);
    buf = buf + 1 == P::kStages ? 0 : buf + 1;
    next_buf = next_buf + 1 == P::kStages ? 0 : next_buf + 1;
  }
}

// The kernel: C tile of block_tile(), k-tiles through registers or the cp.async ring (the
// policy's kStages; Bt is B copied row-major for the ring, unused otherwise). Compensated: EACH
// compensates after every product (tile = 1); otherwise strips of `tile` products, a multiple of
// BK, so strips end on k-tile boundaries (the last one where K ends).
template <class P, int COMP, bool FMA, bool EACH>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocksPerSm)
    sgemm_blocked(Shape sh, int tile, float alpha, float beta, const float* __restrict__ A, const float* __restrict__ B,
                  const float* __restrict__ Bt, const float* __restrict__ C, float* __restrict__ out) {
  static_assert(COMP != kNone || !EACH, "the plain kernel has no strips");
  extern __shared__ float4 smem_raw[];
  Smem<P>& sm = *reinterpret_cast<Smem<P>*>(smem_raw);
  int tile_m, tile_n;
  block_tile<P>(sh, tile_m, tile_n);
  const int m0 = tile_m * P::BM, n0 = tile_n * P::BN;
  const bool inside = m0 + P::BM <= sh.M && n0 + P::BN <= sh.N && sh.M % 4 == 0;
  // 16-byte rows: A's columns (M % 4), and B's columns (K % 4) or Bt's rows (N % 4).
  const bool vector_ok = inside && (P::kAsync ? sh.N % 4 == 0 : sh.K % 4 == 0);
  MicroTile<P, COMP, FMA> acc;
  acc.init(smem_raw + sizeof(Smem<P>) / sizeof(float4));
  if (alpha != 0.0f && sh.K > 0) {  // BLAS: alpha == 0 reads neither A nor B
    if constexpr (P::kAsync)
      k_loop_async<P, COMP, FMA, EACH>(acc, sm, sh, tile, m0, n0, vector_ok, A, Bt);
    else
      k_loop_registers<P, COMP, FMA, EACH>(acc, sm, sh, tile, m0, n0, vector_ok, A, B);
  }
  store_tile(acc, m0, n0, inside, sh, alpha, beta, A, B, C, out);
}

}  // namespace accsum::cuda::gemm_tile
