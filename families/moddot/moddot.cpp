// The moddot family: the dot product of two vectors of residues modulo a prime p
// (p - 1 < 2^52), judged bit for bit against GMP. Algorithms: Jean, Graillat, "A parallel
// algorithm for dot product over word-size finite field using floating-point arithmetic",
// SYNASC 2010 (families/moddot/moddot.hpp, backends/cpu/moddot_*.cpp), and integer/GMP/FLINT baselines.
#include <fmt/format.h>
#include <gmp.h>

#include <cmath>
#include <memory>

#include "core/frame/family.hpp"
#include "datasets/residues.hpp"

namespace accsum {
namespace {

// sum x_i y_i mod p exactly: GMP integers (x_i y_i < 2^104), one reduction at the end.
ExactValue moddot_oracle(const Dataset& d) {
  const uint64_t p = prime_of(d.data);
  mpz_t acc, t;
  mpz_init(acc);
  mpz_init(t);
  for (int64_t i = 0; i < d.n; ++i) {
    const double a = d.x[i], b = d.y[i];
    if (!(a >= 0 && a < static_cast<double>(p) && a == std::floor(a) && b >= 0 && b < static_cast<double>(p) &&
          b == std::floor(b))) {
      mpz_clear(acc);
      mpz_clear(t);
      throw UsageError(fmt::format("moddot entry {} ({}, {}) is not a pair of residues in [0, {})", i, a, b, p));
    }
    mpz_set_ui(t, static_cast<unsigned long>(a));
    mpz_addmul_ui(acc, t, static_cast<unsigned long>(b));
  }
  const uint64_t r = mpz_fdiv_ui(acc, p);
  mpz_clear(acc);
  mpz_clear(t);
  ExactValue ev;
  ev.rounded = static_cast<double>(r);  // exact: r < 2^52
  ev.hex = hex_double(ev.rounded);
  ev.decimal = std::to_string(r);
  ev.abs_sum = ev.rounded;
  ev.sum_abs = ev.rounded;
  ev.cond = 1;
  ev.cond_definition = "not applicable (exact residue arithmetic)";
  ev.method = "GMP: exact integer sum of the products (mpz), reduced mod p = " + std::to_string(p) + " once";
  ev.facts.n = d.n;
  ev.exact = std::make_shared<uint64_t>(r);
  return ev;
}

// A residue is right or wrong: correctly_rounded means the same residue, bit for bit.
Metrics moddot_measure(const Result& res, const ExactValue& ref, double) {
  Metrics m;
  m.value = res.scalar();
  m.hex = hex_double(m.value);
  const bool same = m.value == ref.rounded && !std::signbit(m.value);
  m.correctly_rounded = m.faithful = same;
  m.abs_err = std::isnan(m.value) ? INFINITY : std::fabs(m.value - ref.rounded);
  m.rel_err = same ? 0 : ref.rounded != 0 ? m.abs_err / ref.rounded : INFINITY;
  m.ulps = m.abs_err;  // residues are integers: the unit is 1
  m.digits = same ? 16 : 0;
  m.extra.push_back({"residue_exact", same ? 1.0 : 0.0});
  return m;
}

std::vector<VerifyCase> moddot_verify_cases(bool full) {
  std::vector<std::string> primes{"2",
                                  "3",
                                  "32771",
                                  "2147483647",
                                  std::to_string(kModdotDefaultPrime),
                                  "4503599627370449"};  // the largest prime with p - 1 < 2^52
  if (full)
    for (const char* p : {"65537", "4294967291", "1099511627689", "2251799813685119"}) primes.push_back(p);
  std::vector<VerifyCase> c;
  for (const char* dist : {"uniform", "worst", "sparse"})
    for (auto& p : primes) c.push_back({dist, {{"p", p}}, 1});
  return c;
}

std::vector<int64_t> moddot_verify_sizes(bool full) {
  return full ? std::vector<int64_t>{0, 1, 2, 3, 7, 100, 1000, 4097, 100003, 1 << 20}
              : std::vector<int64_t>{0, 1, 2, 3, 7, 100, 1000, 4097};
}

// Columns of the family's algorithms `algos` (only the exact ones with exact_only), one per rounding choice.
std::vector<TableColumn> algorithm_columns(const std::vector<const AlgoEntry*>& algos, bool exact_only) {
  std::vector<TableColumn> cols;
  for (const AlgoEntry* e : algos) {
    if (exact_only && e->guarantee != Guarantee::exact) continue;
    std::vector<std::string> roundings;
    for (auto& ps : e->params)
      if (ps.name == "rounding") roundings = ps.choices;
    if (roundings.empty()) cols.push_back({e->algo, {}, e->algo, "", 0});
    for (auto& r : roundings) cols.push_back({e->algo, {{"rounding", r}}, e->algo + " " + r, "", 0});
  }
  return cols;
}

// The primes of Jean, Graillat (SYNASC 2010) Fig. 7: 32771, 2^31 - 1, a prime near 2^50.
const std::vector<std::string>& fig7_primes() {
  static const std::vector<std::string> p{"32771", "2147483647", std::to_string(kModdotDefaultPrime)};
  return p;
}

// moddot-exact: is every algorithm of the backend exact (same residue as GMP) for primes from
// 2^15 to 2^52, on uniform and worst-case data?
TableSuite exactness_suite() {
  TableSuite t;
  t.name = "moddot-exact";
  t.summary = "exact residue (vs GMP) of every moddot algorithm of the backend, p = 32771 ... 2^52 - 47";
  t.intro =
      "Each cell: `exact` when the algorithm returned the residue GMP computes (bit for bit), `WRONG` otherwise. "
      "Primes as in Jean, Graillat (SYNASC 2010) Fig. 7 (32771, 2^31 - 1, a prime near 2^50) and the largest "
      "prime with p - 1 < 2^52; uniform residues and the worst case (every entry p - 1).";
  t.row_head = {"dist", "p"};
  t.columns = [](const std::string&, const std::vector<const AlgoEntry*>& algos) {
    return algorithm_columns(algos, true);
  };
  t.rows = [](int64_t n, uint64_t seed) {
    std::vector<GenSpec> rows;
    for (const char* dist : {"uniform", "worst"}) {
      for (auto& p : fig7_primes()) rows.push_back(GenSpec{dist, "moddot", n, seed, 1e16, 1e16, {{"p", p}}});
      rows.push_back(GenSpec{dist, "moddot", n, seed, 1e16, 1e16, {{"p", "4503599627370449"}}});
    }
    return rows;
  };
  t.row_cells = [](const GenSpec& s, const ExactValue&) { return std::vector<std::string>{s.dist, s.options.at("p")}; };
  t.cell = [](const Metrics& m) { return std::string(m.correctly_rounded ? "exact" : "WRONG"); };
  return t;
}

// The runs of a timed cell (median), and the sizes 2^2, 2^4, ... up to n of the time table.
constexpr int kFig7Reps = 5;
std::vector<int64_t> fig7_sizes(int64_t n) {
  std::vector<int64_t> sizes;
  for (int64_t s = 4; s <= n; s *= 4) sizes.push_back(s);
  return sizes;
}

// moddot: the paper's Fig. 7 as a table: time against n for the three primes, the serial GMP
// loop (on cpu, one run) first, every algorithm of the backend after it.
TableSuite time_suite() {
  TableSuite t;
  t.name = "moddot";
  t.summary = "time against n (2^2 ... --n) for p = 32771, 2^31 - 1, 2^50 - 27: every moddot algorithm vs the GMP loop";
  t.intro =
      "Jean, Graillat (SYNASC 2010) Fig. 7: uniform residues, n = 2^2, 2^4, ... up to --n. Each cell: the median "
      "compute time of " +
      std::to_string(kFig7Reps) + " runs (after one warm-up; the GMP loop: one run where it takes " +
      fmt::format("{:g}", kShortRunSeconds * 1e3) +
      " ms or more), the "
      "transfer of the data to the device apart (`+ ... transfer`, GPU backends), and the speed-up over the "
      "paper's serial GMP loop on the same data (`x...`). A `!` marks a residue that differs from GMP's. "
      "`--json` holds every run.";
  t.row_head = {"p", "n"};
  t.reps = kFig7Reps;
  t.columns = [](const std::string& backend, const std::vector<const AlgoEntry*>& algos) {
    std::vector<TableColumn> cols{{"moddot-gmp", {}, "GMP loop (cpu)", "cpu", 1}};
    for (auto& c : algorithm_columns(algos, false))
      if (!(backend == "cpu" && c.algo == "moddot-gmp")) cols.push_back(c);
    return cols;
  };
  t.rows = [](int64_t n, uint64_t seed) {
    std::vector<GenSpec> rows;
    for (auto& p : fig7_primes())
      for (int64_t s : fig7_sizes(n)) rows.push_back(GenSpec{"uniform", "moddot", s, seed, 1e16, 1e16, {{"p", p}}});
    return rows;
  };
  t.row_cells = [](const GenSpec& s, const ExactValue&) {
    return std::vector<std::string>{s.options.at("p"), fmt::format("2^{}", 63 - __builtin_clzll(uint64_t(s.n)))};
  };
  t.timed_cell = [](const Metrics&, const CellTime& c) {
    std::string s = fmt::format("{:.3g} ms", c.seconds * 1e3);
    if (c.transfer_s > 0) s += fmt::format(" + {:.3g} ms transfer", c.transfer_s * 1e3);
    return s + fmt::format(" x{:.3g}", c.seconds > 0 ? c.reference_seconds / c.seconds : 0.0);
  };
  return t;
}

FamilyDescriptor moddot_family() {
  FamilyDescriptor f;
  f.name = "moddot";
  f.listing_rank = 3;
  f.summary = "dot product over Z/pZ (p prime, p - 1 < 2^52) of residues packed in doubles, exact residue";
  f.inputs = "x, y: residues in [0, p) as f64[n]; p: prime, p - 1 < 2^52 (--p)";
  f.result = "the residue sum x_i y_i mod p, an exact integer (GMP reference, bit for bit)";
  f.unit = "elements";
  f.units = [](const Dataset& d) { return static_cast<double>(d.n); };
  f.bytes = [](const Dataset& d) { return 16.0 * static_cast<double>(d.n); };
  f.dists = residue_dist_names();
  f.options = {
      {"p",
       fmt::format("the prime modulus, p - 1 < 2^52 (default {} = 2^50 - 27; a list sweeps)", kModdotDefaultPrime),
       {},
       "",
       true,
       /*for_files=*/true}};
  f.file_formats =
      ".npy int64/uint64 (n, 2) or (2, n), text/csv (two integers per line, optional '# p = <prime>' line), or two "
      "one-column files x.npy,y.npy; the prime: --p (default 2^50 - 27)";
  f.input_bytes = [](const GenSpec& s) {
    if (s.options.count("p")) parse_prime(s.options.at("p"), "--p");  // judged before the first point runs
    return 16.0 * static_cast<double>(s.n);                           // x and y as doubles
  };
  f.generate = [](const GenSpec& s) { return generate_residues(s); };
  f.read = [](const std::string& path) { return read_residues(path); };
  f.read_with = read_residues;
  f.encode = [](const std::string& path, Dataset& d, const std::string& dtype,
                const std::function<void(const void*, size_t)>& sink) {
    if (dtype != "f8" && dtype != "i8") throw UsageError("--dtype: a moddot dataset is written as int64 (i8)");
    encode_residues(path, d, sink);
  };
  f.oracle = moddot_oracle;
  f.measure = moddot_measure;
  f.permute = [](const Dataset& d) {
    Dataset q = permuted_copy(d);
    q.family = d.family;
    q.data = d.data;
    return q;
  };
  f.verify_cases = moddot_verify_cases;
  f.verify_sizes = moddot_verify_sizes;
  f.tables = {time_suite(), exactness_suite()};
  return f;
}

FamilyRegistrar reg_moddot(moddot_family());

}  // namespace
}  // namespace accsum
