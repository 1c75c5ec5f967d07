#pragma once
// Host pieces of sgemm-ozaki shared by the cpu and cuda backends (the numerics: core/numerics/ozaki.hpp):
// the --slices parameter, the line summaries of A's rows and B's columns, and what a run reports.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/numerics/ozaki.hpp"
#include "core/frame/registry.hpp"

namespace accsum::ozaki {

inline ParamSpec slices_param() {
  ParamSpec p{"slices",
              "int8 products (moduli) of the Ozaki scheme II, 2.." + std::to_string(kMaxModuli) +
                  "; 0: the fewest that make every entry exact (else " + std::to_string(kMaxModuli) +
                  ", and the run reports the rows/columns not covered)",
              true, 0, kMaxModuli, {"0"}, "0"};
  for (int L = kMinModuli; L <= kMaxModuli; ++L) p.choices.push_back(std::to_string(L));
  return p;
}

// Per line: the largest |entry| bits and the lowest set-bit exponent over its entries.
struct Lines {
  std::vector<uint32_t> max_bits;
  std::vector<int> low;
};

// count lines of `len` entries; entry k of line i at x[i * line_stride + k * entry_stride].
inline Lines summarize_lines(const float* x, int64_t count, int64_t len, int64_t line_stride, int64_t entry_stride) {
  Lines s{std::vector<uint32_t>(static_cast<size_t>(count), 0u), std::vector<int>(static_cast<size_t>(count), kNoLow)};
  for (int64_t i = 0; i < count; ++i)
    for (int64_t k = 0; k < len; ++k) {
      const uint32_t b = abs_bits(x[i * line_stride + k * entry_stride]);
      s.max_bits[static_cast<size_t>(i)] = std::max(s.max_bits[static_cast<size_t>(i)], b);
      if (b < kInfBits) s.low[static_cast<size_t>(i)] = std::min(s.low[static_cast<size_t>(i)], low_exponent(b));
    }
  return s;
}

// Throws UsageError when `moduli` (> 0) cannot hold even products of 1-bit integers at this K.
inline Plan plan_for(int64_t K, const Lines& rows, const Lines& cols, int moduli) {
  if (moduli > 0 && bit_budget(moduli, K) < 0)
    throw UsageError("--slices=" + std::to_string(moduli) + " cannot hold products of inner dimension " +
                     std::to_string(K) + " (the moduli's product must exceed 2K): give more slices");
  return make_plan(K, rows.max_bits.data(), rows.low.data(), static_cast<int64_t>(rows.low.size()), cols.max_bits.data(),
                   cols.low.data(), static_cast<int64_t>(cols.low.size()), moduli);
}

// What every sgemm-ozaki run reports.
inline std::vector<std::pair<std::string, double>> plan_info(const Plan& p, int64_t K) {
  return {{"ozaki_slices", static_cast<double>(p.moduli)},
          {"ozaki_int8_products", static_cast<double>(int8_products(p, K))},
          {"ozaki_bits_a", static_cast<double>(p.bits_a)},
          {"ozaki_bits_b", static_cast<double>(p.bits_b)},
          {"ozaki_need_bits_a", static_cast<double>(p.need_a)},
          {"ozaki_need_bits_b", static_cast<double>(p.need_b)},
          {"ozaki_rows_uncovered", static_cast<double>(p.rows_uncovered)},
          {"ozaki_cols_uncovered", static_cast<double>(p.cols_uncovered)},
          {"ozaki_exact", p.exact() ? 1.0 : 0.0}};
}

}  // namespace accsum::ozaki
