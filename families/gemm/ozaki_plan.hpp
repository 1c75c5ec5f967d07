#pragma once
// Part of families/gemm/ozaki.hpp, which includes it at its end: include that header, not this one.
// The Ozaki scheme's plan (families/gemm/ozaki.hpp, read its comment first), made on the host: how
// many moduli, the scaling of each line, the CRT constants.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace accsum::ozaki {

// ---- the plan (host) ----

struct Plan {
  int moduli = 0;              // L: int8 products per block of kBlockK inner indices
  int bits_a = 0, bits_b = 0;  // |A'| <= 2^bits_a, |B'| <= 2^bits_b
  int need_a = 0, need_b = 0;  // the largest row / column bit span (exact scaling needs bits >= need)
  int64_t rows_uncovered = 0, cols_uncovered = 0;  // lines whose span exceeds the bits given
  ProductBound bound;                              // every |C'_ij| <= bound < P/2
  bool exact() const { return rows_uncovered == 0 && cols_uncovered == 0; }
};

// The largest b with K 2^b < P/2 (-1 when none).
template <class F = float>
int bit_budget(int moduli, int64_t K) {
  using U = typename Format<F>::U;
  const U half = moduli_product_of<U>(moduli) >> 1;
  constexpr int kWidth = static_cast<int>(8 * sizeof(U));
  int b = -1;
  while (b < kWidth - 2 && (static_cast<U>(static_cast<uint64_t>(K)) << (b + 1)) < half) ++b;
  return b;
}

inline int modular_inverse(int a, int p) {
  int t = 0, nt = 1, r = p, nr = a % p;
  while (nr) {
    const int q = r / nr, tt = t - q * nt, tr = r - q * nr;
    t = nt;
    nt = tt;
    r = nr;
    nr = tr;
  }
  return t < 0 ? t + p : t;
}

template <class F = float>
CrtOf<F> make_crt(int moduli) {
  using U = typename Format<F>::U;
  CrtOf<F> c;
  c.moduli = moduli;
  c.product = moduli_product_of<U>(moduli);
  c.product_double = to_double(c.product);
  for (int l = 0; l < moduli; ++l) {
    const int p = modulus(l);
    uint32_t m_mod_p = 0, unused = 0;
    const U m = divide_small(c.product, static_cast<uint32_t>(p), &unused);
    divide_small(m, static_cast<uint32_t>(p), &m_mod_p);
    const int inv = modular_inverse(static_cast<int>(m_mod_p), p);
    c.weight[l] = m * static_cast<uint64_t>(inv);  // inv < p: m * inv < P, already reduced
  }
  for (int l = moduli; l < Format<F>::kMaxModuli; ++l) c.weight[l] = 0;
  return c;
}

// p.moduli = moduli and the split of its bit budget into bits_a + bits_b, given p.need_a, p.need_b:
// both sides exact when the budget holds them, else the side that fits in half keeps its need.
template <class F = float>
void split_bits(Plan& p, int moduli, int64_t K) {
  p.moduli = moduli;
  const int b = std::max(0, bit_budget<F>(moduli, std::max<int64_t>(K, 1)));
  if (p.need_a + p.need_b <= b) {
    p.bits_a = p.need_a;
    p.bits_b = b - p.need_a;
  } else if (p.need_a <= b / 2) {
    p.bits_a = p.need_a;
    p.bits_b = b - p.bits_a;
  } else if (p.need_b <= b / 2) {
    p.bits_b = p.need_b;
    p.bits_a = b - p.bits_b;
  } else {
    p.bits_a = b / 2;
    p.bits_b = b - p.bits_a;
  }
  p.bits_a = std::min(p.bits_a, Format<F>::kMaxSideBits);  // float: the scaled integers stay int64 (scaled_integer)
  p.bits_b = std::min(p.bits_b, Format<F>::kMaxSideBits);
  p.bound = ProductBound{static_cast<uint64_t>(std::max<int64_t>(K, 1)), p.bits_a + p.bits_b};
}

// Whether a bound stays below P/2 for L moduli (the CRT's condition, step 4).
template <class F = float>
bool below_half_product(const ProductBound& b, int moduli) {
  using U = typename Format<F>::U;
  return b.bits() < static_cast<int>(8 * sizeof(U)) && b.as<U>() < (moduli_product_of<U>(moduli) >> 1);
}

// The lines whose span exceeds a plan's bits (p.rows_uncovered, p.cols_uncovered), counted anew.
template <class F = float>
void count_uncovered(Plan& p, const typename Format<F>::Bits* row_max, const int* row_low, int64_t M,
                     const typename Format<F>::Bits* col_max, const int* col_low, int64_t N) {
  p.rows_uncovered = p.cols_uncovered = 0;
  for (int64_t i = 0; i < M; ++i) p.rows_uncovered += line_span(row_max[i], row_low[i]) > p.bits_a;
  for (int64_t j = 0; j < N; ++j) p.cols_uncovered += line_span(col_max[j], col_low[j]) > p.bits_b;
}

// The plan for inner dimension K and the line summaries of A's rows and B's columns; moduli = 0
// chooses L (see the header comment), else L = moduli.
template <class F = float>
Plan make_plan(int64_t K, const typename Format<F>::Bits* row_max, const int* row_low, int64_t M,
               const typename Format<F>::Bits* col_max, const int* col_low, int64_t N, int moduli) {
  Plan p;
  for (int64_t i = 0; i < M; ++i) p.need_a = std::max(p.need_a, line_span(row_max[i], row_low[i]));
  for (int64_t j = 0; j < N; ++j) p.need_b = std::max(p.need_b, line_span(col_max[j], col_low[j]));
  if (moduli == 0) {
    moduli = Format<F>::kMaxModuli;
    for (int L = kMinModuli; L <= Format<F>::kMaxModuli; ++L)
      if (bit_budget<F>(L, std::max<int64_t>(K, 1)) >= p.need_a + p.need_b) {
        moduli = L;
        break;
      }
  }
  split_bits<F>(p, moduli, K);
  count_uncovered<F>(p, row_max, row_low, M, col_max, col_low, N);
  return p;
}

// The int8 products a plan computes for inner dimension K.
inline int64_t int8_products(const Plan& p, int64_t K) {
  return p.moduli * std::max<int64_t>(1, (K + kBlockK - 1) / kBlockK);
}

}  // namespace accsum::ozaki
