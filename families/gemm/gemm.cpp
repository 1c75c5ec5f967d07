// The gemm family: C = alpha*A*B + beta*C in float (BLAS SGEMM, column-major), judged entry by
// entry against the exact product rounded once to float (core/oracle/gemm_oracle.hpp). The dgemm
// family is the same in double (BLAS DGEMM; errors in double ulps, no gold standard, no paper
// table); one template over the element type F describes both.
//
// Sizes: --shape=M,N,K gives A (M x K), B (K x N), C (M x N); without it --n=N is the square size
// M = N = K; with neither, 512 (the vector families' 2^24 would be far too large).
// --alpha, --beta (default 1, 0; rounded to float). Generators: uniform (U[0,1), default),
// uniform-sym (U[-1,1)), loguniform (--range), illcond (--cond), specials (NaN / infinities).
//
// Metrics (Metrics::extra, per judged entry; errors are computed - exact):
//   abs_err (max |error|), rel_err (max componentwise), ulps (max, in float ulps of the exact
//   value), digits (min correct digits), avg_abs_err, err_min / err_max (the paper's "max error
//   range"), normwise_rel_err = max|error| / max_ij (sum_k |alpha a_ik b_kj| + |beta c_ij|),
//   share_correctly_rounded, share_faithful, gold_* (the same against the paper's gold standard,
//   float products summed in double: Badin et al. 2011, Sec. 3.1). correctly_rounded (faithful):
//   every entry is; on data with NaN / infinities: every non-finite exact entry is reproduced.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "core/frame/family.hpp"
#include "core/oracle/gemm_oracle.hpp"
#include "datasets/gemm_data.hpp"

namespace accsum {
namespace {

int64_t parse_dim(const std::string& s, const std::string& whole) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end) throw UsageError("--shape '" + whole + "' must be M,N,K (three integers >= 1)");
  if (v < 1) throw UsageError("--shape '" + whole + "': every dimension must be at least 1");
  return v;
}

constexpr int64_t kMaxSquare = 1 << 16;

template <class F>
const char* family_name() {
  return sizeof(F) == 4 ? "gemm" : "dgemm";
}

template <class F>
GemmGenSpec gen_spec(const GenSpec& s) {
  for (auto& [k, v] : s.options)
    if (k != "shape" && k != "alpha" && k != "beta" && k != "range" && k != "cond")
      throw UsageError(std::string("the ") + family_name<F>() + " family has no data option --" + k);
  GemmGenSpec g;
  g.dist = s.dist == "specials" ? "uniform-sym" : s.dist;
  g.seed = s.seed;
  auto it = s.options.find("shape");
  if (it != s.options.end()) {
    std::vector<std::string> parts;
    std::string cur;
    for (char ch : it->second + ",") {
      if (ch == ',') {
        parts.push_back(cur);
        cur.clear();
      } else if (ch != ' ') {
        cur += ch;
      }
    }
    if (parts.size() != 3) throw UsageError("--shape '" + it->second + "' must be M,N,K (three integers >= 1)");
    g.rows = parse_dim(parts[0], it->second);
    g.cols = parse_dim(parts[1], it->second);
    g.inner = parse_dim(parts[2], it->second);
  } else {
    if (s.n > kMaxSquare)
      throw UsageError(fmt::format("{}: --n={} is the square size M = N = K, at most {} (give --n or --shape=M,N,K)",
                                   family_name<F>(), s.n, kMaxSquare));
    g.rows = g.cols = g.inner = s.n;
  }
  g.alpha = static_cast<F>(option_number(s.options, "alpha", 1.0));
  g.beta = static_cast<F>(option_number(s.options, "beta", 0.0));
  if (!std::isfinite(g.alpha) || !std::isfinite(g.beta))
    throw UsageError(sizeof(F) == 4 ? "--alpha and --beta must be finite floats" : "--alpha and --beta must be finite");
  g.range = option_number(s.options, "range", 1e6);
  g.cond = option_number(s.options, "cond", 1e6);
  return g;
}

