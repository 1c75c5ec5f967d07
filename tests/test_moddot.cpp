// The moddot family: every algorithm on every backend here against GMP (the family's oracle),
// on every generator, sizes 0, 1, odd, block boundaries 2^26 +- 1, primes across the range up
// to 2^52; bit-identical across backends and thread counts; the rounding mode is restored.
#include <gmp.h>
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <fstream>
#include <random>
#include <set>

#include "backends/cpu/moddot_rz.hpp"
#include "cli_run.hpp"
#include "core/family.hpp"
#include "core/moddot.hpp"
#include "datasets/residues.hpp"

using namespace accsum;

#define EXPECT_USAGE_ERROR(expr) EXPECT_THROW((void)(expr), accsum::UsageError)

namespace {

const std::vector<std::string> kPrimes{"2", "3", "5", "32771", "65537", "2147483647", "4294967291", "1099511627689",
                                       std::to_string(kModdotDefaultPrime), "2251799813685119", "4503599627370449"};

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
  for (auto& e : registry().entries()) {
    if (e.family != "moddot") continue;
    if (e.guarantee != Guarantee::exact) continue;  // the cuBLAS ddot yardstick promises nothing
    const BackendInfo* b = registry().backend(e.backend);
    if (!b || !b->available()) continue;
    bool has_rounding = false, has_threads = false;
    for (auto& ps : e.params) {
      has_rounding |= ps.name == "rounding";
      has_threads |= ps.name == "threads";
    }
    std::vector<std::string> roundings = has_rounding ? std::vector<std::string>{"rz", "rn"} : std::vector<std::string>{""};
    if (e.backend == "opencl" || e.backend == "cuda") roundings = {""};
    std::vector<std::string> threads = has_threads ? std::vector<std::string>{"1", "2", "3", "7"} : std::vector<std::string>{""};
    for (auto& r : roundings)
      for (auto& t : threads) {
        Params u;
        if (!r.empty()) u["rounding"] = r;
        if (!t.empty()) u["threads"] = t;
        out.push_back({&e, registry().resolve_params(e, u), e.algo + "/" + e.backend + " " + r + " t=" + t});
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
  for (const char* a : {"moddot-gmp", "moddot-int128", "moddot-lambda", "moddot-abgd"})
    EXPECT_NE(registry().find(a, "cpu"), nullptr) << a;
  for (const char* a : {"moddot-int128", "moddot-lambda", "moddot-abgd"}) EXPECT_NE(registry().find(a, "cpu-mt"), nullptr) << a;
  EXPECT_GE(variants().size(), 12u);
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
    const double pd = static_cast<double>(p), pinv = 1.0 / pd;
    for (int k = 0; k < 2000; ++k) {
      uint64_t x = g() >> 12;  // < 2^52
      if (k < 4) x = (uint64_t(1) << 52) - 1 - k;
      EXPECT_EQ(static_cast<uint64_t>(moddot::reduce52(static_cast<double>(x), pd, pinv)), x % p) << p << " " << x;
    }
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

// Around the paper's one-pass limit n = 2^26: the blocks are reduced between them. Worst case
// (every product (p-1)^2, the largest sums) at the largest prime.
TEST(Moddot, BlockBoundariesAt2Pow26) {
  const uint64_t p = 4503599627370449ull;
  const int64_t B = int64_t(1) << 26;
  std::vector<double> x(B + 3, static_cast<double>(p - 1)), y(B + 3, static_cast<double>(p - 1));
  for (int64_t n : {B - 1, B, B + 1, B + 3}) {
    Dataset d;
    d.family = "moddot";
    d.n = n;
    d.x.assign(x.begin(), x.begin() + n);
    d.y.assign(y.begin(), y.begin() + n);
    d.data["p"] = std::to_string(p);
    d.id = next_dataset_id();
    // (p-1)^2 n mod p = n mod p
    const uint64_t ref = static_cast<uint64_t>(n) % p;
    EXPECT_EQ(moddot::abgd_rz(d.x.data(), d.y.data(), n, p), ref) << n;
    EXPECT_EQ(moddot::abgd_rn(d.x.data(), d.y.data(), n, p), ref) << n;
    EXPECT_EQ(moddot::lambda_rz(d.x.data(), d.y.data(), n, p), ref) << n;
    EXPECT_EQ(moddot::lambda_rn(d.x.data(), d.y.data(), n, p), ref) << n;
  }
  // Uniform data across the boundary, every cpu/cpu-mt variant against GMP.
  Dataset d = gen("uniform", B + 3, std::to_string(kModdotDefaultPrime), 5);
  const uint64_t ref = gmp_ref(d);
  for (auto& v : variants())
    if (v.e->algo != "moddot-gmp") {
      EXPECT_EQ(run(v, d), ref) << v.label;
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
  EXPECT_EQ(a + b, 1.0);  // round to nearest really is back
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

TEST(Moddot, FilesRoundTripAndBadInputIsRejected) {
  const std::string dir = cli_test::tmpdir();
  Dataset d = gen("uniform", 1234, "32771", 4);
  for (const char* ext : {".npy", ".txt"}) {
    std::string path = dir + "/moddot" + ext;
    std::string bytes;
    encode_residues(path, d, [&](const void* b, size_t k) { bytes.append(static_cast<const char*>(b), k); });
    { std::ofstream(path, std::ios::binary) << bytes; }
    Dataset r = read_residues(path);
    EXPECT_EQ(r.n, d.n);
    EXPECT_EQ(r.x, d.x);
    EXPECT_EQ(r.y, d.y);
    if (std::string(ext) == ".txt") {
      EXPECT_EQ(r.data.at("p"), "32771");
    }
  }
  auto write = [&](const std::string& name, const std::string& text) {
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  };
  EXPECT_USAGE_ERROR(read_residues(write("neg.txt", "# p = 7\n1 2\n-1 3\n")));
  EXPECT_USAGE_ERROR(read_residues(write("big.txt", "# p = 7\n1 7\n")));
  EXPECT_USAGE_ERROR(read_residues(write("frac.txt", "# p = 7\n1.5 2\n")));
  EXPECT_USAGE_ERROR(read_residues(write("one.txt", "# p = 7\n1 2\n3\n")));
  EXPECT_USAGE_ERROR(read_residues(write("notprime.txt", "# p = 9\n1 2\n")));
  EXPECT_USAGE_ERROR(read_residues(write("f.raw", "xx")));
  Dataset ok = read_residues(write("ok.csv", "# p = 7\n1, 6\n6,6\n"));
  EXPECT_EQ(family("moddot").oracle(ok).rounded, (6 + 36) % 7);
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
