#pragma once
// Level 1 of Collange, Defour, Graillat, Iakymchuk 2015 (§3.1, Alg. 2): a floating-point expansion of N doubles that
// absorbs consecutive terms with TwoSum (the step: core/numerics/expansion.h) and hands the part it cannot hold (the
// residue) to a superaccumulator (core/numerics/superacc.hpp).
//
// Exactness: after every accumulate(x), a[0] + ... + a[N-1] + residue equals the old
// a[0] + ... + a[N-1] + x exactly, because each TwoSum is error-free. TwoSum stays
// error-free as long as nothing overflows (subnormals are fine), which these preconditions
// guarantee:
//   - every x is finite with |x| < kFpeMaxInput (2^970); other values, and zeros whose sign
//     matters, go straight to the superaccumulator (fpe_accepts);
//   - at most kFpeMaxAccumulations calls between two flushes. Every residue has |r| <= |x|
//     (TwoSum in round-to-nearest), so each a[i] is a rounded sum of at most 2^50 values
//     below 2^970 and stays below 2^1021: a TwoSum of two such values cannot overflow.
// flush_to() adds every term to the superaccumulator and clears the expansion. The sign of an
// exact zero result needs to know whether any (nonzero) term went through the expansion: the
// caller says so with `fed` (the terms themselves may all have cancelled to zero).
#include <cstdint>

#include "core/numerics/eft.hpp"
#include "core/numerics/expansion.h"
#include "base/hd.hpp"

namespace accsum {

constexpr double kFpeMaxInput = 0x1p970;
constexpr int64_t kFpeMaxAccumulations = int64_t(1) << 50;

// True when x may enter an expansion: finite, nonzero (the sign of a zero term is tracked by
// the superaccumulator) and below kFpeMaxInput. NaN fails both comparisons.
ACCSUM_HD bool fpe_accepts(double x) { return x != 0.0 && (x < kFpeMaxInput && x > -kFpeMaxInput); }

template <int N>
struct Fpe {
  static_assert(N >= 1, "an expansion has at least one term");
  double a[N];

  ACCSUM_HD void clear() {
    for (int i = 0; i < N; ++i) a[i] = 0.0;
  }

  // Alg. 2 without early exit: x goes through all N TwoSums; returns the residue (0 when the
  // expansion absorbed x). A nonzero residue must be added to the superaccumulator.
  ACCSUM_HD double accumulate(double x) { return accsum_expansion_absorb(a, N, x, 0); }

  // Alg. 2 with early exit: stops as soon as the error becomes zero (same exact result,
  // fewer operations on well-conditioned data, a data-dependent branch).
  ACCSUM_HD double accumulate_early_exit(double x) { return accsum_expansion_absorb(a, N, x, 1); }

  // Adds every nonzero term to `acc` (anything with add(double)) and clears the expansion.
  // fed: whether any term was accumulated since the last flush; then a +0 is recorded too,
  // so that an exact zero sum of nonzero terms rounds to +0, never -0 (IEEE 754, mpfr_sum).
  template <class Acc>
  ACCSUM_HD void flush_to(Acc& acc, bool fed = true) {
    for (int i = 0; i < N; ++i) {
      if (a[i] != 0.0) acc.add(a[i]);
      a[i] = 0.0;
    }
    if (fed) acc.add(0.0);
  }
};

}  // namespace accsum