// specials: U[-1,1) with infinities and NaN planted by seed % 4 (0: +inf in A, 1: +inf in A and
// -inf in B meeting it in some entry, 2: NaN in B, 3: +inf in A next to a zero of B (inf*0)).
template <class F>
void plant_specials(Dataset& d) {
  const int64_t M = d.rows, N = d.cols, K = d.inner;
  const uint64_t s = d.seed;
  const int64_t i = static_cast<int64_t>(s * 7 % M), j = static_cast<int64_t>(s * 3 % N),
                k = static_cast<int64_t>(s % K);
  std::vector<F>&a = d.*MatricesOf<F>::a, &b = d.*MatricesOf<F>::b;
  switch (s % 4) {
    case 0:
      a[i + k * M] = INFINITY;
      break;
    case 1:
      a[i + k * M] = INFINITY;
      b[(K - 1 - k) + j * K] = -INFINITY;
      a[i + (K - 1 - k) * M] = 1.0f;
      break;
    case 2:
      b[k + j * K] = NAN;
      break;
    default:
      a[i + k * M] = INFINITY;
      b[k + j * K] = 0.0f;
      break;
  }
  d.generator = "specials";
  d.id = next_dataset_id();
}

template <class F>
Dataset generate(const GenSpec& s) {
  GemmGenSpec g = gen_spec<F>(s);
  Dataset d = generate_gemm<F>(g);
  if (s.dist == "specials") plant_specials<F>(d);
  return d;
}

std::vector<VerifyCase> verify_cases(bool full) {
  std::vector<VerifyCase> c{{"uniform", {}}, {"uniform-sym", {}}, {"specials", {}, 4}};
  for (const char* r : {"1e6", "1e20"}) c.push_back({"loguniform", {{"range", r}}});
  for (const char* k : {"1e6", "1e20"}) c.push_back({"illcond", {{"cond", k}}});
  // Odd shapes (not multiples of any tile) and BLAS scalars.
  for (const char* sh : {"1,1,1", "1,5,300", "33,17,65", "70,3,129", "5,130,1"})
    c.push_back({"uniform-sym", {{"shape", sh}}});
  c.push_back({"uniform-sym", {{"shape", "37,29,200"}, {"alpha", "-0.75"}, {"beta", "1.5"}}});
  c.push_back({"uniform", {{"shape", "37,29,200"}, {"alpha", "0"}, {"beta", "2"}}});
  if (full) c.push_back({"uniform", {{"shape", "300,257,1031"}}});
  return c;
}

std::vector<int64_t> verify_sizes(bool full) {
  return full ? std::vector<int64_t>{1, 7, 64, 100, 257} : std::vector<int64_t>{7, 64};
}

std::string error_cell(const Metrics& m) {
  double avg = 0, lo = 0, hi = 0;
  for (auto& [k, v] : m.extra) {
    if (k == "avg_abs_err") avg = v;
    if (k == "err_min") lo = v;
    if (k == "err_max") hi = v;
  }
  return fmt::format("{:.2e} [{:.2e}, {:.2e}]", avg, lo, hi);
}

constexpr int64_t kTableSizes = 5;  // Badin et al. 2011: N = 1024, 2048, ..., 5120

// The layout of Badin et al. 2011, Tables 4-9: per size N and distribution, the average error
// and the max error range [min, max] of each method and tile, against the exact product.
TableSuite paper_suite() {
  TableSuite t;
  t.name = "gemm";
  t.summary =
      "avg error and max error range of SGEMM, selective Kahan / DCS (tiles 1, 16, 32, 64) and the vendor front";
  t.intro =
      "Average |error| and max error range [min, max] (computed - exact, the exact product rounded once to float) "
      "of each method (the layout of Badin, Bic, Dillencourt, Nicolau, \"Improving accuracy for matrix "
      "multiplications on GPUs\", 2011, Tables 4-9: N = 1024 ... 5120 at n = 5120), square N x N x N, "
      "N = n/5, 2n/5, ..., n; with --reps, the median GFLOP/s of each cell.";
  t.row_head = {"N", "dist"};
  t.columns = [](const std::string&, const std::vector<const AlgoEntry*>& algos) {
    std::vector<TableColumn> cols{{"sgemm", {}, "sgemm", ""}};
    for (const char* algo : {"sgemm-kahan", "sgemm-dcs"})
      for (int tile : {1, 16, 32, 64})
        cols.push_back({algo, {{"tile", std::to_string(tile)}}, fmt::format("{} tile {}", algo, tile), ""});
    for (const AlgoEntry* e : algos)  // the vendor front on this backend
      if (e->algo != "sgemm" && e->algo != "sgemm-kahan" && e->algo != "sgemm-dcs")
        cols.push_back({e->algo, {}, e->algo, ""});
    return cols;
  };
  t.rows = [](int64_t n, uint64_t seed) {
    std::vector<GenSpec> rows;
    for (const char* dist : {"uniform", "uniform-sym"})
      for (int64_t step = 1; step <= kTableSizes; ++step)
        rows.push_back(GenSpec{dist, "gemm", std::max<int64_t>(1, n * step / kTableSizes), seed, 1e16, 1e16, {}});
    return rows;
  };
  t.row_cells = [](const GenSpec& s, const ExactValue&) {
    return std::vector<std::string>{std::to_string(s.n), s.dist};
  };
  t.cell = error_cell;
  return t;
}

