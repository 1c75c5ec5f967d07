// The gemm family: exact oracle (one rounding to float), every algorithm against it on every
// generator, odd shapes, BLAS scalars, IEEE specials, cpu-mt bit for bit equal to cpu and to the
// serial definition, compensation measured to help on U[0,1], bad input, the CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/backend_present.hpp"
#include "tests/same_bits.hpp"
#include "tests/cli_run.hpp"
#include "core/frame/family.hpp"
#include "core/oracle/gemm_oracle.hpp"
#include "families/gemm/gemm_serial.hpp"
#include "core/frame/registry.hpp"
#include "datasets/gemm_data.hpp"

using namespace accsum;

namespace {

Dataset gen(const std::string& dist, const std::string& shape, uint64_t seed = 1, Params extra = {}) {
  Params o = extra;
  o["shape"] = shape;
  return family("gemm").generate(GenSpec{dist, "gemm", 1, seed, 1e16, 1e16, o});
}

Result run(const std::string& algo, const std::string& backend, const Dataset& d, Params user = {}) {
  const AlgoEntry* e = registry().find(algo, backend);
  EXPECT_NE(e, nullptr) << algo << "/" << backend;
  auto k = e->make(d.problem(), registry().resolve_params(*e, user));
  k->execute();
  return k->result();
}

double extra(const Metrics& m, const std::string& key) {
  for (auto& [k, v] : m.extra)
    if (k == key) return v;
  ADD_FAILURE() << "no metric " << key;
  return NAN;
}

bool same_bits(const Result& a, const Result& b) { return test::all_same_bits(a.values, b.values); }

// The readable definition (families/gemm/gemm_serial.hpp), entry by entry.
Result serial(const Dataset& d, int comp, int tile, bool fma) {
  const float alpha = std::strtof(d.data.at("alpha").c_str(), nullptr),
              beta = std::strtof(d.data.at("beta").c_str(), nullptr);
  Result r;
  r.values.resize(static_cast<size_t>(d.rows * d.cols));
  for (int64_t j = 0; j < d.cols; ++j)
    for (int64_t i = 0; i < d.rows; ++i) {
      float s = alpha == 0.0f
                    ? 0.0f
                    : gemm::dot_entry(d.a.data() + i, d.rows, d.b.data() + j * d.inner, d.inner, comp, tile, fma);
      r.values[i + j * d.rows] = gemm::finish(s, alpha, beta, d.c.data() + i + j * d.rows, fma);
    }
  return r;
}

const std::vector<std::string> kOurs = {"sgemm", "sgemm-kahan", "sgemm-dcs"};

std::vector<Params> param_sets(const std::string& algo) {
  std::vector<Params> out;
  for (const char* fma : {"0", "1"}) {
    if (algo == "sgemm") {
      out.push_back({{"fma", fma}});
      continue;
    }
    for (const char* tile : {"1", "16", "32", "64", "128"}) out.push_back({{"fma", fma}, {"tile", tile}});
  }
  return out;
}

int comp_of(const std::string& algo) {
  return algo == "sgemm" ? gemm::kNone : algo == "sgemm-kahan" ? gemm::kKahan : gemm::kDcs;
}

}  // namespace

// ---- the oracle ----

TEST(GemmOracle, RoundsOnceToFloatNotThroughDouble) {
  // exact = 1 + 2^-24 + 2^-80: RN to double is the float midpoint 1 + 2^-24, which would round
  // (ties to even) to 1; the exact value is above it and rounds to 1 + 2^-23.
  Superacc acc;
  acc.clear();
  acc.add(1.0);
  acc.add(0x1p-24);
  acc.add(0x1p-80);
  double hi, lo;
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), 1.0f + 0x1p-23f);
  EXPECT_EQ(hi, 1.0 + 0x1p-24);
  EXPECT_EQ(lo, 0x1p-80);
  acc.clear();
  acc.add(1.0);
  acc.add(0x1p-24);
  acc.add(-0x1p-80);
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), 1.0f);
  acc.clear();  // an exact tie: ties to even
  acc.add(1.0);
  acc.add(0x1p-24);
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), 1.0f);
  acc.clear();
  acc.add(-1.0);
  acc.add(-0x1p-24);
  acc.add(-0x1p-80);
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), -1.0f - 0x1p-23f);
  acc.clear();  // beyond FLT_MAX + half an ulp: +inf; just below the midpoint: FLT_MAX
  acc.add(0x1.ffffffp127);
  acc.add(0x1p60);
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), INFINITY);
  acc.clear();
  acc.add(0x1.ffffffp127);
  acc.add(-0x1p60);
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), 0x1.fffffep127f);
  acc.clear();  // subnormal midpoint 2^-150 plus a little: rounds up to 2^-149
  acc.add(0x1p-150);
  acc.add(0x1p-200);
  EXPECT_EQ(superacc_to_float(acc, &hi, &lo), 0x1p-149f);
}

