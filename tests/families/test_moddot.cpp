// The moddot family: every algorithm on every backend here against GMP (the family's oracle),
// on every generator, sizes 0, 1, odd, block boundaries (the block length as a parameter),
// primes across the range up to 2^52; bit-identical across backends, thread counts and ranks;
// the rounding mode is restored; files and their refusals.
#include <gmp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <fstream>
#include <random>
#include <regex>
#include <set>

#include "backends/cpu/moddot_rz.hpp"
#include "tests/cli_run.hpp"
#include "tests/npy_bytes.hpp"
#include "core/frame/family.hpp"
#include "families/moddot/moddot.hpp"
#include "datasets/residues.hpp"

using namespace accsum;

#define EXPECT_USAGE_ERROR(expr) EXPECT_THROW((void)(expr), accsum::UsageError)

namespace {

const std::vector<std::string> kPrimes{"2",
                                       "3",
                                       "5",
                                       "32771",
                                       "65537",
                                       "2147483647",
                                       "4294967291",
                                       "1099511627689",
                                       std::to_string(kModdotDefaultPrime),
                                       "2251799813685119",
                                       "4503599627370449"};

// The GMP residue of sum x_i y_i (independent of the family oracle's code path: mpz_mul).
uint64_t gmp_ref(const Dataset& d) {
  mpz_t acc, a, b;
  mpz_inits(acc, a, b, nullptr);
  for (int64_t i = 0; i < d.n; ++i) {
    mpz_set_d(a, d.x[i]);
    mpz_set_d(b, d.y[i]);
    mpz_addmul(acc, a, b);
  }
  uint64_t r = mpz_fdiv_ui(acc, prime_of(d.data));
  mpz_clears(acc, a, b, nullptr);
  return r;
}

Dataset gen(const std::string& dist, int64_t n, const std::string& p, uint64_t seed = 1) {
  GenSpec s;
  s.dist = dist;
  s.family = "moddot";
  s.n = n;
  s.seed = seed;
  s.options = {{"p", p}};
  return family("moddot").generate(s);
}

// Every moddot entry with every rounding / a few thread counts, on backends present here.
struct Variant {
  const AlgoEntry* e;
  Params params;
  std::string label;
};
std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (const std::string& backend : registry().backend_names()) {
    if (!registry().backend(backend)->available()) continue;
    for (const AlgoEntry* entry : registry().entries_of("moddot", backend)) {
      const AlgoEntry& e = *entry;
      if (e.guarantee != Guarantee::exact) continue;  // the cuBLAS ddot yardstick promises nothing
      bool has_rounding = false, has_threads = false;
      for (auto& ps : e.params) {
        has_rounding |= ps.name == "rounding";
        has_threads |= ps.name == "threads";
      }
      std::vector<std::string> roundings =
          has_rounding ? std::vector<std::string>{"rz", "rn"} : std::vector<std::string>{""};
      if (e.backend == "opencl" || e.backend == "cuda") roundings = {""};
      std::vector<std::string> threads =
          has_threads ? std::vector<std::string>{"1", "2", "3", "7"} : std::vector<std::string>{""};
      for (auto& r : roundings)
        for (auto& t : threads) {
          Params u;
          if (!r.empty()) u["rounding"] = r;
          if (!t.empty()) u["threads"] = t;
          out.push_back({&e, registry().resolve_params(e, u), e.algo + "/" + e.backend + " " + r + " t=" + t});
        }
    }
  }
  return out;
}

uint64_t run(const Variant& v, const Dataset& d) {
  double r = v.e->make(d.problem(), v.params)->run_scalar();
  return static_cast<uint64_t>(r);
}

}  // namespace

