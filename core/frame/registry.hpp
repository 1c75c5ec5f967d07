#pragma once
// The one registry of algorithms: (family, algo, backend) -> implementation, parameters,
// guarantee, proven bound and its domain. The CLI, `list`, `bench`, `verify`, `table` and the
// tests read it. Implementations register themselves with a file-scope `static Registrar`:
//
//   Registrar reg(AlgoEntry("sum", "naive", "cpu", "recursive summation")
//                     .baseline()
//                     .maker(make_naive)
//                     .bounded_by(naive_bound, "gamma_{n-1} S: Higham 2002, eq. (4.4)"));
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/vocabulary.hpp"
#include "core/oracle/result.hpp"

namespace accsum {

// What an algorithm promises, checked by `verify`.
// bound: within an absolute error bound the algorithm states itself (a plugin's claim).
enum class Guarantee { none, kfold, faithful, correctly_rounded, exact, bound };
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
  bool verify_every_choice = false;  // `verify` sweeps every choice (it changes the numerics)
};

// The values of a parameter that `verify` sweeps: its choices; else an integer range whole when
// it is short, or its ends, its default, 0 where inside, and log-spaced points between.
std::vector<std::string> swept_values(const ParamSpec& spec);

// A prepared computation: data already on the backend (upload time reported separately).
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Computes the whole problem once (this is what is timed).
  virtual void execute() = 0;
  // The last execute()'s result, fetched to the host (not timed).
  virtual Result result() = 0;
  // Seconds of the last execute() measured on the device (CUDA/OpenCL events), or < 0 when the
  // host's steady clock around execute() is the right measure.
  virtual double last_device_seconds() const { return -1.0; }
  // Seconds spent moving the input to the backend when the kernel was made (0 on the host).
  virtual double transfer_seconds() const { return 0.0; }
  // Where it ran when that is more than one device (MPI ranks: one line per rank, e.g. "rank 1
  // on node7: cuda device 1 of 8: NVIDIA H200, PCI ..."); empty: the backend's bound device.
  virtual std::vector<std::string> placement() const { return {}; }
  // execute() then the one-value result: for families whose result is a scalar.
  double run_scalar() {
    execute();
    return result().scalar();
  }
};

// A kernel whose result is one double, returned by run() on the host.
class ScalarKernel : public Kernel {
 public:
  virtual double run() = 0;
  // Figures of the last run beyond its value (Result::figures).
  virtual std::vector<std::pair<std::string, double>> figures() const { return {}; }
  void execute() final { value_ = run(); }
  Result result() final { return Result{{value_}, {}, figures()}; }

 private:
  double value_ = 0;
};

// A scalar kernel running a host computation (a serial definition), timed by the caller's clock.
class SerialKernel : public ScalarKernel {
 public:
  explicit SerialKernel(std::function<double()> fn) : fn_(std::move(fn)) {}
  double run() override { return fn_(); }

 private:
  std::function<double()> fn_;
};

// The domain of a proven bound: "" inside, else why the bound claims nothing on these data.
using DomainFn = std::function<std::string(const Params&, const ExactFacts&)>;
// An absolute error bound proven for these parameters and data (+inf: none at this n).
using BoundFn = std::function<double(const Params&, const ExactFacts&)>;
using MakeFn = std::function<std::unique_ptr<Kernel>(const Problem&, const Params&)>;
using ShapesFn = std::function<std::vector<Params>(const Params&)>;
class MergeableState;  // core/frame/mergeable.hpp
using MergeableFactory = std::function<std::unique_ptr<MergeableState>(const Params&)>;

struct AlgoEntry {
  AlgoEntry() = default;
  AlgoEntry(std::string family, std::string algo, std::string backend, std::string summary)
      : family(std::move(family)), algo(std::move(algo)), backend(std::move(backend)), summary(std::move(summary)) {}