template <class F>
FamilyDescriptor gemm_family() {
  const bool single = sizeof(F) == 4;
  const std::string name = family_name<F>(), type = single ? "float" : "double", dtype = single ? "f32" : "f64";
  FamilyDescriptor f;
  f.name = name;
  f.listing_rank = 2;  // dgemm is listed right after gemm (registration order)
  f.summary = type + " matrix product C = alpha*A*B + beta*C (column-major, BLAS " + (single ? "SGEMM" : "DGEMM") +
              "), every entry judged exactly";
  f.inputs = "A: " + dtype + "[M,K], B: " + dtype + "[K,N], C: " + dtype + "[M,N], alpha, beta";
  f.result = "M x N " + type + "s, column-major; reference: each entry's exact value rounded once to " + type;
  f.unit = "FLOP";
  f.default_n = "512";  // square 512 x 512 x 512 when neither --n nor --shape is given
  f.units = [](const Dataset& d) { return 2.0 * double(d.rows) * double(d.cols) * double(d.inner); };
  f.bytes = [](const Dataset& d) {
    return double(sizeof(F)) * (double(d.rows) * d.inner + double(d.inner) * d.cols + 2.0 * double(d.rows) * d.cols);
  };
  f.dists = {"uniform", "uniform-sym", "loguniform", "illcond", "specials"};
  // The same text for gemm and dgemm (the CLI shows each option once).
  f.options = {
      {"shape", "gemm, dgemm: M,N,K (A is M x K, B is K x N); without it --n is the square size", {}, "", false},
      {"alpha",
       "gemm, dgemm: alpha of C = alpha*A*B + beta*C (default 1; gemm rounds it to float; a list sweeps)",
       {},
       ""},
      {"beta", "gemm, dgemm: beta (default 0: C is not read; a list sweeps)", {}, ""},
      {"range", "dynamic range of loguniform data (>= 1; a list sweeps)", {"loguniform"}, "loguniform"},
      {"cond", "target condition number of illcond data (>= 1; a list sweeps)", {"illcond"}, "illcond"}};
  f.file_formats =
      "A.npy,B.npy: two 2-D " + std::string(single ? "float32" : "float64") + " .npy files, A (M, K) and B (K, N)";
  // A, B, C, a result and the oracle's per-entry data (datasets/gemm_data.cpp check_gemm_size).
  f.input_bytes = [](const GenSpec& s) {
    const GemmGenSpec g = gen_spec<F>(s);
    return gemm_bytes<F>(g.rows, g.cols, g.inner);
  };
  f.generate = generate<F>;
  f.read = read_gemm_npy<F>;
  f.encode = [](const std::string&, Dataset&, const std::string&, const std::function<void(const void*, size_t)>&) {
    throw UsageError(std::string("the ") + family_name<F>() +
                     " family reads .npy matrices but does not write datasets (numpy.save A and B instead)");
  };
  f.oracle = exact_gemm<F>;
  f.measure = [](const Result& r, const ExactValue& ref, double) { return measure_gemm<F>(r, ref); };
  f.verify_cases = verify_cases;
  f.verify_sizes = verify_sizes;
  if (single) f.tables = {paper_suite()};
  return f;
}

FamilyRegistrar reg_gemm(gemm_family<float>());
FamilyRegistrar reg_dgemm(gemm_family<double>());

}  // namespace
}  // namespace accsum