TEST(Moddot, FamilyIsRegisteredWithAlgorithms) {
  ASSERT_NE(find_family("moddot"), nullptr);
  for (const char* a : {"moddot-gmp", "moddot-int128", "moddot-lambda", "moddot-abgd"}) {
    EXPECT_NE(registry().find(a, "cpu"), nullptr) << a;
    EXPECT_NE(registry().find(a, "cpu")->state, nullptr) << a << ": a mergeable state";
    const AlgoEntry* mt = registry().find(a, "cpu-mt");
    ASSERT_NE(mt, nullptr) << a;
    EXPECT_TRUE(mt->composed) << a << ": cpu-mt is composed from the state";
    if (registry().backend("mpi")) {
      EXPECT_NE(registry().find(a, "mpi"), nullptr) << a;
    }
  }
  EXPECT_GE(variants().size(), 12u);
}

// The default block is the paper's one-pass limit, and no longer block is accepted.
TEST(Moddot, BlockParameterDefaultsToTheOnePassLimit) {
  for (auto& e : registry().entries()) {
    if (e.algo != "moddot-abgd") continue;
    Params r = registry().resolve_params(e, {});
    EXPECT_EQ(r.at("block"), std::to_string(int64_t(1) << 26)) << e.backend;
    EXPECT_USAGE_ERROR(registry().resolve_params(e, {{"block", std::to_string((int64_t(1) << 26) + 1)}}));
    EXPECT_USAGE_ERROR(registry().resolve_params(e, {{"block", "0"}}));
  }
}

TEST(Moddot, PrimeValidation) {
  EXPECT_EQ(parse_prime("32771"), 32771u);
  EXPECT_EQ(parse_prime("4503599627370449"), 4503599627370449ull);
  EXPECT_USAGE_ERROR(parse_prime("4503599627370497"));  // p - 1 = 2^52: out of range
  EXPECT_USAGE_ERROR(parse_prime("32769"));             // 3 * 10923
  EXPECT_USAGE_ERROR(parse_prime("1"));
  EXPECT_USAGE_ERROR(parse_prime("0"));
  EXPECT_USAGE_ERROR(parse_prime("-7"));
  EXPECT_USAGE_ERROR(parse_prime("12x"));
  EXPECT_USAGE_ERROR(parse_prime("99999999999999999999999"));
}

TEST(Moddot, ReduceHelpersAreExact) {
  std::mt19937_64 g(7);
  for (auto& ps : kPrimes) {
    const uint64_t p = std::stoull(ps);
    const accsum_modp m = accsum_modp_init(p);
    for (int k = 0; k < 2000; ++k) {
      uint64_t x = g() >> 12;  // < 2^52
      if (k < 4) x = (uint64_t(1) << 52) - 1 - k;
      EXPECT_EQ(static_cast<uint64_t>(accsum_modp_reduce52(static_cast<double>(x), m)), x % p) << p << " " << x;
      const int64_t v = static_cast<int64_t>(x % (3 * p)) - static_cast<int64_t>(p);  // in [-p, 2p)
      EXPECT_EQ(accsum_modp_to_field(static_cast<double>(v), m), static_cast<double>(((v % int64_t(p)) + p) % p)) << v;
    }
    // The 128-bit accumulation of the integer baseline, against unsigned __int128.
    unsigned __int128 acc = 0;
    uint64_t hi = 0, lo = 0;
    for (int k = 0; k < 1000; ++k) {
      const uint64_t a = g() >> 12, b = g() >> 12;
      acc += static_cast<unsigned __int128>(a) * b;
      accsum_mac128(a, b, &hi, &lo);
    }
    EXPECT_EQ(accsum_mod128(hi, lo, p), static_cast<uint64_t>(acc % p)) << p;
  }
}

TEST(Moddot, EveryAlgorithmMatchesGmpOnEveryGeneratorAndPrime) {
  auto vs = variants();
  for (auto& p : kPrimes)
    for (const char* dist : {"uniform", "worst", "sparse"})
      for (int64_t n : {0, 1, 2, 3, 7, 100, 1001, 4097, 65539}) {
        Dataset d = gen(dist, n, p, 3 + n);
        const uint64_t ref = gmp_ref(d);
        ASSERT_EQ(family("moddot").oracle(d).rounded, static_cast<double>(ref));
        for (auto& v : vs) ASSERT_EQ(run(v, d), ref) << v.label << " " << dist << " p=" << p << " n=" << n;
      }
}