TEST(GemmOracle, ExactEntryOfAHandMadeProduct) {
  // 1 x 1 x 3: products 1, 2^-24, 2^-80 (a = b = (1, 2^-12, 2^-40)).
  Dataset d;
  d.family = "gemm";
  d.rows = d.cols = 1;
  d.inner = d.n = 3;
  d.a = {1.0f, 0x1p-12f, 0x1p-40f};
  d.b = d.a;
  d.c = {0.0f};
  d.data = {{"alpha", float_hex(1.0f)}, {"beta", float_hex(0.0f)}};
  d.id = next_dataset_id();
  ExactValue v = exact_gemm(d);
  auto ex = std::static_pointer_cast<const GemmExact>(v.exact);
  EXPECT_EQ(ex->ref[0], 1.0f + 0x1p-23f);
  // Plain float summation gives 1 (1 + 2^-24 ties to even): one ulp off, not correctly rounded.
  Result plain = run("sgemm", "cpu", d);
  EXPECT_EQ(plain.values[0], 1.0);
  Metrics m = measure_gemm(plain, v);
  EXPECT_FALSE(m.correctly_rounded);
  EXPECT_TRUE(m.faithful);
  EXPECT_EQ(extra(m, "share_correctly_rounded"), 0.0);
  // alpha = 3, beta = 0.5, c = 1: 3 (1 + 2^-24 + 2^-80) + 0.5, rounded once.
  d.data = {{"alpha", float_hex(3.0f)}, {"beta", float_hex(0.5f)}};
  d.c = {1.0f};
  d.id = next_dataset_id();
  ex = std::static_pointer_cast<const GemmExact>(exact_gemm(d).exact);
  EXPECT_EQ(ex->ref[0], 3.5f + 0x1p-22f);  // 3.5 + 3*2^-24 + ...: nearest float of spacing 2^-22
}

TEST(GemmOracle, SamplesColumnsOnlyBeyondTheBudget) {
  Dataset d = gen("uniform", "8,16,32");
  ExactValue v = exact_gemm(d);
  EXPECT_EQ(std::static_pointer_cast<const GemmExact>(v.exact)->columns.size(), 16u);
  EXPECT_NE(v.method.find("every entry"), std::string::npos);
}

// ---- every algorithm against the oracle ----

TEST(GemmCpu, EveryAlgorithmOnEveryGeneratorWithinTheRecursiveSummationBound) {
  const auto& f = family("gemm");
  struct Case {
    std::string dist, shape;
    Params opt;
  };
  std::vector<Case> cases{{"uniform", "40,23,300", {}},
                          {"uniform-sym", "40,23,300", {}},
                          {"loguniform", "17,9,200", {{"range", "1e20"}}},
                          {"illcond", "16,8,101", {{"cond", "1e10"}}},
                          {"uniform-sym", "1,1,1", {}},
                          {"uniform-sym", "70,3,129", {}},
                          {"uniform-sym", "5,130,1", {}},
                          {"uniform-sym", "37,29,200", {{"alpha", "-0.75"}, {"beta", "1.5"}}}};
  for (auto& c : cases) {
    Dataset d = gen(c.dist, c.shape, 3, c.opt);
    ExactValue ref = f.oracle(d);
    ASSERT_FALSE(ref.special);
    const double K = static_cast<double>(d.inner);
    // |c - c_hat| <= gamma_{K+2} sum|alpha a b| + |beta c|-ish: (K + 4) u times the entry's mass.
    const double bound = (K + 4) * 0x1p-24 / (1 - (K + 4) * 0x1p-24);
    for (auto& backend : {"cpu", "cpu-mt"}) {
      for (auto& algo : kOurs)
        for (auto& p : param_sets(algo)) {
          Metrics m = f.measure(run(algo, backend, d, p), ref, -1);
          EXPECT_LE(extra(m, "normwise_rel_err"), bound) << c.dist << " " << c.shape << " " << algo << " " << backend;
          EXPECT_GE(extra(m, "share_faithful"), 0.0);
          if (c.shape == "1,1,1") EXPECT_TRUE(m.correctly_rounded) << algo;  // one product, one rounding
        }
      if (registry().find("openblas-sgemm", backend)) {
        Metrics m = f.measure(run("openblas-sgemm", backend, d), ref, -1);
        EXPECT_LE(extra(m, "normwise_rel_err"), bound) << c.dist << " " << c.shape << " openblas";
      }
    }
  }
}