  std::string family;   // a registered family descriptor's name
  std::string algo;     // canonical --algo name
  std::string backend;  // one of compiled_backends()
  std::string summary;  // one line for `list`
  Guarantee guarantee = Guarantee::none;
  // The guarantee of one parameter set where a parameter changes it (null: `guarantee` for every set).
  std::function<Guarantee(const Params&)> guarantee_by_params;
  bool reproducible = false;  // promises bitwise identical results across runs/shapes/backends
  // With `reproducible`: whether the promise covers any order of the input (a permutation gives the
  // same bits) or only the same order (a library that promises the same bits for the same input
  // sequence on every run and GPU, as CUB's gpu_to_gpu determinism does).
  bool reproducible_any_order = true;
  bool is_baseline = false;  // the vendor/plain baseline of this family on this backend
  std::vector<ParamSpec> params;
  MakeFn make;
  BoundFn bound;    // null when no bound is proven
  DomainFn domain;  // null: the bound holds wherever it is finite
  std::string bound_cite;
  // Launch shapes / thread counts to try when checking reproducibility (parameter sets that
  // must give bitwise identical results); null when the algorithm has no shape parameter.
  ShapesFn shape_variants;
  // Init of a mergeable partial state (core/frame/mergeable.hpp), when the work splits into slices:
  // composers then derive the cpu-mt and mpi versions of the algorithm from it.
  MergeableFactory state;
  bool composed = false;  // made by a composer; an explicit registration replaces it
  // Peak host memory of one measured run as a multiple of the dataset's bytes, the harness's
  // copies included; 0 = derived by the memory pre-check (app/memcheck.hpp).
  double peak_data_multiple = 0;
  // Runs on a Problem whose vectors are a recipe (Problem::generated): it makes the elements
  // where it computes (on its GPU, or its rank's slice), so no process holds the whole array.
  bool makes_own_data = false;

  // Builders, so registrations read as named fields.
  AlgoEntry& promises(Guarantee g) {
    guarantee = g;
    return *this;
  }
  AlgoEntry& promises_by_params(std::function<Guarantee(const Params&)> f) {
    guarantee_by_params = std::move(f);
    return *this;
  }
  Guarantee guarantee_for(const Params& p) const { return guarantee_by_params ? guarantee_by_params(p) : guarantee; }
  // What these parameter sets promise, each guarantee once, in their order ("none", "faithful").
  std::vector<std::string> guarantees_for(const std::vector<Params>& sets) const {
    std::vector<std::string> out;
    for (const Params& p : sets) {
      const std::string g = to_string(guarantee_for(p));
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    }
    return out;
  }
  AlgoEntry& promises_reproducible() {
    reproducible = true;
    return *this;
  }
  AlgoEntry& promises_reproducible_for_the_same_order() {
    reproducible = true;
    reproducible_any_order = false;
    return *this;
  }
  // `list`'s word for the promise: "yes", "same order" or "no".
  std::string reproducible_word() const { return !reproducible ? "no" : reproducible_any_order ? "yes" : "same order"; }
  AlgoEntry& baseline() {
    is_baseline = true;
    return *this;
  }
  AlgoEntry& with_params(std::vector<ParamSpec> p) {
    params = std::move(p);
    return *this;
  }
  AlgoEntry& maker(MakeFn f) {
    make = std::move(f);
    return *this;
  }
  AlgoEntry& bounded_by(BoundFn f, std::string cite) {
    bound = std::move(f);
    bound_cite = std::move(cite);
    return *this;
  }
  AlgoEntry& within_domain(DomainFn f) {
    domain = std::move(f);
    return *this;
  }
  AlgoEntry& shapes(ShapesFn f) {
    shape_variants = std::move(f);
    return *this;
  }
  AlgoEntry& mergeable(MergeableFactory f) {
    state = std::move(f);
    return *this;
  }
  AlgoEntry& generates_by_index() {
    makes_own_data = true;
    return *this;
  }
};

// A MakeFn for kernels constructed as K(problem, parameters).
template <class K>
std::unique_ptr<Kernel> make_kernel_of(const Problem& p, const Params& q) {
  return std::make_unique<K>(p, q);
}

// The entry's proven absolute bound on data with these facts, or -1 when it proves none: no
// bound at all, or the data lie outside its domain (then *outside, when given, says why).
double proven_bound(const AlgoEntry& e, const Params& p, const ExactFacts& f, std::string* outside = nullptr);

