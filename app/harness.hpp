#pragma once
// Measuring, separated from reporting (as google/benchmark does): runs one registry entry on a
// dataset, times it, checks it against the exact reference and checks reproducibility.
#include <string>
#include <vector>

#include "core/oracle.hpp"
#include "core/registry.hpp"
#include "datasets/dataset.hpp"

namespace accsum::cli {

struct MeasureOptions {
  int reps = 10;
  int warmup = 2;
  bool repro_check = true;  // shape variants and a permutation of the input, when promised
};

struct TimeStats {
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

struct ResultRow {
  const AlgoEntry* entry = nullptr;
  Params params;
  Metrics metrics;
  TimeStats time;
  double transfer_s = 0;
  bool device_timed = false;
  bool reproducible = false;                // all checked variants gave identical bits
  std::vector<std::string> repro_checks;    // what was compared: "runs", "threads=3", "permutation", ...
  double elements_per_s = 0, bytes_per_s = 0;
  std::string baseline;                     // algo name of the baseline on this backend
  double ratio_to_baseline = 0;             // baseline time / this time (1 = as fast)
  bool guarantee_met = true;
  std::string violation;                    // why guarantee_met is false
  std::string error;                        // the run failed (message), nothing else valid
};

// Everything about one dataset's run: what it is, its exact reference, the rows.
struct RunRecord {
  const Dataset* dataset = nullptr;
  ExactValue reference;
  double dynamic_range_log10 = 0;  // log10(max|x| / min nonzero |x|) over x
  std::vector<ResultRow> rows;
};

ExactValue reference_of(const Dataset& d);
double dynamic_range_log10_of(const Dataset& d);  // log10(max|x| / min nonzero |x|)

// Runs entry with resolved params on d; never throws for failures of the run itself (they land
// in ResultRow::error), only for usage errors.
ResultRow measure_entry(const AlgoEntry& e, const Params& params, const Dataset& d, const ExactValue& ref,
                        const MeasureOptions& opt);

// Decides whether the row keeps the entry's promise (DESIGN §3) on this dataset; `domain_ok`
// is false for data outside the algorithm's proven domain (e.g. intermediate overflow for
// k-fold algorithms), where only IEEE special-value behaviour is required.
void judge(ResultRow& row, const Dataset& d, const ExactValue& ref);

// Fills ratio_to_baseline of every row from the baseline rows of the same backend and family.
void attach_baselines(std::vector<ResultRow>& rows);

// Rank of this process under mpirun (0 when not under MPI): only rank 0 prints and writes.
int process_rank();

}  // namespace accsum::cli
