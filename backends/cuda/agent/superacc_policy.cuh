#pragma once
// The superaccumulator kernel's tuning, named once (as CUB's agent policies name theirs): the
// kernel template takes a policy type and reads every launch and loop constant from it.
// Defaults are the configuration measured fastest on the H200 (results/superacc_cuda_*.json).
#include <type_traits>

#include "core/numerics/superacc.hpp"

namespace accsum::cuda {

template <int FPE, bool EARLY_EXIT, bool DOT, bool LANES = true>
struct SuperaccPolicy {
  // Algorithm: level-1 expansion size (0 = pure superaccumulator), its early exit, sum or dot;
  // LANES: a private superaccumulator per thread (level 2) takes what the expansion leaves, else
  // the block's shared one does, with atomics (Collange et al.'s expansion-first design: no private
  // digits, so no per-thread clear or lane merge, and the registers alone bound the warps per SM).
  static constexpr int kFpe = FPE;
  static constexpr bool kEarlyExit = EARLY_EXIT;
  static constexpr bool kDot = DOT;
  static constexpr bool kLanes = LANES;
  static_assert(LANES || FPE > 0, "without private lanes every term would be a shared-memory atomic");
  static constexpr int kExpansionTerms = FPE > 0 ? FPE : 1;  // the register array (FPE = 0: unused)
  // The block record: core's exact accumulator, wide enough for sums or for exact products.
  using Record = SuperaccOf<DOT>;

  // Launch: threads per block is a run-time parameter (128, 256 or 512) up to kMaxBlockThreads;
  // one block per SM at 512 threads is what the private accumulators' shared memory allows;
  // without them two (64 registers a thread).
  static constexpr int kMaxBlockThreads = 512;
  static constexpr int kMinBlocksPerSm = LANES ? 1 : 2;
  static constexpr int kMaxGrid = 1 << 20;
  // At least one block per 2^28 terms, so that a block's shared SuperaccDot digits (dot slow
  // path, atomics) receive fewer than 2^31 pieces and never need a carry.
  static constexpr int kLogMaxTermsPerBlock = 28;

  // Items: per thread and iteration, kVecsPerThread 16-byte loads of each input vector (sum
  // 4 x 16 B of x; dot 2 x 16 B of x and of y); with the next iteration's loads issued before
  // this one is processed, 128 B per thread are in flight.
  static constexpr int kVecsPerThread = DOT ? 2 : 4;
  static constexpr int kItemsPerThread = 2 * kVecsPerThread;
  // Pieces a lane digit may receive per value: one slow-path or direct add and one ring flush
  // (a dot value is a product and its error). The lane accumulator is normalized before the
  // bound of core/numerics/superacc_lanes.h (kLaneMaxPending) can be reached.
  static constexpr int kPiecesPerIter = 2 * (DOT ? 2 * kItemsPerThread : kItemsPerThread);
  static constexpr int kPiecesPerTail = 2 * (DOT ? 4 : 2);

  // Warp level: residues waiting per warp (at most 31 between flushes, + 32 pushed).
  static constexpr int kWarpRing = 64;

  // Adaptive mode: if more than kAdaptMaxBusy of kAdaptWindow iterations left a residue in the
  // warp, the warp bypasses the expansion for kAdaptDirect iterations.
  static constexpr int kAdaptWindow = 16;
  static constexpr int kAdaptMaxBusy = 4;
  static constexpr int kAdaptDirect = 240;
};

}  // namespace accsum::cuda
