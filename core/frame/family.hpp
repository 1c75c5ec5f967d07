#pragma once
// Family descriptors: what a family of algorithms computes and how it is judged. A family is
// one descriptor plus its algorithms (core/frame/registry.hpp); the CLI, `list`, `verify`, `table` and
// the reports read everything family-specific from here and never test a family's name.
//
//   registry: (family, algo, backend) -> kernel, parameters, guarantee, bound, bound's domain
//   family:   inputs (generators, data options, files) -> oracle -> metrics -> verify / tables
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
#include "base/vocabulary.hpp"

namespace accsum {

// A dataset parameter the CLI offers as --<name> (a comma list sweeps it), e.g. --range, --cond,
// --p, --shape. The value reaches the generator in GenSpec::options.
struct DataOption {
  std::string name;
  std::string help;
  std::vector<std::string> dists;  // the generators it applies to (empty: all)
  std::string implies_dist;        // generator chosen when this option is given without --dist
  bool sweeps = true;              // false: the value is passed whole, commas included (--shape=M,N,K)
  bool for_files = false;          // also given with --input: the family's read_with takes it (e.g. --p)
};

// One column of a paper-style table: an algorithm with parameters, found on the table's backend
// (or on `backend`, e.g. a serial reference timed beside a GPU).
struct TableColumn {
  std::string algo;
  Params params;
  std::string label;
  std::string backend;  // "" = the table's
  int reps = 0;         // timed suites: runs of a costly column (0 = the suite's reps); when one
                        // run is short (under kShortRunSeconds) it gets the suite's reps anyway
};

// A timed cell whose one run is shorter than this is repeated as often as the suite says.
constexpr double kShortRunSeconds = 0.05;

// What a timed table shows of one cell: median time of the runs, the data's transfer to the
// device (0 on the host), and the median of the row's first column (the suite's reference).
struct CellTime {
  double seconds = 0, transfer_s = 0, reference_seconds = 0;
  double units_per_s = 0;  // in the family's unit
};

// A paper-style table: one row per generated dataset, one column per algorithm; each cell is
// the family's `cell` of the result (e.g. correct digits).
struct TableSuite {
  std::string name;
  std::string summary;
  std::string intro;                  // Markdown paragraph under the title
  std::vector<std::string> row_head;  // headers of the row-describing cells
  // The columns on `backend`; `algos`: the family's algorithms there (Registry::entries_of).
  std::function<std::vector<TableColumn>(const std::string& backend, const std::vector<const AlgoEntry*>& algos)>
      columns;
  std::function<std::vector<GenSpec>(int64_t n, uint64_t seed)> rows;
  std::function<std::vector<std::string>(const GenSpec&, const ExactValue&)> row_cells;
  std::function<std::string(const Metrics&)> cell;
  std::string title;  // a heading of its own when a family has several tables of the suite
  // Whether a column applies to a row (null: always); "*" where it does not.
  std::function<bool(const TableColumn&, const GenSpec&)> applies;
  // Timed suites (time against n, Mop/s against R): set timed_cell, which replaces `cell`; each
  // cell is the median of `reps` runs after one warm-up (on devices the kernel's device time).
  int reps = 1;
  std::function<std::string(const Metrics&, const CellTime&)> timed_cell;
};

// One verify case: a generator with options; every size and seed of the sweep runs it.
struct VerifyCase {
  std::string dist;
  Params options;
  int min_seeds = 1;  // e.g. a generator that picks its special values by seed % 6 needs 6
};

struct FamilyDescriptor {
  std::string name;
  // Where `list` shows the family: the ones a new user looks for first have low ranks; equal
  // ranks keep registration order.
  int listing_rank = std::numeric_limits<int>::max();
  std::string summary;
  std::string inputs;                                 // e.g. "x: f64[n]", "A: f32[m,k], B: f32[k,n]"
  bool has_y = false;                                 // vectors: a second vector y beside x (GenSpec::with_y)
  std::string result;                                 // e.g. "one binary64 value, correctly rounded reference"
  std::string unit;                                   // throughput unit: "additions", "elements", "FLOP", "operations"
  std::string default_n;                              // --n when none is given ("" = the CLI's 2^24), e.g. "2^16"
  std::function<double(const Dataset&)> units;        // units of work in one run
  std::function<double(const Dataset&)> bytes;        // bytes one run must at least move
  std::function<double(const GenSpec&)> input_bytes;  // bytes a generated dataset holds (memory pre-check)
  std::vector<std::string> dists;                     // generators (--dist), the default first
  std::vector<DataOption> options;
  std::string file_formats;  // what --input accepts, for help and errors
  std::function<Dataset(const GenSpec&)> generate;
  // The same dataset described by index, holding no array (Dataset::generated_by); null when
  // the family's data cannot be made element by element where they are used.
  std::function<Dataset(const GenSpec&)> generate_by_index;
  std::function<Dataset(const std::string& path)> read;
  // Reads a file with the data options marked for_files that were given (null: read).
  std::function<Dataset(const std::string& path, const Params& options)> read_with;
  // Writes d in the format of path's extension through `sink`; d becomes what was written
  // (e.g. rounded to float for dtype f4), so its report describes the file.
  std::function<void(const std::string& path, Dataset& d, const std::string& dtype,
                     const std::function<void(const void*, size_t)>& sink)>
      encode;
  // The exact oracle: exact result, rounded facts, the facts bounds need (ExactValue::facts).
  std::function<ExactValue(const Dataset&)> oracle;
  // Metrics of a result against the exact reference; bound < 0 means none proven.
  std::function<Metrics(const Result&, const ExactValue&, double bound)> measure;
  // The same data in another order (a fresh id), for the reproducibility check of algorithms
  // that promise order independence; null when the family has no such reordering.
  std::function<Dataset(const Dataset&)> permute;
  std::function<std::vector<VerifyCase>(bool full)> verify_cases;
  std::function<std::vector<int64_t>(bool full)> verify_sizes;
  std::vector<TableSuite> tables;
  // The result is the sum of x (with y: the dot product x.y): a non-finite result is decided by
  // IEEE 754 from the special values of the input (core/frame/ieee_special.hpp), on every backend.
  bool ieee_reduction = false;
  bool info_probe = false;  // `accsum info` times this family's baselines as the machine's yardstick
};

// The data option `name` of f, or null.
const DataOption* find_option(const FamilyDescriptor& f, const std::string& name);

void register_family(FamilyDescriptor f);
// Registration order; the CLI lists and sweeps families in this order.
const std::vector<FamilyDescriptor>& families();
// Throws UsageError naming the known families.
const FamilyDescriptor& family(const std::string& name);
const FamilyDescriptor* find_family(const std::string& name);

struct FamilyRegistrar {
  explicit FamilyRegistrar(FamilyDescriptor f) { register_family(std::move(f)); }
};

}  // namespace accsum
