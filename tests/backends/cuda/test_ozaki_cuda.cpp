// sgemm-ozaki and dgemm-ozaki on CUDA (backends/cuda/gemm_ozaki_cuda.cu): bit for bit the cpu
// backend's readable definition on odd shapes, every generator, alpha / beta, every --slices, inner
// dimensions beyond one int32-exact block; correctly rounded against the exact oracle where exact;
// and the dgemm family's cuBLAS front. Skipped without a CUDA device (the GPU machine runs them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "core/oracle/gemm_oracle.hpp"
#include "families/gemm/ozaki.hpp"
#include "core/frame/registry.hpp"
#include "tests/backend_present.hpp"
#include "tests/gemm_test_util.hpp"

using namespace accsum;

namespace {

Dataset gen(const std::string& dist, const std::string& shape, uint64_t seed, Params extra = {}) {
  extra["shape"] = shape;
  return family("gemm").generate(GenSpec{dist, "gemm", 1, seed, 1e16, 1e16, extra});
}

Result run_on(const std::string& algo, const std::string& backend, const Dataset& d, const Params& user = {}) {
  const AlgoEntry* e = registry().find(algo, backend);
  if (!e) throw std::runtime_error("missing " + algo + "/" + backend);
  auto k = e->make(d.problem(), registry().resolve_params(*e, user));
  k->execute();
  return k->result();
}
Result run(const std::string& backend, const Dataset& d, Params user = {}) {
  return run_on("sgemm-ozaki", backend, d, user);
}

// Bitwise equal values (any NaN matches any NaN) and the same plan figures.
void expect_same(const Result& gpu, const Result& cpu, const std::string& what) {
  ASSERT_EQ(gpu.values.size(), cpu.values.size()) << what;
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < gpu.values.size(); ++i) {
    const double u = gpu.values[i], v = cpu.values[i];
    if ((std::isnan(u) && std::isnan(v)) || std::memcmp(&u, &v, 8) == 0) continue;
    if (differ++ == 0) first = i;
  }
  EXPECT_EQ(differ, 0u) << what << ": first at " << first << " gpu " << gpu.values[first] << " cpu "
                        << cpu.values[first];
  const auto gf = gpu.figures;
  for (auto& [k, v] : cpu.figures) {
    if (k.size() > 2 && k.compare(k.size() - 2, 2, "_s") == 0) continue;
    bool found = false;
    for (auto& [k2, v2] : gf)
      if (k2 == k) {
        found = true;
        EXPECT_EQ(v2, v) << what << ": " << k;
      }
    EXPECT_TRUE(found) << what << ": " << k;
  }
}

}  // namespace

TEST(OzakiCuda, BitForBitTheCpuDefinition) {
  REQUIRE_BACKEND("cuda");
  const std::vector<std::pair<std::string, Params>> data = {{"uniform", {}},
                                                            {"uniform-sym", {}},
                                                            {"loguniform", {{"range", "1e10"}}},
                                                            {"loguniform", {{"range", "1e30"}}},
                                                            {"illcond", {{"cond", "1e20"}}},
                                                            {"uniform-sym", {{"alpha", "-0.75"}, {"beta", "1.5"}}},
                                                            {"uniform", {{"alpha", "0"}, {"beta", "2"}}}};
  // Lines whose length is a multiple of 4 take the 16-byte summary loads; 68 x 44 x 132 has both sides so.
  for (const char* shape : {"1,1,1", "33,17,65", "70,3,129", "5,130,1", "129,67,257", "68,44,132", "64,7,100"})
    for (auto& [dist, opts] : data) {
      const Dataset d = gen(dist, shape, 3, opts);
      expect_same(run("cuda", d), run("cpu", d), dist + " " + shape);
    }
  for (uint64_t seed = 0; seed < 8; ++seed)
    for (const char* shape : {"37,29,100", "36,29,100"}) {  // rows one at a time, or four per load
      const Dataset d = gen("specials", shape, seed, seed % 2 ? Params{{"beta", "1"}} : Params{});
      expect_same(run("cuda", d), run("cpu", d), std::string("specials ") + shape + " seed " + std::to_string(seed));
    }
}

TEST(OzakiCuda, EverySlicesSetting) {
  REQUIRE_BACKEND("cuda");
  const Dataset d = gen("uniform-sym", "61,45,300", 5);
  for (int L = ozaki::kMinModuli; L <= ozaki::kMaxModuli; ++L) {
    const Params q{{"slices", std::to_string(L)}};
    expect_same(run("cuda", d, q), run("cpu", d, q), "slices " + std::to_string(L));
  }
}

