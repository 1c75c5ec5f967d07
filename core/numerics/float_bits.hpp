#pragma once
// A binary32 or binary64 value's bits and back, in host and CUDA device code.
#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"

namespace accsum {

template <class F>
using FloatBitsOf = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;

template <class F>
ACCSUM_HD FloatBitsOf<F> bits_of(F x) {
  using Bits = FloatBitsOf<F>;
  Bits u;
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(F) == 4)
    u = static_cast<Bits>(__float_as_uint(x));
  else
    u = static_cast<Bits>(__double_as_longlong(x));
#else
  __builtin_memcpy(&u, &x, sizeof u);
#endif
  return u;
}
template <class F>
ACCSUM_HD F of_bits(FloatBitsOf<F> b) {
  F x;
  __builtin_memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace accsum
