#pragma once
// What the gemm and dgemm tests share: generated products by family, a cpu run of an algorithm, a
// figure of a result by name, the family's judgement of a result (its oracle and metrics), and lines
// of 25-bit spans.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/frame/family.hpp"
#include "core/frame/registry.hpp"

namespace gemm_test {

inline accsum::Dataset generate(const std::string& fam, const std::string& dist, const std::string& shape,
                                uint64_t seed, accsum::Params extra) {
  extra["shape"] = shape;
  return accsum::family(fam).generate(accsum::GenSpec{dist, fam, 1, seed, 1e16, 1e16, extra});
}

// Gives every row of A and column of B (float matrices, K >= 3) a bit span of 25: an entry near 2^0 (top
// exponent 0) and one whose lowest set bit is 2^-25; a new dataset id.
inline void give_25_bit_spans(accsum::Dataset& d) {
  for (int64_t i = 0; i < d.rows; ++i) {
    d.a[i] = -0.75f;
    d.a[i + d.rows] = 0.25f + std::ldexp(1.0f, -25);
  }
  for (int64_t j = 0; j < d.cols; ++j) {
    d.b[j * d.inner] = 0.875f;
    d.b[2 + j * d.inner] = -(0.25f + std::ldexp(3.0f, -25));
  }
  d.id = accsum::next_dataset_id();
}

inline accsum::Result run_cpu(const std::string& algo, const accsum::Dataset& d, const accsum::Params& user = {}) {
  const accsum::AlgoEntry* e = accsum::registry().find(algo, "cpu");
  if (!e) throw std::runtime_error(algo + "/cpu is not registered");
  auto k = e->make(d.problem(), accsum::registry().resolve_params(*e, user));
  k->execute();
  return k->result();
}

inline double named(const std::vector<std::pair<std::string, double>>& v, const std::string& key) {
  for (auto& [k, x] : v)
    if (k == key) return x;
  ADD_FAILURE() << "no figure " << key;
  return NAN;
}

inline accsum::Metrics judge(const accsum::Dataset& d, const accsum::Result& r) {
  const accsum::FamilyDescriptor& f = accsum::family(d.family);
  return f.measure(r, f.oracle(d), -1);
}

// The sgemm-ozaki tests' shorthands: a gemm dataset of one shape, and a run of the cpu entry.
inline accsum::Dataset ozaki_gen(const std::string& dist, const std::string& shape, uint64_t seed = 1,
                                 accsum::Params extra = {}) {
  return generate("gemm", dist, shape, seed, std::move(extra));
}
inline accsum::Result run_ozaki(const accsum::Dataset& d, const accsum::Params& user = {}) {
  return run_cpu("sgemm-ozaki", d, user);
}

}  // namespace gemm_test