TEST(GemmCpu, CpuAndCpuMtAreTheSerialDefinitionBitForBit) {
  for (auto& [dist, shape] : std::vector<std::pair<std::string, std::string>>{
           {"uniform", "67,13,333"}, {"illcond", "9,10,77"}, {"uniform-sym", "1,7,1"}, {"loguniform", "3,5,130"}}) {
    Dataset d = gen(dist, shape, 2, {{"beta", "0.25"}, {"alpha", "1.5"}});
    for (auto& algo : kOurs)
      for (auto& p : param_sets(algo)) {
        const int tile = p.count("tile") ? std::stoi(p.at("tile")) : 1;
        Result want = serial(d, comp_of(algo), tile, p.at("fma") == "1");
        EXPECT_TRUE(same_bits(run(algo, "cpu", d, p), want)) << algo << " " << dist << " " << shape;
        for (const char* t : {"1", "2", "3", "5"}) {
          Params q = p;
          q["threads"] = t;
          EXPECT_TRUE(same_bits(run(algo, "cpu-mt", d, q), want)) << algo << " threads=" << t;
        }
      }
  }
}

TEST(GemmCpu, FmaZeroRoundsEachProduct) {
  Dataset d = gen("uniform", "1,1,64", 5);
  float s = 0;
  for (int k = 0; k < 64; ++k) {
    float prod = d.a[k] * d.b[k];
    s = s + prod;
  }
  EXPECT_EQ(run("sgemm", "cpu", d, {{"fma", "0"}}).values[0], static_cast<double>(s));
  float t = 0;
  for (int k = 0; k < 64; ++k) t = std::fma(d.a[k], d.b[k], t);
  EXPECT_EQ(run("sgemm", "cpu", d, {{"fma", "1"}}).values[0], static_cast<double>(t));
}

TEST(GemmCpu, BlasScalars) {
  // alpha = 0: C = beta*C, A and B not read (NaN there does not matter); beta = 0: C not read.
  Dataset d = gen("uniform", "9,4,20", 1, {{"alpha", "0"}, {"beta", "2"}});
  d.a[3] = NAN;
  d.id = next_dataset_id();
  ExactValue ref = family("gemm").oracle(d);
  EXPECT_FALSE(ref.special);
  for (auto& backend : {"cpu", "cpu-mt"})
    for (auto& algo : {"sgemm", "sgemm-kahan", "sgemm-dcs"}) {
      Result r = run(algo, backend, d);
      for (size_t e = 0; e < r.values.size(); ++e) ASSERT_EQ(r.values[e], 2.0 * d.c[e]) << algo;
      EXPECT_TRUE(family("gemm").measure(r, ref, -1).correctly_rounded);
    }
  // OpenBLAS 0.3.21 multiplies A and B even when alpha = 0 (a NaN in A reaches C): checked
  // here without the NaN.
  Dataset o = gen("uniform", "9,4,20", 1, {{"alpha", "0"}, {"beta", "2"}});
  const bool blas = registry().find("openblas-sgemm", "cpu") != nullptr;
  if (blas) {
    Result ro = run("openblas-sgemm", "cpu", o);
    for (size_t e = 0; e < ro.values.size(); ++e) ASSERT_EQ(ro.values[e], 2.0 * o.c[e]);
  }
  Dataset z = gen("uniform", "9,4,20", 1, {{"beta", "0"}});
  z.c[0] = NAN;
  z.id = next_dataset_id();
  ExactValue zref = family("gemm").oracle(z);
  EXPECT_FALSE(zref.special);
  for (auto& algo : {"sgemm", "sgemm-kahan", "sgemm-dcs", "openblas-sgemm"})
    if (registry().find(algo, "cpu")) EXPECT_FALSE(std::isnan(run(algo, "cpu", z).values[0])) << algo;
}

