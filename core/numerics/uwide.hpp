#pragma once
// A fixed-width unsigned integer of W 64-bit limbs (limb 0 the lowest), for the exact integers of
// dgemm-ozaki that exceed 128 bits (families/gemm/ozaki.hpp). Arithmetic wraps modulo 2^(64 W) as
// the built-in unsigned types do; the callers prove that no result wraps. The operators are the
// ones the Ozaki definitions use on unsigned __int128 too, so one template serves both widths.
// Host and device (ACCSUM_HD); constexpr so that bounds can be checked by static_assert.
#include <cstdint>

#include "base/hd.hpp"

namespace accsum {

template <int W>
struct UWide {
  static_assert(W >= 2, "use uint64_t or unsigned __int128 below two limbs");
  __extension__ typedef unsigned __int128 u128;

  uint64_t limb[W];

  ACCSUM_HD constexpr UWide() : limb{} {}
  ACCSUM_HD constexpr UWide(uint64_t v) : limb{} { limb[0] = v; }  // NOLINT: converts like an integer
  ACCSUM_HD constexpr explicit operator uint64_t() const { return limb[0]; }
  ACCSUM_HD constexpr bool is_zero() const {
    for (int i = 0; i < W; ++i)
      if (limb[i]) return false;
    return true;
  }

  ACCSUM_HD constexpr friend UWide operator+(const UWide& a, const UWide& b) {
    UWide r;
    uint64_t carry = 0;
    for (int i = 0; i < W; ++i) {
      const uint64_t s = a.limb[i] + carry;
      const uint64_t c1 = s < carry;
      r.limb[i] = s + b.limb[i];
      carry = c1 + (r.limb[i] < s);
    }
    return r;
  }
  ACCSUM_HD constexpr friend UWide operator-(const UWide& a, const UWide& b) {
    UWide r;
    uint64_t borrow = 0;
    for (int i = 0; i < W; ++i) {
      const uint64_t d = a.limb[i] - borrow;
      const uint64_t b1 = a.limb[i] < borrow;
      r.limb[i] = d - b.limb[i];
      borrow = b1 + (d < b.limb[i]);
    }
    return r;
  }
  // The low W limbs of the full product (schoolbook, 64 x 64 -> 128-bit partial products).
  ACCSUM_HD constexpr friend UWide operator*(const UWide& a, const UWide& b) {
    UWide r;
    for (int i = 0; i < W; ++i) {
      uint64_t carry = 0;
      for (int j = 0; i + j < W; ++j) {
        const u128 t = static_cast<u128>(a.limb[i]) * b.limb[j] + r.limb[i + j] + carry;
        r.limb[i + j] = static_cast<uint64_t>(t);
        carry = static_cast<uint64_t>(t >> 64);
      }
    }
    return r;
  }
  // Times one limb: W 64 x 64 -> 128-bit products (the CRT weights times residues, C' times alpha's
  // significand), four times fewer than the full product.
  ACCSUM_HD constexpr friend UWide operator*(const UWide& a, uint64_t b) {
    UWide r;
    uint64_t carry = 0;
    for (int i = 0; i < W; ++i) {
      const u128 t = static_cast<u128>(a.limb[i]) * b + carry;
      r.limb[i] = static_cast<uint64_t>(t);
      carry = static_cast<uint64_t>(t >> 64);
    }
    return r;
  }
  ACCSUM_HD constexpr friend UWide operator<<(const UWide& a, int s) {
    UWide r;
    const int q = s / 64, b = s % 64;
    for (int i = W - 1; i >= q; --i) {
      r.limb[i] = a.limb[i - q] << b;
      if (b && i - q - 1 >= 0) r.limb[i] |= a.limb[i - q - 1] >> (64 - b);
    }
    return r;
  }
  ACCSUM_HD constexpr friend UWide operator>>(const UWide& a, int s) {
    UWide r;
    const int q = s / 64, b = s % 64;
    for (int i = 0; i + q < W; ++i) {
      r.limb[i] = a.limb[i + q] >> b;
      if (b && i + q + 1 < W) r.limb[i] |= a.limb[i + q + 1] << (64 - b);
    }
    return r;
  }
  ACCSUM_HD constexpr friend bool operator==(const UWide& a, const UWide& b) {
    for (int i = 0; i < W; ++i)
      if (a.limb[i] != b.limb[i]) return false;
    return true;
  }
  ACCSUM_HD constexpr friend bool operator!=(const UWide& a, const UWide& b) { return !(a == b); }
  ACCSUM_HD constexpr friend bool operator<(const UWide& a, const UWide& b) {
    for (int i = W - 1; i >= 0; --i)
      if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
    return false;
  }
  ACCSUM_HD constexpr friend bool operator>(const UWide& a, const UWide& b) { return b < a; }
  ACCSUM_HD constexpr friend bool operator<=(const UWide& a, const UWide& b) { return !(b < a); }
  ACCSUM_HD constexpr friend bool operator>=(const UWide& a, const UWide& b) { return !(a < b); }
};

// Quotient and remainder by a small divisor d (< 2^32): long division limb by limb, each step a
// 96-bit by 32-bit division done as two 64-bit ones on 32-bit halves.
template <int W>
ACCSUM_HD constexpr UWide<W> divide_small(const UWide<W>& a, uint32_t d, uint32_t* rem) {
  UWide<W> q;
  uint64_t r = 0;
  for (int i = W - 1; i >= 0; --i) {
    const uint64_t hi = (r << 32) | (a.limb[i] >> 32);
    const uint64_t qh = hi / d;
    r = hi % d;
    const uint64_t lo = (r << 32) | (a.limb[i] & 0xffffffffu);
    const uint64_t ql = lo / d;
    r = lo % d;
    q.limb[i] = (qh << 32) | ql;
  }
  *rem = static_cast<uint32_t>(r);
  return q;
}

}  // namespace accsum
