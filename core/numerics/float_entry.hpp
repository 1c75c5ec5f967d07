#pragma once
// One float GEMM entry alpha * sum_k a_k b_k + beta * c summed exactly in a superaccumulator and rounded
// ONCE to float, and the float neighbours that decide whether a rounding is faithful. Shared by the
// gemm oracle, sgemm-ozaki's faithful fallback on cpu, and its CUDA kernel (everything is ACCSUM_HD).
//
// Terms: a product of two floats is exact in binary64, and so is alpha * a; alpha * a * b enters as
// TwoProduct(alpha * a, b) = p + e, exact for float data (|p| < 2^385, no underflow above 2^-447).
// Rounding to double and then to float would be a double rounding: the double RN(exact) is used
// only when it is not a float midpoint; at a midpoint the sign of the exact remainder decides.
#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "core/numerics/float_bits.hpp"
#include "core/numerics/superacc.hpp"

namespace accsum {

// The terms are multiples of 2^-447 (2^-149 for each of alpha, a, b) and below 2^385 (|alpha a b| < 2^384, its
// TwoProduct's head rounded at most up to that). The accumulator places a term's whole 53-bit significand, so
// its lowest digit starts at or below 2^(-447 - 52) (with Superacc's digit alignment); over 2^ACCSUM_COUNT_BITS
// terms it holds every partial sum in 31 digits, not Superacc's 68 (the CUDA fallback keeps one per lane).
constexpr int kFloatTermLowExp = -447, kFloatTermTopExp = 385;
constexpr int kFloatEntryLsb =
    kSumLsb + kSuperaccDigitBits * ((kFloatTermLowExp - ACCSUM_MANT_BITS - kSumLsb) / kSuperaccDigitBits);
constexpr int kFloatEntryDigits =
    (kFloatTermTopExp - kFloatEntryLsb + ACCSUM_COUNT_BITS + kSuperaccDigitBits - 1) / kSuperaccDigitBits;
using FloatEntryAcc = BasicSuperacc<kFloatEntryDigits, kFloatEntryLsb>;
static_assert(kFloatEntryLsb <= kFloatTermLowExp - ACCSUM_MANT_BITS, "a term's significand is in range");
static_assert(kFloatEntryDigits == 31, "the digit count the comment gives");

constexpr uint32_t kFloatInfBits = 0x7f800000u;
constexpr double kFloatTwo128 = 0x1p128;  // the "float" above FLT_MAX: where RN overflows

// For a float magnitude a in [0, FLT_MAX]: the distance to the next float above (FLT_MAX: to 2^128)
// and below (a = 0: to -2^-149, the smallest subnormal). Exact in double.
ACCSUM_HD double float_gap_above(float a) {
  const uint32_t b = bits_of(a);
  const double up = b + 1 >= kFloatInfBits ? kFloatTwo128 : static_cast<double>(of_bits<float>(b + 1));
  return up - static_cast<double>(a);
}
ACCSUM_HD double float_gap_below(float a) {
  const uint32_t b = bits_of(a);
  return b == 0 ? static_cast<double>(of_bits<float>(1))
                : static_cast<double>(a) - static_cast<double>(of_bits<float>(b - 1));
}

// Whether f = RN(v) is a faithful rounding of every x with |x - v| <= e: since |v - f| is at most
// half the gap on v's side, x stays strictly between f's neighbours when e is below half the smaller
// gap (sufficient; the exact x is never needed). e = 0: f is RN(x) itself.
ACCSUM_HD bool faithful_within(float f, double e) {
  if (e == 0) return true;
  const float a = of_bits<float>(bits_of(f) & 0x7fffffffu);
  if (bits_of(a) >= kFloatInfBits) return false;
  const double above = float_gap_above(a), below = float_gap_below(a);
  return e < 0.5 * (above < below ? above : below);
}

// Adds alpha * a * b exactly (the header comment).
template <class Acc>
ACCSUM_HD void add_float_product(Acc& acc, float a, float b, float alpha) {
  if (alpha == 1.0f) {
    acc.add(static_cast<double>(a) * b);
    return;
  }
  const double da = static_cast<double>(alpha) * a;
  const double p = da * b, e = fma(da, b, -p);
  acc.add(p);
  if (p - p == 0 && e != 0) acc.add(e);
}

// The exact value of acc rounded once to float; hi = RN_double(exact), lo = RN_double(exact - hi) (hi is a
// multiple of the exact value's lowest bit or of its own ulp, so -hi stays in acc's range).
template <class Acc>
ACCSUM_HD float superacc_round_float(const Acc& acc, double* hi_out, double* lo_out) {
  const double hi = acc.round();
  const bool finite = hi - hi == 0;
  double lo = 0;
  if (finite) {
    Acc rest = acc;
    rest.add(-hi);
    lo = rest.round();
  }
  *hi_out = hi;
  *lo_out = lo;
  const float f = static_cast<float>(hi);
  if (!finite || static_cast<double>(f) == hi) return f;  // exact in float: hi + lo rounds to it
  // lower, upper: the float magnitudes just below and just above |hi| (upper may be 2^128).
  const double a = hi > 0 ? hi : -hi;
  const float fa = static_cast<float>(a);  // RN; +inf beyond FLT_MAX + half an ulp
  const float lower = static_cast<double>(fa) > a ? of_bits<float>(bits_of(fa) - 1) : fa;
  const double upper = static_cast<double>(lower) + float_gap_above(lower);
  if (a != 0.5 * (static_cast<double>(lower) + upper)) return f;  // not a midpoint: RN(hi) is RN(exact)
  const double toward = hi > 0 ? lo : -lo;                        // > 0: exact magnitude above the midpoint
  const double mag = toward > 0 ? upper : toward < 0 ? static_cast<double>(lower) : static_cast<double>(fa);
  const float r = mag >= kFloatTwo128 ? of_bits<float>(kFloatInfBits) : static_cast<float>(mag);
  return hi > 0 ? r : -r;
}

// The entry exactly, rounded once: the readable definition (a_k at a[k * lda], b_k at b[k]; beta = 0
// does not read c). Finite data (IEEE-special lines take their own path).
ACCSUM_HD float exact_float_entry(const float* a, int64_t lda, const float* b, int64_t K, float alpha, float beta,
                                  const float* c) {
  FloatEntryAcc acc;
  acc.clear();
  if (alpha != 0.0f)
    for (int64_t k = 0; k < K; ++k) add_float_product(acc, a[k * lda], b[k], alpha);
  if (beta != 0.0f) acc.add(static_cast<double>(beta) * *c);
  double hi, lo;
  return superacc_round_float(acc, &hi, &lo);
}

}  // namespace accsum
