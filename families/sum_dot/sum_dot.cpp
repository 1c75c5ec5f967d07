// The sum and dot families: vectors of doubles reduced to one binary64 value, judged against
// the exact MPFR result (core/oracle/oracle.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

namespace accsum {
namespace {

GenSpec vector_spec(GenSpec spec, const std::string& family, bool with_y) {
  spec.family = family;
  spec.with_y = with_y;
  spec.range = option_number(spec.options, "range", spec.range, 1);
  spec.cond = option_number(spec.options, "cond", spec.cond, 1);
  for (auto& [k, v] : spec.options)
    if (k != "range" && k != "cond") throw UsageError("the " + family + " family has no data option --" + k);
  return spec;
}

// The exact value of either kind of dataset: held arrays, or elements remade by index.
ExactValue exact_vectors(const Dataset& d, bool dot) {
  if (!d.generated_by) return dot ? exact_dot(d.x.data(), d.y.data(), d.n) : exact_sum(d.x.data(), d.n);
  auto fill = [r = d.generated_by](int64_t b, int64_t e, double* x, double* y) { generate_range(*r, b, e, x, y); };
  return dot ? exact_dot_generated(fill, d.n) : exact_sum_generated(fill, d.n);
}

std::vector<VerifyCase> verify_cases(bool full) {
  std::vector<VerifyCase> c{{"uniform", {}}, {"uniform-sym", {}},     {"subnormal", {}},
                            {"ties", {}},    {"overflow-cancel", {}}, {"huge", {}}};
  // specials picks its special values by seed % 6: six seeds see every IEEE case.
  c.push_back({"specials", {}, 6});
  for (double r : full ? std::vector<double>{1, 1e10, 1e50, 1e100, 1e200, 1e300} : std::vector<double>{1, 1e50, 1e300})
    c.push_back({"loguniform", {{"range", fmt::format("{:g}", r)}}});
  for (double k : full ? std::vector<double>{1e5, 1e10, 1e20, 1e30, 1e50, 1e100, 1e200, 1e300}
                       : std::vector<double>{1e10, 1e30, 1e100, 1e300})
    c.push_back({"illcond", {{"cond", fmt::format("{:g}", k)}}});
  return c;
}

std::vector<int64_t> verify_sizes(bool full) {
  return full ? std::vector<int64_t>{0, 1, 2, 3, 7, 100, 1000, 4097, 100003, 1 << 20}
              : std::vector<int64_t>{0, 1, 2, 3, 7, 100, 1000, 4097};
}

// Correct decimal digits of the result; "!" marks a broken guarantee (the caller adds it).
std::string digits_cell(const Metrics& m) { return fmt::format("{:.1f}", m.digits); }

std::vector<GenSpec> illcond_rows(const std::string& family, std::vector<double> conds, int64_t n, uint64_t seed) {
  std::vector<GenSpec> rows;
  for (double c : conds) rows.push_back(GenSpec{"illcond", family, n, seed, 1e16, c, {}});
  return rows;
}

std::vector<std::string> cond_cells(const GenSpec& s, const ExactValue& ref) {
  return {fmt::format("{:.0e}", s.cond), fmt::format("{:.2e}", ref.cond)};
}

const char* kIllcondIntro =
    "Correct decimal digits (-log10 of the relative error against the exact MPFR result, capped at 16) on "
    "ill-conditioned data (Ogita-Rump-Oishi GenSum/GenDot); `cond` is the achieved condition number computed "
    "exactly.";

// kfold: correct digits against condition number 1e0..1e300 for the plain algorithm and the K-fold
// ones at K = 2, 3, 4 (the shape of Ogita, Rump, Oishi, "Accurate sum and dot product", 2005,
// Figs. 6.1-6.4). K = 20 shows the serial K-fold algorithms reach full accuracy even at 1e300.
TableSuite kfold_suite(const std::string& family, bool dot) {
  TableSuite t;
  t.name = "kfold";
  t.summary = "correct digits against condition number 1e0..1e300, K-fold algorithms at K = 2, 3, 4";
  t.intro = kIllcondIntro;
  t.row_head = {"target cond", "cond"};
  t.columns = [dot](const std::string&, const std::vector<const AlgoEntry*>&) {
    std::vector<TableColumn> cols{{dot ? "dot" : "naive", {}, dot ? "dot" : "naive", ""}};
    const char* k_algo = dot ? "dotk" : "sumk";
    for (int k : {2, 3, 4, 20})
      cols.push_back({k_algo, {{"K", std::to_string(k)}}, fmt::format("{} K={}", k_algo, k), ""});
    const char* dp_algo = dot ? "dpdotk" : "dpsumk";
    for (const char* v : {"tree", "fused"})
      for (int k : {2, 3, 4})
        cols.push_back(
            {dp_algo, {{"K", std::to_string(k)}, {"variant", v}}, fmt::format("{} {} K={}", dp_algo, v, k), ""});
    return cols;
  };
  t.rows = [family](int64_t n, uint64_t seed) {
    std::vector<double> conds;
    for (int e = 0; e <= 300; e += 10) conds.push_back(std::pow(10.0, e));
    return illcond_rows(family, conds, n, seed);
  };
  t.row_cells = cond_cells;
  t.cell = digits_cell;
  return t;
}

// accuracy: every algorithm of the backend in this family (K = 2, 3 where it has K) at
// cond 1e10, 1e20, 1e30.
TableSuite accuracy_suite(const std::string& family) {
  TableSuite t;
  t.name = "accuracy";
  t.summary = "correct digits of every algorithm of the backend at cond 1e10, 1e20, 1e30";
  t.intro = kIllcondIntro;
  t.row_head = {"target cond", "cond"};
  t.columns = [](const std::string&, const std::vector<const AlgoEntry*>& algos) {
    std::vector<TableColumn> cols;
    for (const AlgoEntry* e : algos) {
      bool has_k = std::any_of(e->params.begin(), e->params.end(), [](const ParamSpec& p) { return p.name == "K"; });
      if (has_k)
        for (int k : {2, 3})
          cols.push_back({e->algo, {{"K", std::to_string(k)}}, fmt::format("{} K={}", e->algo, k), ""});
      else
        cols.push_back({e->algo, {}, e->algo, ""});
    }
    return cols;
  };
  t.rows = [family](int64_t n, uint64_t seed) { return illcond_rows(family, {1e10, 1e20, 1e30}, n, seed); };
  t.row_cells = cond_cells;
  t.cell = digits_cell;
  return t;
}

// The sum of x, or with y (dot) the dot product x.y.
FamilyDescriptor vector_family(const std::string& name, bool dot) {
  FamilyDescriptor f;
  f.name = name;
  f.listing_rank = dot ? 1 : 0;
  f.has_y = dot;
  f.summary = dot ? "dot product of two vectors of doubles, one binary64 result"
                  : "sum of a vector of doubles, one binary64 result";
  f.inputs = dot ? "x, y: f64[n]" : "x: f64[n]";
  f.result = "one binary64 value";
  f.unit = dot ? "elements" : "additions";
  f.units = [](const Dataset& d) { return static_cast<double>(d.n); };
  f.bytes = [dot](const Dataset& d) { return (dot ? 16.0 : 8.0) * static_cast<double>(d.n); };
  f.input_bytes = [dot, name](const GenSpec& s) {
    validate(vector_spec(s, name, dot));  // every point of a sweep is judged before the first runs
    return (dot ? 16.0 : 8.0) * static_cast<double>(s.n);
  };
  f.dists = dist_names();
  f.options = {
      {"range", "dynamic range of loguniform data (>= 1; a list sweeps)", {"loguniform"}, "loguniform"},
      {"cond", "target condition number of illcond data (>= 1, up to 1e300; a list sweeps)", {"illcond"}, "illcond"}};
  f.file_formats = dot ? ".npy (2, n) float64/float32, raw (x then y), text (two columns)"
                       : ".npy (n,) float64/float32, raw little-endian float64, text (one number per line)";
  f.generate = [name, dot](const GenSpec& s) { return generate(vector_spec(s, name, dot)); };
  f.read = [name, dot](const std::string& path) { return read_dataset(path, name, dot); };
  f.encode = [](const std::string& path, Dataset& d, const std::string& dtype,
                const std::function<void(const void*, size_t)>& sink) {
    if (dtype != "f8" && dtype != "f4") throw UsageError("--dtype must be f8 or f4");
    encode_dataset(path, d, dtype, sink);
    if (dtype == "f4") {
      for (double& v : d.x) v = static_cast<float>(v);
      for (double& v : d.y) v = static_cast<float>(v);
      d.id = next_dataset_id();
    }
  };
  f.generate_by_index = [name, dot](const GenSpec& s) { return generate_by_index(vector_spec(s, name, dot)); };
  f.oracle = [dot](const Dataset& d) { return exact_vectors(d, dot); };
  f.measure = [](const Result& r, const ExactValue& ref, double bound) { return measure(r.scalar(), ref, bound); };
  f.permute = permuted_copy;
  f.verify_cases = verify_cases;
  f.verify_sizes = verify_sizes;
  f.tables = {kfold_suite(name, dot), accuracy_suite(name)};
  f.ieee_reduction = true;
  f.info_probe = !dot;
  return f;
}

FamilyRegistrar reg_sum(vector_family("sum", /*dot=*/false));
FamilyRegistrar reg_dot(vector_family("dot", /*dot=*/true));

}  // namespace
}  // namespace accsum
