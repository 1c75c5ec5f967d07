#pragma once
// A host model of the CUDA superaccumulator kernel's numerics (backends/cuda/superacc_cuda.cu), built from
// the same ACCSUM_HD pieces (core/numerics/superacc_lanes.h through thread/superacc_lanes.cuh: the lane digit split,
// normalization, the carry-free warp sum of unnormalized lanes, re-cut into core's digits, the dot slow path, the
// record merge, the flags, the carry functions and the window rounding) and fed the way the kernel feeds them: per-lane
// expansions whose term 0 starts at -0, residues compacted per warp, private accumulators, block records, one
// device-level merge and the warp's parallel-prefix rounding (emulated lane by lane).
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <type_traits>
#include <vector>

#include "backends/cuda/thread/superacc_lanes.cuh"
#include "core/numerics/superacc.hpp"
#include "tests/same_bits.hpp"

namespace accsum::test {

using namespace accsum::cuda;

// ---------------------------------------------------------------------------------------------
// Host emulation of level 5 on one warp (device/superacc_finish.cuh: warp_normalize, warp_round),
// step by step as the device runs it: v[r][lane] is the register of lane `lane` holding digit
// lane + 32 r, and a shuffle reads another lane's register.
template <int D, int RW>
void emulate_warp_normalize(int64_t (&v)[RW][32]) {
  const int64_t mask = static_cast<int64_t>(kDigitMask);
  for (int pass = 0; pass < 2; ++pass) {
    int64_t c[RW][32], below[RW][32];
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) {
        const bool low = lane + 32 * r < D - 1;
        c[r][lane] = low ? v[r][lane] >> kSuperaccDigitBits : 0;
        if (low) v[r][lane] &= mask;
      }
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) below[r][lane] = c[r][(lane + 31) & 31];
    for (int r = 0; r < RW; ++r)
      for (int lane = 0; lane < 32; ++lane) v[r][lane] += lane > 0 ? below[r][lane] : (r > 0 ? below[r - 1][lane] : 0);
  }
  int row_carry = 0;
  for (int r = 0; r < RW; ++r) {
    unsigned f[32], g[32];
    for (int lane = 0; lane < 32; ++lane) f[lane] = lane + 32 * r < D - 1 ? carry_fn(v[r][lane]) : kCarryIdentity;
    for (int off = 1; off < 32; off <<= 1) {
      for (int lane = 0; lane < 32; ++lane) g[lane] = lane >= off ? f[lane - off] : f[lane];  // __shfl_up_sync
      for (int lane = 0; lane < 32; ++lane)
        if (lane >= off) f[lane] = carry_compose(f[lane], g[lane]);
    }
    for (int lane = 0; lane < 32; ++lane) {
      const int d = lane + 32 * r;
      const int carry = lane > 0 ? carry_apply(f[lane - 1], row_carry) : row_carry;
      if (d < D - 1)
        v[r][lane] = (v[r][lane] + carry) & mask;
      else if (d == D - 1)
        v[r][lane] += carry;
    }
    row_carry = carry_apply(f[31], row_carry);
  }
}

// warp_negate_normalized: the lowest non-zero digit by one vote per row, then each lane's digits.
template <int D, int RW>
void emulate_warp_negate_normalized(int64_t (&v)[RW][32]) {
  int lowest = D - 1;
  for (int r = RW - 1; r >= 0; --r) {
    unsigned m = 0;
    for (int lane = 0; lane < 32; ++lane) m |= (v[r][lane] != 0 ? 1u : 0u) << lane;
    if (m) lowest = 32 * r + __builtin_ctz(m);
  }
  for (int r = 0; r < RW; ++r)
    for (int lane = 0; lane < 32; ++lane) v[r][lane] = negated_normalized_digit(v[r][lane], lane + 32 * r, lowest, D);
}

