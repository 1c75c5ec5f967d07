#pragma once
// The tiled SGEMM kernel's tuning, named once (backends/cuda/agent/gemm_tile_agent.cuh reads every
// launch and loop constant from it; a retune is a new policy type, not a kernel edit).
//
// A block of kThreads computes a BM x BN tile of C; every k-tile of BK it stages A (BM x BK) and
// B (BK x BN) in shared memory, either double-buffered through registers (STAGES = 0) or copied
// global -> shared by cp.async into a ring of STAGES k-tiles (STAGES >= 3: STAGES - 1 k-tiles in
// flight while one is consumed; B is read from a row-major copy made in the same timed run,
// backends/cuda/agent/gemm_tile_agent.cuh). Each thread owns TM x TN
// entries of C: TM / 4 groups of 4 consecutive rows and TN / 4 groups of 4 consecutive columns
// (one 16-byte shared-memory read per group and k), the groups a half (quarter) tile apart. A warp
// is 4 x 8 threads (rows x columns), so a fragment read touches 4 (A) and 8 (B) distinct 16-byte
// words: one shared-memory wavefront each.
//
// The compensated kernels keep, per entry, the strip sum p in registers and the total s and its
// compensation c where HOME says: both in registers, c in shared memory (touched once per strip),
// or both in shared memory (the thread then holds only p: fewer registers, more blocks per SM).
#include <string>

namespace accsum::cuda {

enum GemmCompHome : int { kCompInRegs = 0, kCompInSmem = 1, kTotalInSmem = 2 };

template <int BM_, int BN_, int BK_, int TM_, int TN_, int MIN_BLOCKS_PER_SM_, int HOME_ = kCompInSmem, int STAGES_ = 0>
struct GemmTilePolicy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int kMinBlocksPerSm = MIN_BLOCKS_PER_SM_;  // __launch_bounds__: caps registers
  static constexpr int kHome = HOME_;                         // compensated kernels only
  static constexpr int kStages = STAGES_;                     // 0: staged through registers; else the cp.async ring
  static constexpr bool kAsync = kStages > 0;
  static constexpr int kBufs = kAsync ? kStages : 2;  // k-tiles held in shared memory
  static constexpr int kThreadsM = BM / TM, kThreadsN = BN / TN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr int kWarpThreadsM = 4, kWarpThreadsN = 8;  // one warp: 4 x 8 threads
  static constexpr int kWarpsN = kThreadsN / kWarpThreadsN;
  static constexpr int kGroupsM = TM / 4, kGroupsN = TN / 4;  // float4 groups per thread
  static constexpr int kGroupStrideM = BM / kGroupsM, kGroupStrideN = BN / kGroupsN;
  // Loads per thread and k-tile: 16 bytes each, A along m (contiguous in column-major A), B along
  // k (contiguous in column-major B, transposed into shared memory) or, with the cp.async ring,
  // along n (contiguous in the row-major copy of B, landing as [k][n] as they are).
  static constexpr int kALoads = BM * BK / 4 / kThreads, kBLoads = BN * BK / 4 / kThreads;
  // B's shared rows are padded for the register path: a warp's transposed stores cover 16 columns
  // and two 4-k groups (TileLoader), which then land in different banks (4 * (BN + 4) floats is an
  // odd multiple of 16 banks). The cp.async path copies 16-byte row segments as they are: no padding.
  static constexpr int kPadB = kAsync ? 0 : 4;
  // Raster: blocks run in column strips of kGroupTilesM row tiles, so the blocks resident at one
  // time share A panels and B panels in L2.
  static constexpr int kGroupTilesM = 8;

  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4");
  static_assert(kThreadsM % kWarpThreadsM == 0 && kThreadsN % kWarpThreadsN == 0, "whole warps");
  static_assert((kThreadsM / kWarpThreadsM) * kWarpsN * 32 == kThreads, "warp layout covers the block");
  static_assert(BM * BK % (4 * kThreads) == 0 && BN * BK % (4 * kThreads) == 0, "whole float4 loads per thread");
  static_assert(BK % 8 == 0 && 16 % BK == 0, "B loads pair 4-k groups; strips of 16 end on k-tile boundaries");
  static_assert(kThreads % (BM / 4) == 0, "an A load covers whole columns of the tile");
  static_assert(kAsync || (BN + kPadB) % 8 == 4, "the padded B row is an odd multiple of 16 banks");
  static_assert(!kAsync || kStages >= 3, "a ring of fewer than 3 k-tiles has no copy in flight beside the barrier");

