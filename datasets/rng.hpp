#pragma once
// Counter-based random numbers: every draw is a pure function of (seed, stream, index), so
// element i of a dataset can be made on any thread, rank or GPU without making elements
// 0..i-1 first (the property the GPU and MPI backends rely on). The mixer is SplitMix64's
// finalizer (Steele, Lea, Flood 2014; constants of Stafford's "Mix13"); a draw applies it
// twice with the stream key injected before each round, which makes two streams whose keys
// differ by an index offset still produce unrelated values.
#include <cstdint>

#include "base/hd.hpp"

namespace accsum::rng {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio (SplitMix64 step)

ACCSUM_HD uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One independent stream of draws. Streams used by the generators: x = 0, y = 1; each
// element may take several draws, numbered 0..kDraws-1, each an independent stream.
struct CounterRng {
  static constexpr uint64_t kDraws = 8;
  uint64_t key;

  ACCSUM_HD CounterRng(uint64_t seed, uint64_t stream)
      : key(mix64(mix64(seed + kGolden) ^ (stream * 0xd1b54a32d192ed03ULL + 0x2545f4914f6cdd1dULL))) {}

  // 64 random bits for (index, draw).
  ACCSUM_HD uint64_t u64(uint64_t index, uint64_t draw = 0) const {
    uint64_t k = key + draw * 0xa0761d6478bd642fULL;
    return mix64(mix64(index + k) ^ k);
  }
  // Uniform on [0, 1) with 53 random bits (all multiples of 2^-53).
  ACCSUM_HD double uniform(uint64_t index, uint64_t draw = 0) const {
    return static_cast<double>(u64(index, draw) >> 11) * 0x1p-53;
  }
  // Uniform on [-1, 1): k * 2^-53 for k in [-2^53, 2^53), every value exactly representable.
  ACCSUM_HD double uniform_sym(uint64_t index, uint64_t draw = 0) const {
    return static_cast<double>(static_cast<int64_t>(u64(index, draw) >> 10) - (int64_t(1) << 53)) * 0x1p-53;
  }
  // Integer in [0, m) (m >= 1): the high half of a draw times m (Lemire 2019); bias below m / 2^64.
  ACCSUM_HD uint64_t below(uint64_t m, uint64_t index, uint64_t draw = 0) const {
    return mul_hi64(u64(index, draw), m);
  }
};

// A keyed pseudo-random permutation of [0, n) computable one index at a time: a balanced
// Feistel network on the smallest even-bit power-of-two domain >= n, with cycle walking to
// stay inside [0, n) (Black and Rogaway 2002). Shuffles structured data (cancelling pairs,
// the pieces of a tie) without a sequential Fisher-Yates pass.
struct FeistelPermutation {
  static constexpr int kRounds = 4;  // Luby-Rackoff: 4 rounds make a strong pseudo-random permutation
  uint64_t n = 1;
  int half_bits = 0;  // domain is 2^(2 * half_bits)
  uint64_t keys[kRounds] = {};

  FeistelPermutation() = default;
  ACCSUM_HD FeistelPermutation(uint64_t n_, uint64_t seed, uint64_t stream) : n(n_) {
    int bits = 0;
    while (bits < 64 && (uint64_t(1) << bits) < n) ++bits;
    half_bits = (bits + 1) / 2;
    if (half_bits == 0) half_bits = 1;
    CounterRng rng(seed, stream);
    for (int r = 0; r < kRounds; ++r) keys[r] = rng.u64(static_cast<uint64_t>(r));
  }
  ACCSUM_HD uint64_t round_trip(uint64_t v) const {
    const uint64_t mask = (uint64_t(1) << half_bits) - 1;
    uint64_t left = v >> half_bits, right = v & mask;
    for (int r = 0; r < kRounds; ++r) {
      uint64_t next = left ^ (mix64(right ^ keys[r]) & mask);
      left = right;
      right = next;
    }
    return (left << half_bits) | right;
  }
  // The image of i (0 <= i < n); a bijection of [0, n).
  ACCSUM_HD uint64_t operator()(uint64_t i) const {
    if (n <= 1) return 0;
    uint64_t v = round_trip(i);
    while (v >= n) v = round_trip(v);  // domain < 4n: about 4 rounds at worst on average
    return v;
  }
};

}  // namespace accsum::rng