template <class R>
double emulate_warp_round(const int64_t* digit, unsigned flags, int64_t n, bool one_pass_negate = false) {
  constexpr int D = R::kDigits, RW = (D + 31) / 32;
  int64_t v[RW][32];
  for (int r = 0; r < RW; ++r)
    for (int lane = 0; lane < 32; ++lane) v[r][lane] = lane + 32 * r < D ? digit[lane + 32 * r] : 0;
  emulate_warp_normalize<D>(v);
  const bool negative = v[(D - 1) / 32][(D - 1) % 32] < 0;
  if (negative && one_pass_negate) {
    emulate_warp_negate_normalized<D>(v);
  } else if (negative) {
    for (auto& row : v)
      for (int64_t& x : row) x = -x;
    emulate_warp_normalize<D>(v);
  }
  int k = -1;
  for (int r = RW - 1; r >= 0; --r) {
    unsigned m = 0;
    for (int lane = 0; lane < 32; ++lane) m |= (v[r][lane] != 0 ? 1u : 0u) << lane;
    if (k < 0 && m) k = 32 * r + 31 - __builtin_clz(m);
  }
  bool sticky = false;
  for (int r = 0; r < RW; ++r)
    for (int lane = 0; lane < 32; ++lane) sticky |= lane + 32 * r < k - 2 && v[r][lane] != 0;
  auto at = [&](int d) { return d >= 0 ? v[d / 32][d % 32] : int64_t(0); };
  return round_window<R::kLsbExp>(flags, n, negative, k, at(k), at(k - 1), at(k - 2), sticky);
}

// ---------------------------------------------------------------------------------------------
// Host model of the kernel (levels 1-5), warp-synchronous like the device: each step feeds one
// term to each of the 32 lanes of a warp, then pushes the lanes' residues to the warp's ring.
template <bool DOT>
class KernelModel {
 public:
  using Record = std::conditional_t<DOT, SuperaccDot, Superacc>;
  KernelModel(int fpe, int blocks, int warps_per_block) : fpe_(fpe), blocks_(blocks), warps_(warps_per_block) {}

  double run(const std::vector<double>& x, const std::vector<double>& y) {
    const int64_t n = static_cast<int64_t>(x.size());
    const int lanes_per_block = 32 * warps_;
    std::vector<Record> records(blocks_);
    for (int b = 0; b < blocks_; ++b) {
      Record& rec = records[b];
      rec.clear();
      unsigned block_flags = 0;
      for (int w = 0; w < warps_; ++w) {
        Warp warp(fpe_);
        // Terms of this warp: element i goes to global lane i mod (all lanes), like a grid stride.
        const int64_t total_lanes = static_cast<int64_t>(blocks_) * lanes_per_block;
        const int64_t first = static_cast<int64_t>(b) * lanes_per_block + 32 * w;
        for (int64_t base = first; base < n; base += total_lanes) {
          double terms[32][2];
          bool has[32][2];
          for (int l = 0; l < 32; ++l) {
            const int64_t i = base + l;
            has[l][0] = has[l][1] = false;
            terms[l][0] = terms[l][1] = -0.0;
            if (i >= n) continue;
            if (!DOT) {
              feed_sum(warp.lanes[l], x[i], terms[l][0], has[l][0]);
            } else {
              feed_dot(warp.lanes[l], x[i], y[i], rec, terms[l][0], terms[l][1], has[l][0]);
              has[l][1] = has[l][0];
            }
          }
          // Expansion step for every lane (p at term 0; e at term 1), then compaction.
          for (int t = 0; t < (DOT ? 2 : 1); ++t) {
            double residue[32];
            for (int l = 0; l < 32; ++l) residue[l] = warp.lanes[l].expansion_add(terms[l][t], t == 1);
            for (int l = 0; l < 32; ++l) warp.push(residue[l]);
          }
        }
        warp.finish();
        for (int l = 0; l < 32; ++l) block_flags |= warp.lanes[l].flags;
        // The warp's carry-free reduction of its unnormalized lanes (warp_reduce_lane_digits).
        LaneSum rows[kLaneDigits];
        for (int d = 0; d < kLaneDigits; ++d) {
          uint64_t total = 0;
          int high = 0;
          for (int l = 0; l < 32; ++l) {
            total += static_cast<uint64_t>(warp.lanes[l].digit[d]);
            high += static_cast<int>(warp.lanes[l].digit[d] >> kLaneDigitBits);
          }
          rows[d] = lane_sum_from_total(total, high);
        }
        // Each warp re-cuts its sums into the block record's digits (block_merge_lanes).
        for (int d = 0; d < kLaneDigits; ++d)
          add_int64_at(rec, merged_digit<kLaneDigits, kLaneDigitBits>(d, rows[d], d > 0 ? &rows[d - 1] : nullptr),
                       lane_digit_pos<Record::kLsbExp>(d));
      }
      set_flags(rec, block_flags, 0);
    }
    // Level 4-5: the finishing kernel's merge and core's rounding.
    constexpr int D = Record::kDigits;
    std::vector<DigitSum> sums(D);
    unsigned flags = 0;
    for (auto& r : records) {
      for (int d = 0; d < D; ++d) sums[d].add(r.digit[d]);
      flags |= record_flags(r);
    }
    Record acc;
    acc.clear();
    for (int d = 0; d < D; ++d) acc.digit[d] = merged_digit<D>(d, sums[d], d > 0 ? &sums[d - 1] : nullptr);
    const double got = emulate_warp_round<Record>(acc.digit, flags, n);
    set_flags(acc, flags, n);
    if (!test::same_bits(got, acc.round())) ADD_FAILURE() << "warp rounding differs from core's round()";
    return got;
  }