// U[-1,1]-like lines of 25-bit spans at K = 8192: the norms take the plan from nine moduli to eight (the 64-bit
// crt_small at |C'| near 2^61); the same plan, bounds and bits as the cpu definition, correctly rounded.
TEST(OzakiCuda, PlansTheNormsLowerBitForBit) {
  REQUIRE_BACKEND("cuda");
  for (const Params& q : {Params{}, Params{{"alpha", "2"}}, Params{{"alpha", "-0.75"}, {"beta", "1.5"}}}) {
    Dataset d = gen("uniform-sym", "33,40,8192", 23, q);
    gemm_test::give_25_bit_spans(d);
    const Result g = run("cuda", d);
    expect_same(g, run("cpu", d), "25-bit spans at K = 8192");
    EXPECT_EQ(gemm_test::named(g.figures, "ozaki_slices"), 8.0);
    const Metrics m = family("gemm").measure(g, family("gemm").oracle(d), -1);
    EXPECT_TRUE(m.correctly_rounded);
  }
}

TEST(OzakiCuda, InnerDimensionBeyondOneInt32Block) {
  REQUIRE_BACKEND("cuda");
  const Dataset d = gen("uniform", "3,5,70001", 6);  // two blocks of 2^16: reduced mod p between them
  const Result g = run("cuda", d);
  expect_same(g, run("cpu", d), "K = 70001");
  const Metrics m = family("gemm").measure(g, family("gemm").oracle(d), -1);
  EXPECT_TRUE(m.correctly_rounded);
}

TEST(OzakiCuda, CorrectlyRoundedAgainstTheOracle) {
  REQUIRE_BACKEND("cuda");
  for (const char* dist : {"uniform", "uniform-sym"}) {
    const Dataset d = gen(dist, "300,257,1031", 7);
    const Result r = run("cuda", d);
    const Metrics m = family("gemm").measure(r, family("gemm").oracle(d), -1);
    EXPECT_TRUE(m.correctly_rounded) << dist;
    bool timed = false;
    for (auto& [k, v] : r.figures) timed |= k == "ozaki_products_s" && v > 0;
    EXPECT_TRUE(timed) << "the time split is reported";
  }
}

// --accuracy=sgemm: the same plan (from the same integer norm sums, added in another order), the
// same entries and the same row bounds as the cpu definition, and every entry within its bound.
TEST(OzakiCuda, AccuracySgemmBitForBitTheCpuDefinition) {
  REQUIRE_BACKEND("cuda");
  const std::vector<std::pair<std::string, Params>> data = {{"uniform", {}},
                                                            {"uniform-sym", {{"alpha", "-0.75"}, {"beta", "1.5"}}},
                                                            {"loguniform", {{"range", "1e10"}}},
                                                            {"illcond", {{"cond", "1e20"}}}};
  for (const char* shape : {"33,17,65", "129,67,4100", "70,300,2049"})
    for (auto& [dist, opts] : data) {
      const Dataset d = gen(dist, shape, 9, opts);
      const Params q{{"accuracy", "sgemm"}};
      const Result g = run("cuda", d, q);
      expect_same(g, run("cpu", d, q), dist + " " + shape + " accuracy=sgemm");
      const Metrics m = family("gemm").measure(g, family("gemm").oracle(d), -1);
      for (auto& [k, v] : m.extra) {
        if (k == "bound_violations") {
          EXPECT_EQ(v, 0.0) << dist << " " << shape;
        }
      }
    }
  const Dataset d = gen("uniform-sym", "3,5,70001", 6);
  expect_same(run("cuda", d, {{"accuracy", "sgemm"}}), run("cpu", d, {{"accuracy", "sgemm"}}),
              "K = 70001 accuracy=sgemm");
}

// --accuracy=faithful: the entries the combine flags are summed exactly on the device, the cpu definition's bits
// and count; every entry faithful by the oracle. Few moduli flag most entries (the bitmap's every word busy), the
// default plan on log-uniform data a few; beta reads C; 70001 rows (not a multiple of 32) spread a row's entries
// over words of the bitmap.
TEST(OzakiCuda, AccuracyFaithfulBitForBitTheCpuDefinition) {
  REQUIRE_BACKEND("cuda");
  struct Case {
    const char* dist;
    const char* shape;
    const char* slices;
    Params opts;
  };
  const Case cases[] = {{"loguniform", "129,67,4100", "0", {{"range", "1e10"}}},
                        {"loguniform", "70,300,2049", "0", {{"range", "1e30"}, {"alpha", "-0.75"}, {"beta", "1.5"}}},
                        {"loguniform", "33,17,65", "4", {{"range", "1e10"}, {"beta", "2"}}},
                        {"uniform-sym", "64,40,1000", "3", {{"alpha", "3"}}},
                        {"uniform", "33,17,65", "0", {}}};
  for (const Case& c : cases) {
    const Dataset d = gen(c.dist, c.shape, 19, c.opts);
    const Params q{{"accuracy", "faithful"}, {"slices", c.slices}};
    const std::string what = std::string(c.dist) + " " + c.shape + " slices " + c.slices;
    const Result g = run("cuda", d, q);
    expect_same(g, run("cpu", d, q), what + " accuracy=faithful");
    const Metrics m = family("gemm").measure(g, family("gemm").oracle(d), -1);
    EXPECT_TRUE(m.faithful) << what;
    if (std::string(c.slices) != "0") EXPECT_GT(gemm_test::named(g.figures, "ozaki_exact_entries"), 0.0) << what;
  }
  const Dataset big = gen("loguniform", "70001,3,40", 6, {{"range", "1e10"}});
  const Params q{{"accuracy", "faithful"}, {"slices", "4"}};
  expect_same(run("cuda", big, q), run("cpu", big, q), "M = 70001 accuracy=faithful");
}