TEST(Moddot, RandomPrimesAcrossTheRangeAndRandomLengths) {
  std::mt19937_64 g(11);
  auto vs = variants();
  mpz_t z;
  mpz_init(z);
  for (int k = 0; k < 40; ++k) {
    int bits = 2 + static_cast<int>(g() % 51);  // p up to about 2^52
    mpz_set_ui(z, (g() >> (64 - bits)) | (uint64_t(1) << (bits - 1)));
    mpz_nextprime(z, z);
    uint64_t p = mpz_get_ui(z);
    if (p - 1 >= (uint64_t(1) << 52)) continue;
    int64_t n = static_cast<int64_t>(g() % 20000);
    Dataset d = gen(k % 3 == 0 ? "worst" : "uniform", n, std::to_string(p), k);
    const uint64_t ref = gmp_ref(d);
    for (auto& v : vs) ASSERT_EQ(run(v, d), ref) << v.label << " p=" << p << " n=" << n;
  }
  mpz_clear(z);
}

// Across block boundaries: the block length is a parameter (default 2^26, the paper's one-pass
// limit), so n = B - 1, B, B + 1, ... with a small B crosses the same code paths as n = 2^26 +- 1
// without 2 GiB of data. Worst case (every product (p - 1)^2, the largest sums: the result is
// n mod p) and uniform data, every abgd variant against GMP; the serial kernels directly too.
TEST(Moddot, BlockBoundaries) {
  const uint64_t p = 4503599627370449ull;
  for (int64_t B : {1, 2, 3, 4, 7, 64, 1000}) {
    for (int64_t n : {B - 1, B, B + 1, 2 * B - 1, 2 * B + 1, 3 * B, 256 * 2 * B + 1, 256 * 5 * B - 1}) {
      if (n < 0) continue;
      std::vector<double> w(n, static_cast<double>(p - 1));
      const uint64_t ref = static_cast<uint64_t>(n) % p;
      EXPECT_EQ(moddot::abgd_rz(w.data(), w.data(), n, p, B), ref) << B << " " << n;
      EXPECT_EQ(moddot::abgd_rz_lanes(w.data(), w.data(), n, p, B), ref) << B << " " << n;
      EXPECT_EQ(moddot::abgd_rn(w.data(), w.data(), n, p, B), ref) << B << " " << n;
      for (const char* dist : {"worst", "uniform"}) {
        Dataset d = gen(dist, n, std::to_string(p), 17 + n);
        const uint64_t gref = gmp_ref(d);
        for (auto& v : variants()) {
          if (v.e->algo != "moddot-abgd") continue;
          Params q = v.params;
          q["block"] = std::to_string(B);
          for (const char* one : {"blocks", "groups"})  // GPU: few threads, so each crosses its blocks
            if (q.count(one)) q[one] = "1";
          EXPECT_EQ(static_cast<uint64_t>(v.e->make(d.problem(), q)->run_scalar()), gref)
              << v.label << " block=" << B << " n=" << n << " " << dist;
        }
      }
    }
  }
}

