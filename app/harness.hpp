#pragma once
// Measuring, separated from reporting (as google/benchmark does): runs one registry entry on a
// dataset, times it, checks it against the family's exact reference and checks reproducibility.
// Nothing here depends on which family it is: the family descriptor (core/frame/family.hpp) says.
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "core/oracle/oracle.hpp"
#include "core/frame/registry.hpp"
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
  std::vector<double> samples;  // every timed repetition, seconds, in the order run (compare's rank test)
};

struct ResultRow {
  const AlgoEntry* entry = nullptr;
  Params params;
  Metrics metrics;
  TimeStats time;
  double transfer_s = 0;
  std::vector<std::string> placement;  // the device(s) it ran on (core/frame/placement.hpp)
  bool device_timed = false;
  bool reproducible = false;                // all checked variants gave identical bits
  std::vector<std::string> repro_checks;    // what was compared: "runs", "threads=3", "permutation", ...
  double units_per_s = 0, bytes_per_s = 0;  // in the family's unit (additions, elements, FLOP, ...)
  std::string baseline;                     // algo name of the baseline on this backend
  double ratio_to_baseline = 0;             // baseline time / this time (1 = as fast)
  // The baseline timed beside this row, repetition by repetition (ABBA order: row, baseline,
  // baseline, row, ...): its times and, per repetition, baseline time / row time. A machine's
  // drift (load, clocks) moves both alike, so the ratios keep what the row itself changes.
  std::string paired_baseline;
  Params paired_baseline_params;
  std::vector<double> paired_baseline_samples, ratio_samples;
  bool guarantee_met = true;
  std::string violation;  // why guarantee_met is false
  std::string error;      // the run failed (message), nothing else valid
};

// Everything about one dataset's run: what it is, its exact reference, the rows.
struct RunRecord {
  const Dataset* dataset = nullptr;
  const FamilyDescriptor* family = nullptr;
  ExactValue reference;
  double dynamic_range_log10 = 0;  // log10(max|v| / min nonzero |v|) over the first input
  std::vector<ResultRow> rows;
};

// The dataset's family, exact reference and dynamic range; rows empty.
RunRecord begin_run(const Dataset& d);
double dynamic_range_log10_of(const Dataset& d);

// The baseline to time beside a row (measure_entry's `pace`).
struct Pace {
  const AlgoEntry* entry = nullptr;
  Params params;
};

// Runs entry with resolved params on run's dataset; never throws for failures of the run
// itself (they land in ResultRow::error), only for usage errors. With a pace, its kernel is
// timed beside the row's, the repetitions interleaved (ResultRow::ratio_samples); a pace that
// cannot be made leaves the row unpaired.
ResultRow measure_entry(const AlgoEntry& e, const Params& params, const RunRecord& run, const MeasureOptions& opt,
                        const Pace* pace = nullptr);

// The baseline among `candidates` (entry, params) for a row: same family and backend, and among
// several (e.g. --threads=1,2) the one whose shared parameters agree most with the row's.
// Null for a baseline row and where none is given.
const Pace* pace_for(const AlgoEntry& e, const Params& params, const std::vector<Pace>& candidates);

// Decides whether the row keeps the entry's promise on this dataset. Outside the bound's
// domain (stated by the algorithm from the exact facts) only the IEEE special-value rules and
// the guarantee's own promise are required.
void judge(ResultRow& row, const ExactValue& ref);

// Fills ratio_to_baseline of every row from the baseline rows of the same backend and family.
void attach_baselines(std::vector<ResultRow>& rows);

// Rank of this process under mpirun (0 when not under MPI): only rank 0 prints and writes.
int process_rank();

}  // namespace accsum::cli
