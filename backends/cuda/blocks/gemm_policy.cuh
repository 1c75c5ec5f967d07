#pragma once
// The tiled SGEMM kernel's tuning, named once (backends/cuda/gemm_tile_agent.cuh reads every
// launch and loop constant from it; a retune is a new policy type, not a kernel edit).
//
// A block of kThreads computes a BM x BN tile of C; every k-tile of BK it stages A (BM x BK) and
// B (BK x BN) in shared memory, double-buffered through registers. Each thread owns TM x TN
// entries of C in registers: TM / 4 groups of 4 consecutive rows and TN / 4 groups of 4
// consecutive columns (one 16-byte shared-memory read per group and k), the groups a half tile
// apart. A warp is 4 x 8 threads (rows x columns), so a fragment read touches 4 (A) and 8 (B)
// distinct 16-byte words: one shared-memory wavefront each.
namespace accsum::cuda {

template <int BM_, int BN_, int BK_, int TM_, int TN_, int MIN_BLOCKS_PER_SM_>
struct GemmTilePolicy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int kMinBlocksPerSm = MIN_BLOCKS_PER_SM_;  // __launch_bounds__: caps registers
  static constexpr int kThreadsM = BM / TM, kThreadsN = BN / TN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr int kWarpThreadsM = 4, kWarpThreadsN = 8;  // one warp: 4 x 8 threads
  static constexpr int kWarpsN = kThreadsN / kWarpThreadsN;
  static constexpr int kGroupsM = TM / 4, kGroupsN = TN / 4;  // float4 groups per thread
  static constexpr int kGroupStrideM = BM / kGroupsM, kGroupStrideN = BN / kGroupsN;
  // Loads per thread and k-tile: 16 bytes each, A along m (contiguous in column-major A), B along
  // k (contiguous in column-major B, transposed into shared memory).
  static constexpr int kALoads = BM * BK / 4 / kThreads, kBLoads = BN * BK / 4 / kThreads;
  // B's shared rows are padded: the transposed stores of the two k-halves of a warp land in
  // different banks (4 * (BN + 4) floats is an odd multiple of 16 banks).
  static constexpr int kPadB = 4;
  // Raster: blocks run in column strips of kGroupTilesM row tiles, so the blocks resident at one
  // time share A panels and B panels in L2.
  static constexpr int kGroupTilesM = 8;

  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4");
  static_assert(kThreadsM % kWarpThreadsM == 0 && kThreadsN % kWarpThreadsN == 0, "whole warps");
  static_assert((kThreadsM / kWarpThreadsM) * kWarpsN * 32 == kThreads, "warp layout covers the block");
  static_assert(BM * BK % (4 * kThreads) == 0 && BN * BK % (4 * kThreads) == 0, "whole float4 loads per thread");
  static_assert(BK % 4 == 0, "B is loaded as float4 along k");
  static_assert(kThreads % (BM / 4) == 0 && kThreads % (BK / 4) == 0, "a load covers whole rows of the tile");
};

// Plain SGEMM: 64 accumulators per thread, two blocks per SM.
using PlainGemmPolicy = GemmTilePolicy<128, 128, 8, 8, 8, 2>;
// Selective compensation: (strip sum, total, compensation) per entry, 192 registers of state per
// thread; one block per SM leaves ptxas the whole register file.
using CompGemmPolicy = GemmTilePolicy<128, 128, 8, 8, 8, 1>;

}  // namespace accsum::cuda