  // "BMxBNxBK-TMxTN" (plain), with the home of (s, c) appended for the compensated kernels, then
  // "-cpS" for a cp.async ring of S k-tiles.
  static std::string name(bool compensated) {
    std::string n = std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "-" +
                    std::to_string(TM) + "x" + std::to_string(TN);
    if (compensated) n += kHome == kCompInRegs ? "-regs" : kHome == kCompInSmem ? "-smc" : "-smsc";
    if (kAsync) n += "-cp" + std::to_string(kStages);
    return n;
  }
};

template <class... P>
struct GemmPolicyList {
  static constexpr int size = sizeof...(P);
};

// With the cp.async ring (kStages k-tiles in shared memory, global -> shared without registers).
// Plain: the register-staged winner's shape with 4 k-tiles in flight; 8 x 8 per thread at two 256-thread
// blocks per SM (16 warps: the registers that held the staged float4s no longer count, so it fits the
// 128-register cap without spills), with 3 or 4 k-tiles; 256 x 128 at 512 threads, one block per SM
// ((BM + BN) / (BM BN) floats loaded per product: 3/256, not 4/256), with 3 or 4 k-tiles; 128 x 256
// with 8 x 16 per thread in one 256-thread block (the 255-register cap). Compensated: the register-staged
// shape (c in shared memory) with 3 or 4 k-tiles; 128 x 64 with (s, c) in shared memory at two
// 256-thread blocks per SM (the 128-register cap, 16 warps). (BK = 32, half the barriers, spills with
// the k-tile fully unrolled: 52-72 bytes at 8 x 8 and two blocks per SM, 104 at 8 x 16 with fma; ptxas
// of nvcc 13.0.) scripts/gpu/gemm_pipeline_sweep.sh measures them on a sweep build.
using PlainRingPolicy = GemmTilePolicy<128, 128, 8, 8, 16, 2, kCompInSmem, 4>;
using PlainRingWarpsPolicy = GemmTilePolicy<128, 128, 16, 8, 8, 2, kCompInSmem, 3>;
using CompRingPolicy = GemmTilePolicy<128, 128, 16, 8, 8, 1, kCompInSmem, 4>;
using PlainRingStages4Policy = GemmTilePolicy<128, 128, 16, 8, 8, 2, kCompInSmem, 4>;
using PlainRingTallPolicy = GemmTilePolicy<256, 128, 16, 8, 8, 1, kCompInSmem, 3>;
using PlainRingTallStages4Policy = GemmTilePolicy<256, 128, 16, 8, 8, 1, kCompInSmem, 4>;
using PlainRingWidePolicy = GemmTilePolicy<128, 256, 16, 8, 16, 1, kCompInSmem, 3>;
using CompRingStages3Policy = GemmTilePolicy<128, 128, 16, 8, 8, 1, kCompInSmem, 3>;
using CompRingTwoBlocksPolicy = GemmTilePolicy<128, 64, 16, 8, 4, 2, kTotalInSmem, 3>;

// Plain SGEMM: accumulators only, so several blocks per SM. The first is the kernel measured at
// 0.77x cuBLAS (README); the others trade barrier count (BK = 16), warps per SM and reuse.
using PlainSweepPolicies = GemmPolicyList<GemmTilePolicy<128, 128, 8, 8, 8, 2>,   // 256 threads
                                          GemmTilePolicy<128, 128, 16, 8, 8, 2>,  // 256
                                          GemmTilePolicy<128, 64, 16, 8, 4, 3>,   // 256
                                          GemmTilePolicy<64, 128, 16, 4, 8, 2>,   // 256
                                          GemmTilePolicy<128, 128, 16, 8, 4, 1>,  // 512
                                          GemmTilePolicy<128, 64, 16, 8, 8, 3>,   // 128
                                          GemmTilePolicy<128, 128, 8, 8, 16, 2>,  // 128
                                          GemmTilePolicy<256, 128, 16, 8, 8, 1>,  // 512
                                          // cp.async ring (the last template argument: k-tiles in it)
                                          PlainRingPolicy,                                         // 128
                                          PlainRingWarpsPolicy,                                    // 256
                                          GemmTilePolicy<128, 128, 16, 8, 16, 2, kCompInSmem, 3>,  // 128
                                          PlainRingStages4Policy,                                  // 256
                                          PlainRingTallPolicy,                                     // 512
                                          PlainRingTallStages4Policy,                              // 512
                                          PlainRingWidePolicy>;                                    // 256