TEST(Moddot, RoundingModeIsRestoredAfterEveryCall) {
  Dataset d = gen("uniform", 1000, "2147483647");
  for (int mode : {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    ASSERT_EQ(std::fesetround(mode), 0);
    moddot::abgd_rz(d.x.data(), d.y.data(), d.n, 2147483647);
    EXPECT_EQ(std::fegetround(), mode);
    moddot::lambda_rz(d.x.data(), d.y.data(), d.n, 2147483647);
    EXPECT_EQ(std::fegetround(), mode);
    for (auto& v : variants()) {
      run(v, d);
      EXPECT_EQ(std::fegetround(), mode) << v.label;
    }
  }
  std::fesetround(FE_TONEAREST);
  volatile double a = 1.0, b = 0x1p-60;
  EXPECT_EQ(a + b, 1.0);            // round to nearest really is back
  volatile double c = 0x1p-53 * 3;  // 1 + 3 2^-53 rounds up to 1 + 2^-51 under RN only
  EXPECT_EQ(a + c, 1.0 + 0x1p-51);
}

TEST(Moddot, ResultsAreIdenticalAcrossBackendsAndThreads) {
  Dataset d = gen("uniform", 300001, "4503599627370449", 9);
  std::set<uint64_t> seen;
  for (auto& v : variants()) seen.insert(run(v, d));
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(*seen.begin(), gmp_ref(d));
}

namespace {
// A .npy file of 64-bit integers with the given dtype and shape text, e.g. "(3, 2)".
std::string write_npy(const std::string& name, const std::string& descr, const std::string& shape,
                      const std::vector<int64_t>& v) {
  const std::string path = cli_test::tmpdir() + "/" + name;
  std::ofstream(path, std::ios::binary) << test::npy_file(
      test::npy_dict(descr, shape), std::string(reinterpret_cast<const char*>(v.data()), v.size() * 8));
  return path;
}
std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = cli_test::tmpdir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST(Moddot, FilesRoundTripInEveryLayout) {
  const std::string dir = cli_test::tmpdir();
  Dataset d = gen("uniform", 1234, "32771", 4);
  for (const char* ext : {".npy", ".txt"}) {
    std::string path = dir + "/moddot" + ext;
    std::string bytes;
    encode_residues(path, d, [&](const void* b, size_t k) { bytes.append(static_cast<const char*>(b), k); });
    { std::ofstream(path, std::ios::binary) << bytes; }
    Dataset r = read_residues(path, {{"p", "32771"}});
    EXPECT_EQ(r.n, d.n);
    EXPECT_EQ(r.x, d.x);
    EXPECT_EQ(r.y, d.y);
    EXPECT_EQ(r.data.at("p"), "32771");
  }
  EXPECT_EQ(read_residues(dir + "/moddot.txt").data.at("p"), "32771");  // from the '# p =' line
  // (n, 2) columns, (2, n) rows, two one-column files (.npy (n,) / (n, 1), text), uint64.
  const std::vector<int64_t> cols{1, 6, 6, 6, 3, 5}, rows{1, 6, 3, 6, 6, 5};  // x = 1 6 3, y = 6 6 5
  const uint64_t ref = (6 + 36 + 15) % 7;
  std::vector<std::string> specs{
      write_npy("c.npy", "<i8", "(3, 2)", cols),
      write_npy("r.npy", "<i8", "(2, 3)", rows),
      write_npy("u.npy", "<u8", "(3, 2)", cols),
      write_npy("x.npy", "<i8", "(3,)", {1, 6, 3}) + "," + write_npy("y.npy", "<i8", "(3, 1)", {6, 6, 5}),
      write_text("x.txt", "1\n6\n3\n") + "," + write_text("y.csv", "# y\n6\n6\n5\n"),
      write_text("xy.csv", "1, 6\n6,6\n3\t5\n")};
  for (auto& s : specs) {
    Dataset r = read_residues(s, {{"p", "7"}});
    EXPECT_EQ(r.n, 3) << s;
    EXPECT_EQ(family("moddot").oracle(r).rounded, static_cast<double>(ref)) << s;
  }
  EXPECT_EQ(read_residues(write_text("empty.txt", "# nothing\n")).n, 0);
}

TEST(Moddot, BadFilesAreRefusedWithOneLine) {
  auto refused = [](const std::string& spec, const Params& opt, const std::string& why) {
    try {
      read_residues(spec, opt);
      ADD_FAILURE() << spec << ": accepted";
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(why), std::string::npos) << spec << ": " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  };
  const Params p7{{"p", "7"}};
  refused(write_text("neg.txt", "# p = 7\n1 2\n-1 3\n"), {}, "negative");
  refused(write_text("big.txt", "# p = 7\n1 7\n"), {}, ">= p");
  refused(write_text("big2.txt", "1 7\n"), p7, ">= p");
  refused(write_text("frac.txt", "# p = 7\n1.5 2\n"), {}, "not an integer");
  refused(write_text("nan.txt", "nan 2\n"), p7, "not an integer");
  refused(write_text("one.txt", "# p = 7\n1 2\n3\n"), {}, "expected 2");
  refused(write_text("notprime.txt", "# p = 9\n1 2\n"), {}, "not prime");
  refused(write_text("clash.txt", "# p = 11\n1 2\n"), p7, "disagrees");
  refused(write_text("ok.txt", "1 2\n"), {{"p", "9"}}, "not prime");
  refused(write_text("ok.txt", "1 2\n"), {{"p", "4503599627370497"}}, "out of range");  // p - 1 = 2^52
  refused(write_text("ok.txt", "1 2\n"), {{"p", "9007199254740881"}}, "out of range");  // a prime near 2^53
  refused(write_text("f.raw", "xx"), {}, "unknown extension");
  refused(write_npy("neg.npy", "<i8", "(2, 2)", {1, -1, 2, 3}), p7, "negative");
  refused(write_npy("bigu.npy", "<u8", "(2, 2)", {1, 2, 7, 3}), p7, ">= p");
  refused(write_npy("f8.npy", "<f8", "(2, 2)", {0, 0, 0, 0}), p7, "dtype");
  refused(write_npy("three.npy", "<i8", "(3, 3)", std::vector<int64_t>(9, 1)), p7, "shape");
  refused(write_npy("short.npy", "<i8", "(4, 2)", {1, 2, 3}), p7, "bytes");
  refused(write_npy("one.npy", "<i8", "(3,)", {1, 2, 3}), p7, "one column");
  refused(write_npy("two.npy", "<i8", "(2)", {1, 2}), p7, "shape");
  refused(write_npy("neg_shape.npy", "<i8", "(2, -1)", {}), p7, "shape");
  refused(write_npy("huge.npy", "<i8", "(2305843009213693952, 2)", {}), p7, "too large");
  refused(write_npy("xa.npy", "<i8", "(3,)", {1, 2, 3}) + "," + write_npy("ya.npy", "<i8", "(2,)", {1, 2}), p7,
          "different lengths");
  refused(write_npy("xb.npy", "<i8", "(2, 2)", {1, 2, 3, 4}) + "," + write_npy("yb.npy", "<i8", "(2,)", {1, 2}), p7,
          "each of two files holds one");
  refused(write_text("xp.txt", "# p = 7\n1\n") + "," + write_text("yp.txt", "# p = 11\n1\n"), {}, "disagrees");
  refused(write_text("ok.txt", "1 2\n"), {{"n", "3"}}, "does not apply");
}

// The CLI: --input with --p; a bad file or prime is one line on stderr and exit 2.
TEST(Moddot, CliReadsFilesWithThePrime) {
  const std::string xy = write_npy("cli.npy", "<i8", "(3, 2)", {1, 6, 6, 6, 3, 5});
  const std::string json = cli_test::tmpdir() + "/moddot_file.json";
  auto r = cli_test::accsum("bench --algo=moddot-abgd,moddot-lambda --backend=cpu,cpu-mt --input=" + xy +
                            " --p=7 --reps=1 --json=" + json);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string doc = cli_test::slurp(json);
  EXPECT_NE(doc.find("\"p\": 7"), std::string::npos) << doc.substr(0, 2000);
  EXPECT_EQ(doc.find("\"correctly_rounded\": false"), std::string::npos);
  for (const std::string bad : {" --p=9", " --p=4503599627370497", " --p=abc", " --dist=worst --p=7", " --n=5 --p=7"}) {
    r = cli_test::accsum("bench --algo=moddot-abgd --input=" + xy + bad + " --reps=1");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
  }
  r = cli_test::accsum("bench --algo=moddot-abgd --input=" + write_npy("cli_big.npy", "<i8", "(1, 2)", {1, 7}) +
                       " --p=7 --reps=1");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(">= p"), std::string::npos) << r.err;
  r = cli_test::accsum("bench --algo=sum --input=" + xy + " --p=7 --reps=1");  // --p is moddot's only
  EXPECT_EQ(r.code, 2) << r.err;
}

TEST(Moddot, CliBenchAndVerifyAndBadPrime) {
  auto r = cli_test::accsum("bench --algo=moddot-abgd,moddot-lambda --p=2147483647 --n=100000 --reps=2");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("moddot-abgd"), std::string::npos) << r.out;
  r = cli_test::accsum("bench --algo=moddot-abgd --p=32769 --n=1000 --reps=1");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("not prime"), std::string::npos) << r.err;
  r = cli_test::accsum("bench --algo=moddot-abgd --p=9007199254740881 --n=1000 --reps=1");
  EXPECT_EQ(r.code, 2) << r.err;
  r = cli_test::accsum("verify --algo=moddot-abgd,moddot-lambda,moddot-int128 --backend=cpu,cpu-mt");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