// A backend, registered from its folder (backends/<name>/) under a name of compiled_backends().
struct BackendInfo {
  std::string name;
  std::string summary;
  std::function<bool()> available;        // present on this machine (a device, a platform)
  std::function<bool()> self_test;        // EFTs exact on this backend
  std::function<std::string()> describe;  // devices, for `info` and the report's machine
  // --backend=best runs each algorithm on the present backend of lowest best_rank that has it.
  int best_rank = 0;
  // Runs across processes (mpirun): --algo=all never picks it as an algorithm's best backend.
  bool across_processes = false;
  // Copies of the data a run holds in host memory beyond the harness's (e.g. PoCL's buffers),
  // for the memory pre-check (app/memcheck.hpp).
  double host_copies = 0;

  BackendInfo& ranked_for_best(int rank) {
    best_rank = rank;
    return *this;
  }
  BackendInfo& spans_processes() {
    across_processes = true;
    return *this;
  }
  BackendInfo& copies_in_host_memory(double copies) {
    host_copies = copies;
    return *this;
  }
};

// The one list of backends: every backend compiled in, in the order `list`, `info`, --help and
// --backend=all show them (CMake's ACCSUM_BACKENDS, one name per backend option that is on).
// Readable during static initialisation, before the backends have registered.
const std::vector<std::string>& compiled_backends();

// Derives an entry on another backend from an entry (e.g. threads or MPI ranks composing a
// mergeable state), or returns false.
using Composer = std::function<bool(const AlgoEntry& from, AlgoEntry& twin)>;
// Wraps an entry's maker from outside the registry (e.g. the IEEE rule for special values,
// core/frame/ieee_special.hpp): the wrapper's kernels stand in for the entry's.
using MakeWrapper = std::function<MakeFn(MakeFn make, const AlgoEntry& e)>;

class Registry {
 public:
  void add(AlgoEntry e);
  // Applied to every entry, registered before or after: static registration order across
  // translation units does not matter. An explicit registration replaces a composed one.
  void add_composer(Composer c);
  // Applied to every entry's maker, registered before or after (as composers are).
  void add_wrapper(MakeWrapper w);
  void add_backend(BackendInfo b);
  const std::vector<AlgoEntry>& entries() const { return entries_; }
  const std::vector<BackendInfo>& backends() const { return backends_; }
  const AlgoEntry* find(const std::string& algo, const std::string& backend) const;
  const BackendInfo* backend(const std::string& name) const;
  const AlgoEntry* baseline(const std::string& family, const std::string& backend) const;
  // The family's entries on the backend, in registration order.
  std::vector<const AlgoEntry*> entries_of(const std::string& family, const std::string& backend) const;
  std::vector<std::string> algo_names() const;  // registration order, unique
  // compiled_backends(), each checked to have registered its BackendInfo; throws
  // std::logic_error for one that did not, or for a registered backend missing from the list.
  std::vector<std::string> backend_names() const;
  // backend_names() in --backend=best's order of preference (BackendInfo::best_rank).
  std::vector<std::string> backends_by_preference() const;
  bool has_algo(const std::string& algo) const;
  // Fills defaults and validates user parameters against the entry (throws UsageError).
  Params resolve_params(const AlgoEntry& e, const Params& user) const;

 private:
  void add_one(AlgoEntry e);
  std::vector<AlgoEntry> entries_;
  std::vector<BackendInfo> backends_;
  std::vector<Composer> composers_;
  std::vector<MakeWrapper> wrappers_;
};

Registry& registry();

struct Registrar {
  explicit Registrar(AlgoEntry e) { registry().add(std::move(e)); }
  explicit Registrar(BackendInfo b) { registry().add_backend(std::move(b)); }
  explicit Registrar(Composer c) { registry().add_composer(std::move(c)); }
  explicit Registrar(MakeWrapper w) { registry().add_wrapper(std::move(w)); }
};

// p with parameter `name` set to `value`.
Params with_param(Params p, const std::string& name, const std::string& value);
// p with parameter `name` set to each of `values` in turn (launch-shape variants for a ShapesFn).
std::vector<Params> variants_of(const Params& p, const std::string& name, const std::vector<std::string>& values);

// Checks (once per process) that `backend` is available and passes its EFT self-test;
// throws UsageError with a clear message otherwise.
void require_backend(const std::string& backend);

}  // namespace accsum