// ---- dgemm-ozaki and the dgemm family's cuBLAS front ----

namespace {
Dataset gen_double(const std::string& dist, const std::string& shape, uint64_t seed, Params extra = {}) {
  return gemm_test::generate("dgemm", dist, shape, seed, std::move(extra));
}
void expect_dgemm_same(const Dataset& d, const Params& q, const std::string& what) {
  expect_same(run_on("dgemm-ozaki", "cuda", d, q), run_on("dgemm-ozaki", "cpu", d, q), what);
}
}  // namespace

TEST(DgemmOzakiCuda, BitForBitTheCpuDefinition) {
  REQUIRE_BACKEND("cuda");
  const std::vector<std::pair<std::string, Params>> data = {{"uniform", {}},
                                                            {"uniform-sym", {}},
                                                            {"loguniform", {{"range", "1e10"}}},
                                                            {"loguniform", {{"range", "1e40"}}},  // lines not covered
                                                            {"illcond", {{"cond", "1e20"}}},
                                                            {"uniform-sym", {{"alpha", "-0.75"}, {"beta", "1.5"}}},
                                                            {"uniform", {{"alpha", "0"}, {"beta", "2"}}}};
  for (const char* shape : {"1,1,1", "33,17,65", "70,3,129", "5,130,1", "68,44,132"})
    for (auto& [dist, opts] : data)
      for (const char* accuracy : {"cr", "dgemm"}) {
        const Dataset d = gen_double(dist, shape, 3, opts);
        expect_dgemm_same(d, {{"accuracy", accuracy}}, dist + " " + shape + " " + accuracy);
      }
  for (uint64_t seed = 0; seed < 4; ++seed) {
    const Dataset d = gen_double("specials", "37,29,100", seed, seed % 2 ? Params{{"beta", "1"}} : Params{});
    expect_dgemm_same(d, {}, "specials seed " + std::to_string(seed));
  }
  for (int L = ozaki::kMinModuli; L <= ozaki::kMaxModuliDouble; L += 4)
    expect_dgemm_same(gen_double("uniform-sym", "61,45,300", 5), {{"slices", std::to_string(L)}},
                      "slices " + std::to_string(L));
  const Dataset d = gen_double("uniform", "3,5,70001", 6);  // two blocks of 2^16 inner indices
  expect_dgemm_same(d, {}, "K = 70001");
  // 53 + 53 bits at K = 2048: the norms lower the plan from 16 moduli to 15 (test_dgemm.cpp)
  expect_dgemm_same(gen_double("uniform", "37,41,2048", 4, {{"alpha", "-0.75"}, {"beta", "1.5"}}), {},
                    "norms' plan, K = 2048");
}

TEST(DgemmOzakiCuda, CorrectlyRoundedAgainstTheOracle) {
  REQUIRE_BACKEND("cuda");
  for (const char* dist : {"uniform", "uniform-sym", "loguniform"}) {
    const Dataset d = gen_double(dist, "200,131,517", 7, {{"range", "1e10"}});
    const Metrics m = gemm_test::judge(d, run_on("dgemm-ozaki", "cuda", d));
    EXPECT_TRUE(m.correctly_rounded) << dist;
  }
}

TEST(DgemmCuda, CublasFrontIsNearTheExactProduct) {
  REQUIRE_BACKEND("cuda");
  const Dataset d = gen_double("uniform-sym", "129,67,300", 8, {{"alpha", "-0.5"}, {"beta", "2"}});
  for (const char* algo : {"cublas-dgemm", "cublas-dgemm-pedantic"}) {
    const Metrics m = gemm_test::judge(d, run_on(algo, "cuda", d));
    EXPECT_LT(gemm_test::named(m.extra, "normwise_rel_err"), 300 * 0x1p-53) << algo;  // K u: DGEMM's normwise bound
  }
  const Metrics fixed = gemm_test::judge(d, run_on("cublas-dgemm-fixedpoint", "cuda", d));  // --bits=55
  EXPECT_LT(gemm_test::named(fixed.extra, "normwise_rel_err"), 300 * 0x1p-53);
}