  int64_t slow_terms = 0, flush_rounds = 0;

 private:
  struct Lane {
    std::vector<double> a;
    int64_t digit[kLaneDigits] = {};
    int pending = 0;
    unsigned flags = 0;
    explicit Lane(int fpe) : a(fpe > 0 ? fpe : 1, 0.0) { a[0] = -0.0; }
    void add(double r) {
      if (pending == kLaneMaxPending) normalize();
      ++pending;
      int k;
      if (lane_fast_ok(r)) {
        int64_t lo, hi;
        lane_split_fast(r, k, lo, hi);
        digit[k] += lo;
        digit[k + 1] += hi;
      } else {
        int64_t p0, p1, p2;
        lane_split_exact(r, k, p0, p1, p2);
        digit[k] += p0;
        digit[k + 1] += p1;
        digit[k + 2] += p2;
      }
    }
    void normalize() {
      lane_normalize(digit, 1);
      pending = 0;
    }
    // Alg. 2 from term `start`; with fpe = 0 the term goes straight to the digits.
    double expansion_add(double v, bool second) {
      if (a.size() == 1 && fpe0) {
        if (!second) a[0] = a[0] + v;  // zero-sign tracking only
        add(v);
        return 0.0;
      }
      for (size_t i = second ? 1 : 0; i < a.size(); ++i) two_sum(a[i], v, a[i], v);
      return v;
    }
    bool fpe0 = false;
  };
  struct Warp {
    std::vector<Lane> lanes;
    std::deque<double> ring;
    explicit Warp(int fpe) : lanes(32, Lane(fpe)) {
      for (auto& l : lanes) l.fpe0 = fpe == 0;
    }
    void push(double r) {
      if (r == 0.0) return;
      ring.push_back(r);
      if (ring.size() >= 32) {
        for (int l = 0; l < 32; ++l) lanes[l].add(ring[l]);
        ring.erase(ring.begin(), ring.begin() + 32);
      }
    }
    void finish() {
      for (size_t l = 0; l < ring.size(); ++l) lanes[l].add(ring[l]);
      ring.clear();
      for (auto& lane : lanes) {
        if (!lane.fpe0)
          for (double v : lane.a) lane.add(v);
        if (double_bits(lane.a[0]) != (uint64_t(1) << 63)) lane.flags |= kFlagNotNegZero;
      }  // left unnormalized, pending pieces and all, as on the device
    }
  };

  void feed_sum(Lane& lane, double v, double& term, bool& has) {
    const uint32_t h = static_cast<uint32_t>(double_bits(v) >> 32) & 0x7FFFFFFFu;
    const uint32_t slow_hi = fpe_ > 0 ? kSumSlowHi : 0x7FF00000u;
    if (h >= slow_hi) {
      ++slow_terms;
      if (h >= 0x7FF00000u) {
        lane.flags |= sum_special_flags(v);
      } else {
        lane.add(v);
        lane.flags |= kFlagNotNegZero;
      }
      return;
    }
    term = v;
    has = true;
  }
  void feed_dot(Lane& lane, double a, double b, Record& rec, double& p, double& e, bool& has) {
    double prod, err;
    two_prod_fma(a, b, prod, err);
    const uint32_t h = static_cast<uint32_t>(double_bits(prod) >> 32) & 0x7FFFFFFFu;
    if (!dot_fast_range(h)) {
      ++slow_terms;
      lane.flags |= dot_slow_terms(a, b, [&rec](int idx, int64_t v) { rec.digit[idx] += v; });
      return;
    }
    p = prod;
    e = err;
    has = true;
  }

  int fpe_, blocks_, warps_;
};

template <bool DOT>
double model(const std::vector<double>& x, const std::vector<double>& y, int fpe, int blocks = 3, int warps = 2) {
  KernelModel<DOT> m(fpe, blocks, warps);
  return m.run(x, y);
}

}  // namespace accsum::test
