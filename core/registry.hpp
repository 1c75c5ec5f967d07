#pragma once
// The one registry of algorithms: (family, algo, backend) -> implementation, parameters,
// guarantee and proven bound. The CLI, `list`, `bench`, `verify`, `table` and the tests read it.
// Implementations register themselves with a file-scope `static accsum::Registrar`.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace accsum {

// Bad input from the user (unknown name, parameter out of range, malformed file, ...):
// the CLI prints what() as one line on stderr and exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The data an algorithm reduces. For family "sum" y is null; for "dot" the result is x.y.
struct Problem {
  const double* x = nullptr;
  const double* y = nullptr;
  int64_t n = 0;
  uint64_t id = 0;  // changes whenever the data change: keys device-side caches
};

// What an algorithm promises, checked by `verify`.
enum class Guarantee { none, kfold, faithful, correctly_rounded };
const char* to_string(Guarantee g);

// One parameter of an algorithm. Integer parameters use [min, max] and, when `choices` is
// non-empty, must be one of them; string parameters (is_int == false) must be in `choices`.
struct ParamSpec {
  std::string name;
  std::string help;
  bool is_int = true;
  long long min = 0, max = 0;
  std::vector<std::string> choices;
  std::string def;
};

using Params = std::map<std::string, std::string>;
long long param_int(const Params& p, const std::string& name);
const std::string& param_str(const Params& p, const std::string& name);

// A prepared computation: data already on the backend (upload time reported separately).
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Computes the whole reduction once and returns the result on the host.
  virtual double run() = 0;
  // Seconds of the last run() measured on the device (CUDA/OpenCL events), or < 0 when the
  // host's steady clock around run() is the right measure.
  virtual double last_device_seconds() const { return -1.0; }
  // Seconds spent moving the input to the backend when the kernel was made (0 on the host).
  virtual double transfer_seconds() const { return 0.0; }
};

// Exact facts about the data that bounds are expressed in.
struct ExactFacts {
  int64_t n = 0;
  double abs_sum = 0;   // |s| (s = exact sum or dot), rounded to nearest
  double sum_abs = 0;   // S = sum |x_i| (sum) or sum |x_i*y_i| (dot), rounded up
};

struct AlgoEntry {
  std::string family;   // "sum", "dot"
  std::string algo;     // canonical --algo name
  std::string backend;  // "cpu", "cpu-mt", "cuda", "opencl", "mpi"
  std::string summary;  // one line for `list`
  Guarantee guarantee = Guarantee::none;
  bool reproducible = false;  // promises bitwise identical results across runs/shapes/backends
  bool baseline = false;      // the vendor/plain baseline of this family on this backend
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Kernel>(const Problem&, const Params&)> make;
  // Absolute error bound proven for these parameters and data, or null when none is proven.
  std::function<double(const Params&, const ExactFacts&)> bound;
  std::string bound_cite;
  // Launch shapes / thread counts to try when checking reproducibility (parameter sets that
  // must give bitwise identical results); empty when the algorithm has no shape parameter.
  std::function<std::vector<Params>(const Params&)> shape_variants;
  // Peak host memory of one measured run as a multiple of the dataset's bytes, the harness's
  // copies included; 0 = derived by the memory pre-check (app/memcheck.hpp).
  double peak_data_multiple = 0;
};

struct BackendInfo {
  std::string name;
  std::string summary;
  std::function<bool()> available;         // present on this machine (a device, a platform)
  std::function<bool()> self_test;         // EFTs exact on this backend (DESIGN §3)
  std::function<std::string()> describe;   // devices, for `info` and the report's machine
};

class Registry {
 public:
  void add(AlgoEntry e);
  void add_backend(BackendInfo b);
  const std::vector<AlgoEntry>& entries() const { return entries_; }
  const std::vector<BackendInfo>& backends() const { return backends_; }
  const AlgoEntry* find(const std::string& algo, const std::string& backend) const;
  const BackendInfo* backend(const std::string& name) const;
  const AlgoEntry* baseline(const std::string& family, const std::string& backend) const;
  std::vector<std::string> algo_names() const;     // registration order, unique
  std::vector<std::string> backend_names() const;  // compiled-in backends
  bool has_algo(const std::string& algo) const;
  // Fills defaults and validates user parameters against the entry (throws UsageError).
  Params resolve_params(const AlgoEntry& e, const Params& user) const;

 private:
  std::vector<AlgoEntry> entries_;
  std::vector<BackendInfo> backends_;
};

Registry& registry();

struct Registrar {
  explicit Registrar(AlgoEntry e) { registry().add(std::move(e)); }
  explicit Registrar(BackendInfo b) { registry().add_backend(std::move(b)); }
};

// Checks (once per process) that `backend` is available and passes its EFT self-test;
// throws UsageError with a clear message otherwise.
void require_backend(const std::string& backend);

}  // namespace accsum