// CI regenerates the committed cpu tables and judges them against their reports: the exactness
// table and the time table (Fig. 7, small; times are not compared, the exact residues are).
TEST(Moddot, CommittedCpuTablesAreReproduced) {
  if (!registry().find("moddot-flint", "cpu")) GTEST_SKIP() << "no libflint: the committed tables have its column";
  cli_test::expect_committed_report_reproduced("table --suite=moddot-exact --backend=cpu --n=1000",
                                               "results/moddot_exact_table_cpu.json");
  auto r = cli_test::expect_committed_report_reproduced("table --suite=moddot --backend=cpu --n=2^10",
                                                        "results/moddot_table_cpu.json");
  EXPECT_EQ(r.out.find("! |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Every result is within"), std::string::npos) << r.out;
}

// GPU only (skips without one): n > 2^31 with 64-bit indexing, worst case at the largest
// prime, where sum (p-1)^2 = n mod p is known exactly by arithmetic.
TEST(ModdotGpu, BeyondTwoPow31ElementsOnCuda) {
  const BackendInfo* b = registry().backend("cuda");
  if (!b || !b->available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t p = 4503599627370449ull;
  Dataset d;
  d.family = "moddot";
  d.n = (int64_t(1) << 31) + 5;
  d.x.assign(d.n, static_cast<double>(p - 1));
  d.y.assign(d.n, static_cast<double>(p - 1));
  d.data["p"] = std::to_string(p);
  d.id = next_dataset_id();
  const uint64_t ref = static_cast<uint64_t>(d.n) % p;
  for (const char* algo : {"moddot-abgd", "moddot-lambda", "moddot-int128"})
    for (const char* r : {"rz", "rn"}) {
      const AlgoEntry* e = registry().find(algo, "cuda");
      ASSERT_NE(e, nullptr);
      Params u;
      if (std::string(algo) != "moddot-int128") u["rounding"] = r;
      Params prm = registry().resolve_params(*e, u);
      EXPECT_EQ(static_cast<uint64_t>(e->make(d.problem(), prm)->run_scalar()), ref) << algo << " " << r;
    }
}

// The mpi versions (composed from the residue state): every rank accumulates its slice, the
// residues merge in rank order. Run with 1 rank here and under mpirun -np 2 and 4 (CTest
// mpi_np*); only non-fatal checks, so every rank reaches every collective.
TEST(MpiModdot, RanksMergeResiduesExactly) {
  if (!registry().backend("mpi")) GTEST_SKIP() << "built without MPI";
  int runs = 0;
  for (const char* p : {"3", "32771", "2147483647", "1125899906842597", "4503599627370449"})
    for (const char* dist : {"uniform", "worst"})
      for (int64_t n : {0, 1, 2, 3, 5, 1001, 65537}) {
        Dataset d = gen(dist, n, p, 23 + n);
        const uint64_t ref = gmp_ref(d);
        for (auto& v : variants()) {
          if (v.e->backend != "mpi") continue;
          EXPECT_EQ(run(v, d), ref) << v.label << " " << dist << " p=" << p << " n=" << n;
          if (v.e->algo == "moddot-abgd") {
            Params q = v.params;
            q["block"] = "3";
            EXPECT_EQ(static_cast<uint64_t>(v.e->make(d.problem(), q)->run_scalar()), ref) << v.label << " block=3";
          }
          ++runs;
        }
      }
  EXPECT_GT(runs, 0);
}