TEST(GemmCpu, NanAndInfinitiesGiveIeeeResults) {
  const auto& f = family("gemm");
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Dataset d = gen("specials", "11,7,150", seed);
    ExactValue ref = f.oracle(d);
    ASSERT_TRUE(ref.special) << seed;
    for (auto& backend : {"cpu", "cpu-mt"})
      for (auto& algo : kOurs)
        for (auto& p : param_sets(algo)) {
          Metrics m = f.measure(run(algo, backend, d, p), ref, -1);
          EXPECT_TRUE(m.correctly_rounded)
              << "seed " << seed << " " << algo << " tile " << (p.count("tile") ? p.at("tile") : "-");
        }
  }
  // A hand-made case: +inf * 1 + (-inf) * 1 = NaN; +inf * 0 = NaN; +inf alone stays +inf.
  Dataset d = gen("uniform", "3,1,40", 1);
  d.a[0 + 5 * 3] = INFINITY;  // row 0: +inf
  d.a[1 + 5 * 3] = INFINITY;  // row 1: +inf and -inf
  d.a[1 + 6 * 3] = -INFINITY;
  d.b[5] = 1.0f;
  d.b[6] = 1.0f;
  d.a[2 + 7 * 3] = INFINITY;  // row 2: inf * 0
  d.b[7] = 0.0f;
  d.id = next_dataset_id();
  for (auto& algo : kOurs) {
    Result r = algo == "sgemm" ? run(algo, "cpu", d) : run(algo, "cpu", d, {{"tile", "16"}});
    EXPECT_EQ(r.values[0], INFINITY) << algo;
    EXPECT_TRUE(std::isnan(r.values[1])) << algo;
    EXPECT_TRUE(std::isnan(r.values[2])) << algo;
  }
}

TEST(GemmCpu, CompensationIsAtLeastAsAccurateAsPlainOnUniform) {
  // Measured, not assumed: average |error| against the exact product on U[0,1], K = 2048.
  const auto& f = family("gemm");
  Dataset d = gen("uniform", "48,32,2048", 7);
  ExactValue ref = f.oracle(d);
  const double plain = extra(f.measure(run("sgemm", "cpu", d), ref, -1), "avg_abs_err");
  const double plain_max = f.measure(run("sgemm", "cpu", d), ref, -1).abs_err;
  for (auto& algo : {"sgemm-kahan", "sgemm-dcs"})
    for (const char* tile : {"1", "16", "32", "64", "128"}) {
      Metrics m = f.measure(run(algo, "cpu", d, {{"tile", tile}}), ref, -1);
      EXPECT_LE(extra(m, "avg_abs_err"), plain) << algo << " tile " << tile;
      EXPECT_LE(m.abs_err, plain_max) << algo << " tile " << tile;
    }
  // tile 1 (every addition compensated) is nearly correctly rounded.
  Metrics m1 = f.measure(run("sgemm-dcs", "cpu", d, {{"tile", "1"}}), ref, -1);
  EXPECT_GE(extra(m1, "share_faithful"), 0.99);
  EXPECT_LT(extra(m1, "avg_abs_err"), plain / 10);
}

// ---- inputs ----

namespace {
void write_npy(const std::string& path, const std::string& descr, const std::string& shape, const std::vector<float>& v,
               bool fortran = false) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64) dict += ' ';
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(dict.size());
  out.write(reinterpret_cast<const char*>(&len), 2);
  out << dict;
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
}
}  // namespace

