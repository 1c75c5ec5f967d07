#pragma once
// The vocabulary below both core/ (algorithms, oracle, frame) and datasets/ (generators, files):
// a bad-input error, parameters, the data a dataset holds and the view of it an algorithm gets.
// Neither of the two folders includes the other; both include this.
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace accsum {

struct ElementRecipe;  // datasets/elements.hpp: how to make element i of a counter-based dataset

// Bad input from the user (unknown name, parameter out of range, malformed file, ...):
// the CLI prints what() as one line on stderr and exits with code 2.
struct UsageError : std::runtime_error {
  // what() is a C string: a NUL byte the message quotes from an input would cut it short, so
  // it is kept as the text \x00 (the CLI escapes every other control byte when it prints).
  explicit UsageError(const std::string& what) : std::runtime_error(visible_nul(what)) {}
  explicit UsageError(const char* what) : std::runtime_error(what) {}

 private:
  static std::string visible_nul(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '\0' ? std::string("\\x00") : std::string(1, c);
    return out;
  }
};

using Params = std::map<std::string, std::string>;
long long param_int(const Params& p, const std::string& name);
const std::string& param_str(const Params& p, const std::string& name);
// "k=v" for every parameter in name order, joined by sep (reports: " ", shape labels: ",").
std::string params_str(const Params& p, const char* sep);
// A data option given as a number (--range, --alpha, ...): `def` when absent; a usage error unless
// it is a finite number >= at_least.
double option_number(const Params& p, const std::string& name, double def, double at_least = -HUGE_VAL);
// A float (double) the dataset holds in Problem::data (gemm's and dgemm's "alpha" and "beta", written
// as exact hex floats), or `def` when absent.
float data_float(const Params& data, const std::string& name, float def);
double data_double(const Params& data, const std::string& name, double def);

// The data an algorithm works on, as host pointers into a Dataset. Which members a family uses
// is stated by its descriptor (core/frame/family.hpp): vectors of doubles x (and y), and/or
// column-major float matrices a (rows x inner), b (inner x cols), c (rows x cols), or double
// ones a64, b64, c64 (the dgemm family); `data`
// holds the dataset's own parameters (a modulus, an expansion length, alpha, beta, ...).
struct Problem {
  const double* x = nullptr;
  const double* y = nullptr;
  int64_t n = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  const float* c = nullptr;
  const double* a64 = nullptr;
  const double* b64 = nullptr;
  const double* c64 = nullptr;
  int64_t rows = 0, cols = 0, inner = 0;
  Params data;
  uint64_t id = 0;  // changes whenever the data change: keys device-side caches
  // Vectors described rather than held (x and y null): element i of this problem is element
  // first + i of the recipe, made where the algorithm runs (AlgoEntry::makes_own_data).
  const ElementRecipe* generated = nullptr;
  int64_t first = 0;
  // x and y are already device pointers of the backend (the library's device API,
  // include/accsum/accsum.h): nothing is uploaded, and the host never reads them. The cuda Ozaki
  // GEMMs take their device matrices at each call instead (backends/cuda/stream_enqueue.hpp).
  bool on_device = false;

  // A vector problem: x (and y) of n doubles.
  static Problem vectors(const double* x, const double* y, int64_t n, uint64_t id) {
    Problem p;
    p.x = x;
    p.y = y;
    p.n = n;
    p.id = id;
    return p;
  }
  // Elements [begin, end) of the vectors x (and y), under a new cache id.
  Problem vector_slice(int64_t begin, int64_t end, uint64_t slice_id) const {
    Problem s = *this;
    s.x = x ? x + begin : nullptr;
    s.y = y ? y + begin : nullptr;
    s.n = end - begin;
    s.first = first + begin;
    s.id = slice_id;
    return s;
  }
};

struct GenSpec {
  std::string dist = "uniform";  // see dist_names()
  std::string family = "sum";    // the family the data are for (a label: Dataset::family)
  int64_t n = 1 << 24;
  uint64_t seed = 1;
  double range = 1e16;  // loguniform: max|x| / min|x| (>= 1)
  double cond = 1e16;   // illcond: target condition number (>= 1)
  Params options;       // a family's other data options (--p, --shape, ...), as given
  bool with_y = false;  // vectors: a second vector y beside x (FamilyDescriptor::has_y)
};

struct Dataset {
  std::string family;     // "sum" or "dot"
  std::string generator;  // dist name, or "file"
  std::string source;     // file path for "file", else ""
  uint64_t seed = 0;
  int64_t n = 0;
  double range = 0;          // requested dynamic range (0 when not applicable)
  double target_cond = 0;    // requested condition number (0 when not applicable)
  std::vector<double> x, y;  // vectors of doubles (y empty for sums)
  // Column-major float matrices a (rows x inner), b (inner x cols), c (rows x cols), for
  // families whose inputs are matrices; empty otherwise.
  std::vector<float> a, b, c;
  std::vector<double> a64, b64, c64;  // the same for double matrices (the dgemm family)
  int64_t rows = 0, cols = 0, inner = 0;
  Params data;  // the dataset's own parameters (a modulus, alpha, ...), reported
  // Set instead of x and y for a dataset made by index where it is used (generate_by_index).
  std::shared_ptr<const ElementRecipe> generated_by;
  uint64_t id = 0;  // unique per dataset object in this process (device caches key on it)
  Problem problem() const {
    Problem p;
    p.x = x.empty() ? nullptr : x.data();
    p.y = y.empty() ? nullptr : y.data();
    p.n = n;
    p.a = a.empty() ? nullptr : a.data();
    p.b = b.empty() ? nullptr : b.data();
    p.c = c.empty() ? nullptr : c.data();
    p.a64 = a64.empty() ? nullptr : a64.data();
    p.b64 = b64.empty() ? nullptr : b64.data();
    p.c64 = c64.empty() ? nullptr : c64.data();
    p.rows = rows;
    p.cols = cols;
    p.inner = inner;
    p.data = data;
    p.id = id;
    p.generated = generated_by.get();
    return p;
  }
};

// The matrices of element type F of a dataset or problem: float a, b, c; double a64, b64, c64.
template <class F>
struct MatricesOf;
template <>
struct MatricesOf<float> {
  static constexpr std::vector<float> Dataset::*a = &Dataset::a;
  static constexpr std::vector<float> Dataset::*b = &Dataset::b;
  static constexpr std::vector<float> Dataset::*c = &Dataset::c;
  static constexpr const float* Problem::*pa = &Problem::a;
  static constexpr const float* Problem::*pb = &Problem::b;
  static constexpr const float* Problem::*pc = &Problem::c;
};
template <>
struct MatricesOf<double> {
  static constexpr std::vector<double> Dataset::*a = &Dataset::a64;
  static constexpr std::vector<double> Dataset::*b = &Dataset::b64;
  static constexpr std::vector<double> Dataset::*c = &Dataset::c64;
  static constexpr const double* Problem::*pa = &Problem::a64;
  static constexpr const double* Problem::*pb = &Problem::b64;
  static constexpr const double* Problem::*pc = &Problem::c64;
};
// data_float / data_double by type.
template <class F>
F data_scalar(const Params& data, const std::string& name, F def);
template <>
inline float data_scalar<float>(const Params& data, const std::string& name, float def) {
  return data_float(data, name, def);
}
template <>
inline double data_scalar<double>(const Params& data, const std::string& name, double def) {
  return data_double(data, name, def);
}

// A fresh id for a dataset whose data were built or changed by hand.
uint64_t next_dataset_id();

}  // namespace accsum