// Kahan and DCS: (p, s, c) per entry. 8 x 8 per thread with s in registers needs > 128
// registers, hence one block per SM (the measured 0.70x / 0.66x). With s and c in shared memory
// a thread holds only p, which buys two blocks per SM (a block's barrier no longer idles the SM)
// or 16 warps in one block. (-smc at two blocks per SM spills under the 128-register cap, ptxas
// of nvcc 13.0, so those are -smsc.)
using CompSweepPolicies = GemmPolicyList<GemmTilePolicy<128, 128, 8, 8, 8, 1, kCompInSmem>,    // 256 threads
                                         GemmTilePolicy<128, 128, 16, 8, 8, 1, kCompInSmem>,   // 256
                                         GemmTilePolicy<128, 128, 16, 8, 4, 1, kTotalInSmem>,  // 512
                                         GemmTilePolicy<128, 64, 16, 8, 4, 2, kTotalInSmem>,   // 256
                                         GemmTilePolicy<64, 128, 16, 4, 8, 2, kTotalInSmem>,   // 256
                                         GemmTilePolicy<128, 64, 16, 8, 8, 2, kTotalInSmem>,   // 128
                                         GemmTilePolicy<64, 64, 16, 4, 4, 2, kCompInRegs>,     // 256
                                         // cp.async ring (the last template argument: k-tiles in it)
                                         CompRingPolicy,                                           // 256
                                         CompRingStages3Policy,                                    // 256
                                         CompRingTwoBlocksPolicy,                                  // 256
                                         GemmTilePolicy<128, 128, 16, 8, 4, 1, kTotalInSmem, 4>>;  // 512
// (128x128x8-8x16 with both totals in shared memory, the plain winner's shape, was tried: 0.49-0.61x,
// one 4-warp block per SM; results/gemm_policies_comp_h200.md.)

// What --policy=auto runs: the fastest of the H100 sweeps (scripts/gpu/gemm_pipeline_sweep.sh,
// results/gemm_pipeline_sweep_h100.json; N = 4096 and 8192, U[0,1)): for sgemm the 128 x 256 ring with
// 8 x 16 per thread, for Kahan and DCS (tile 64) auto's compensated shape with 3 k-tiles in flight. The
// register-staged plain kernel (the auto before the ring) stays in every build as the reference the ring
// is compared with.
using AutoPlainPolicy = PlainRingWidePolicy;
using AutoCompPolicy = CompRingStages3Policy;  // Kahan and DCS alike
using StagedPlainPolicy = GemmTilePolicy<128, 128, 8, 8, 16, 2>;
inline constexpr const char* kAutoPlainPolicy = "128x256x16-8x16-cp3";
inline constexpr const char* kAutoKahanPolicy = "128x128x16-8x8-smc-cp3";
inline constexpr const char* kAutoDcsPolicy = "128x128x16-8x8-smc-cp3";

// The policies compiled into this build. Each policy is 2 (plain: fma 0/1) or 4 (compensated: also
// tile 1 / strips) kernel instances of about 5-10 s of nvcc each, so a default build compiles what
// --policy=auto runs and the register-staged plain reference; -DACCSUM_GEMM_POLICY_SWEEP=ON (CMake)
// compiles the sweep lists above for scripts/gpu/gemm_policies.sh and gemm_pipeline_sweep.sh. --policy still names
// every sweep policy and refuses, with the option's name, one that is not compiled in
// (backends/cuda/gemm_cuda.cu).
#if ACCSUM_GEMM_POLICY_SWEEP
inline constexpr bool kGemmPolicySweep = true;
using PlainGemmPolicies = PlainSweepPolicies;
using CompGemmPolicies = CompSweepPolicies;
#else
inline constexpr bool kGemmPolicySweep = false;
using PlainGemmPolicies = GemmPolicyList<AutoPlainPolicy, StagedPlainPolicy>;
using CompGemmPolicies = GemmPolicyList<AutoCompPolicy>;
#endif
inline constexpr const char* kGemmPolicySweepOption = "-DACCSUM_GEMM_POLICY_SWEEP=ON";

}  // namespace accsum::cuda