TEST(GemmInput, ReadsTwoFloat32NpyMatrices) {
  const std::string dir = cli_test::tmpdir();
  // A = [[1, 2, 3], [4, 5, 6]] (2 x 3, C order), B = [[1], [0], [2]] (3 x 1, Fortran order).
  write_npy(dir + "/A.npy", "<f4", "(2, 3)", {1, 2, 3, 4, 5, 6});
  write_npy(dir + "/B.npy", "<f4", "(3, 1)", {1, 0, 2}, true);
  Dataset d = family("gemm").read(dir + "/A.npy," + dir + "/B.npy");
  EXPECT_EQ(d.rows, 2);
  EXPECT_EQ(d.inner, 3);
  EXPECT_EQ(d.cols, 1);
  Result r = run("sgemm", "cpu", d);
  EXPECT_EQ(r.values, (std::vector<double>{7, 16}));
  auto bad = [&](const std::string& spec, const std::string& want) {
    try {
      family("gemm").read(spec);
      ADD_FAILURE() << "no error for " << spec;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  write_npy(dir + "/B2.npy", "<f4", "(2, 2)", {1, 2, 3, 4});
  bad(dir + "/A.npy," + dir + "/B2.npy", "inner dimensions disagree");
  write_npy(dir + "/D.npy", "<f8", "(1, 1)", {1, 2});
  bad(dir + "/A.npy," + dir + "/D.npy", "not float32");
  write_npy(dir + "/V.npy", "<f4", "(3,)", {1, 2, 3});
  bad(dir + "/V.npy," + dir + "/B.npy", "not 2-D");
  bad(dir + "/A.npy", "A.npy,B.npy");
  write_npy(dir + "/T.npy", "<f4", "(3, 3)", {1, 2, 3});
  bad(dir + "/T.npy," + dir + "/B.npy", "truncated");
}

TEST(GemmInput, BadShapesAndTilesAreUsageErrors) {
  using cli_test::accsum;
  for (const char* args :
       {"--shape=0,4,4", "--shape=4,4", "--shape=4,x,4", "--shape=4,4,-1", "--shape=100000,100000,100000",
        "--tile=8 --shape=4,4,4", "--n=2^24", "--fma=2 --shape=4,4,4"}) {
    auto r = accsum(std::string("bench --algo=sgemm-kahan --backend=cpu --reps=1 ") + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

TEST(GemmCli, BenchFromTheIssueRuns) {
  auto r = cli_test::accsum(
      "bench --algo=sgemm,sgemm-kahan,sgemm-dcs --shape=200,300,1000 --tile=16,64 --reps=1 --warmup=0");
  EXPECT_EQ(r.code, 0) << r.err;
  // With no --backend the best one present runs, beside its own baseline: cuBLAS where a GPU is, else OpenBLAS.
  const char* baseline = accsum::test::backend_present("cuda")         ? "cublas-sgemm"
                         : registry().find("openblas-sgemm", "cpu-mt") ? "openblas-sgemm"
                                                                       : nullptr;
  if (baseline) EXPECT_NE(r.out.find(baseline), std::string::npos) << baseline << "\n" << r.out;
  EXPECT_NE(r.out.find("sgemm-dcs"), std::string::npos);
  auto v = cli_test::accsum("verify --algo=sgemm,sgemm-kahan,sgemm-dcs --backend=cpu,cpu-mt");
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

// The committed CPU table (the layout of Badin et al. 2011, Tables 4-9) is regenerated and judged
// against its report; OpenBLAS is pinned to its Haswell kernels so that its column does not depend
// on the CPU (its native kernels on other CPUs round differently).
TEST(GemmCli, CommittedCpuTableIsReproduced) {
  if (!registry().find("openblas-sgemm", "cpu"))
    GTEST_SKIP() << "built without OpenBLAS: the committed table has its column";
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);  // inherited by the accsum child
  cli_test::expect_committed_report_reproduced("table --suite=gemm --backend=cpu --n=128",
                                               "results/gemm_table_cpu.json");
}

// With --reps every cell also carries its measured throughput (the paper's GFlops column), and the
// sizes are N = n/5 ... n (the paper's 1024 ... 5120); without it the table stays reproducible.
TEST(GemmCli, TableWithRepsShowsThroughputOnTheFiveSizes) {
  auto r = cli_test::accsum("table --suite=gemm --backend=cpu --n=20 --reps=1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("throughput: median of 1 runs"), std::string::npos) << r.out;
  for (const char* row :
       {"| 4 | uniform |", "| 8 | uniform |", "| 12 | uniform |", "| 16 | uniform |", "| 20 | uniform-sym |"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  // 5 sizes x 2 distributions, every cell timed: at least 9 columns x 10 rows.
  size_t cells = 0;
  for (size_t at = r.out.find("GFLOP/s"); at != std::string::npos; at = r.out.find("GFLOP/s", at + 1)) ++cells;
  EXPECT_GE(cells, 90u) << r.out;
  auto bad = cli_test::accsum("table --suite=gemm --backend=cpu --n=20 --reps=-1");
  EXPECT_EQ(bad.code, 2);
}

// OpenCL (PoCL in CI): the same tiled algorithm, bit for bit the cpu backend's.
TEST(GemmOpenCL, BitForBitTheCpuDefinition) {
  const BackendInfo* b = registry().backend("opencl");
  if (!b || (b->available && !b->available())) GTEST_SKIP() << "no OpenCL device";
  for (auto& [dist, shape] : std::vector<std::pair<std::string, std::string>>{
           {"uniform", "1,1,1"}, {"uniform-sym", "33,17,65"}, {"illcond", "20,9,131"}, {"specials", "18,21,40"}}) {
    Dataset d = gen(dist, shape, 4, {{"alpha", "-1.5"}, {"beta", "0.75"}});
    for (auto& algo : kOurs)
      for (auto& p : param_sets(algo))
        EXPECT_TRUE(same_bits(run(algo, "opencl", d, p), run(algo, "cpu", d, p)))
            << algo << " " << dist << " " << shape << " tile " << (p.count("tile") ? p.at("tile") : "-") << " fma "
            << p.at("fma");
  }
}
