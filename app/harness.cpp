#include "app/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/frame/placement.hpp"
#include "core/frame/plugins.hpp"

namespace accsum::cli {

namespace {

bool same_bits(const Result& a, const Result& b) {
  if (a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    double u = a.values[i], v = b.values[i];
    if (std::isnan(u) && std::isnan(v)) continue;
    if (std::memcmp(&u, &v, sizeof u) != 0) return false;
  }
  return true;
}

// One timed execution: device time when the backend measured it, else the host's steady clock.
double timed_execute(Kernel& k) {
  auto t0 = std::chrono::steady_clock::now();
  k.execute();
  auto t1 = std::chrono::steady_clock::now();
  double dev = k.last_device_seconds();
  return dev >= 0 ? dev : std::chrono::duration<double>(t1 - t0).count();
}

Result run_once(const AlgoEntry& e, const Dataset& d, const Params& p) {
  auto k = e.make(d.problem(), p);
  k->execute();
  return k->result();
}

// The family's reordering of d, cached: every reproducible row of a dataset compares against
// one permutation.
const Dataset& permuted(const FamilyDescriptor& f, const Dataset& d) {
  static std::unique_ptr<Dataset> cached;
  static uint64_t cached_for = ~0ull;
  if (cached && cached_for == d.id) return *cached;
  cached.reset();
  cached = std::make_unique<Dataset>(f.permute(d));
  cached_for = d.id;
  return *cached;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

TimeStats stats_of(const std::vector<double>& times) {
  TimeStats t;
  t.samples = times;
  t.median = median_of(times);
  t.min = *std::min_element(times.begin(), times.end());
  t.max = *std::max_element(times.begin(), times.end());
  t.reps = static_cast<int>(times.size());
  return t;
}

// Runs, shape variants and a permutation: the checks behind `reproducible`.
void check_reproducible(ResultRow& row, const AlgoEntry& e, const RunRecord& run, const Result& value,
                        bool runs_identical, const MeasureOptions& opt) {
  const Dataset& d = *run.dataset;
  row.reproducible = runs_identical;
  row.repro_checks.push_back("runs");
  if (!e.reproducible || !opt.repro_check || !runs_identical) return;
  if (e.shape_variants)
    for (auto& variant : e.shape_variants(row.params)) {
      if (variant == row.params) continue;
      row.repro_checks.push_back(params_str(variant, ","));
      if (!same_bits(run_once(e, d, variant), value)) row.reproducible = false;
    }
  // Data made by index are not permuted; an entry that promises the same bits for the same order only
  // is not held to a permutation.
  if (d.n > 1 && run.family->permute && !d.generated_by && e.reproducible_any_order) {
    row.repro_checks.push_back("permutation");
    if (!same_bits(run_once(e, permuted(*run.family, d), row.params), value)) row.reproducible = false;
  }
}

}  // namespace

int process_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

double dynamic_range_log10_of(const Dataset& d) {
  double lo = INFINITY, hi = 0;
  auto see = [&](double v) {
    double a = std::fabs(v);
    if (a > 0 && std::isfinite(a)) {
      lo = std::min(lo, a);
      hi = std::max(hi, a);
    }
  };
  for (double v : d.x) see(v);
  if (d.x.empty()) {
    for (float v : d.a) see(v);
    for (double v : d.a64) see(v);
  }
  return hi > 0 ? std::log10(hi) - std::log10(lo) : 0.0;  // the ratio itself can overflow
}

RunRecord begin_run(const Dataset& d) {
  RunRecord run;
  run.dataset = &d;
  plugins::note_dataset(d.source.empty() ? d.family + " " + d.generator + " n=" + std::to_string(d.n) +
                                               " seed=" + std::to_string(d.seed)
                                         : "'" + d.source + "'");
  run.family = &family(d.family);
  run.reference = run.family->oracle(d);
  // The vector oracles report max and min |x_i| (finite, nonzero): no second pass over the data,
  // and data made by index have no array to pass over. Other families: from the held arrays.
  const ExactFacts& f = run.reference.facts;
  run.dynamic_range_log10 = f.min_abs_x > 0  ? std::log10(f.max_abs_x) - std::log10(f.min_abs_x)
                            : d.generated_by ? 0.0
                                             : dynamic_range_log10_of(d);
  return run;
}

namespace {

// Shared parameters that agree, minus those that differ.
int agreement(const Params& a, const Params& b) {
  int n = 0;
  for (auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end()) n += it->second == v ? 1 : -1;
  }
  return n;
}

// The pace's kernel, or null when it cannot be made here (the row is then timed alone).
std::unique_ptr<Kernel> make_pace(const Pace* pace, const Dataset& d) {
  if (!pace || !pace->entry) return nullptr;
  try {
    return pace->entry->make(d.problem(), pace->params);
  } catch (const std::bad_alloc&) {
    return nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

const Pace* pace_for(const AlgoEntry& e, const Params& params, const std::vector<Pace>& candidates) {
  if (e.is_baseline) return nullptr;
  const Pace* best = nullptr;
  for (auto& c : candidates)
    if (c.entry->is_baseline && c.entry->backend == e.backend && c.entry->family == e.family &&
        (!best || agreement(c.params, params) > agreement(best->params, params)))
      best = &c;
  return best;
}

ResultRow measure_entry(const AlgoEntry& e, const Params& params, const RunRecord& run, const MeasureOptions& opt,
                        const Pace* pace) {
  const Dataset& d = *run.dataset;
  ResultRow row;
  row.entry = &e;
  row.params = params;
  try {
    require_backend(e.backend);
    if (d.generated_by && !e.makes_own_data)
      throw UsageError(e.algo + " on " + e.backend + " needs its data in host memory (drop --generate=by-index)");
    auto kernel = e.make(d.problem(), params);
    row.transfer_s = kernel->transfer_seconds();
    row.placement = kernel->placement();
    if (row.placement.empty()) {
      std::string bound = placement::recorded(e.backend);
      if (!bound.empty()) row.placement = {bound};
    }
    std::unique_ptr<Kernel> pace_kernel = make_pace(pace, d);
    for (int i = 0; i < opt.warmup; ++i) {
      timed_execute(*kernel);
      if (pace_kernel) timed_execute(*pace_kernel);
    }
    std::vector<double> times;
    bool runs_identical = true;
    Result first, value;
    for (int i = 0; i < std::max(1, opt.reps); ++i) {
      if (pace_kernel) {  // ABBA: each side runs first as often as second
        double row_t = 0, base_t = 0;
        if (i % 2 == 0) {
          row_t = timed_execute(*kernel);
          base_t = timed_execute(*pace_kernel);
        } else {
          base_t = timed_execute(*pace_kernel);
          row_t = timed_execute(*kernel);
        }
        times.push_back(row_t);
        row.paired_baseline_samples.push_back(base_t);
        row.ratio_samples.push_back(row_t > 0 ? base_t / row_t : 0);
      } else {
        times.push_back(timed_execute(*kernel));
      }
      value = kernel->result();
      if (i == 0)
        first = value;
      else if (!same_bits(value, first))
        runs_identical = false;
    }
    row.device_timed = kernel->last_device_seconds() >= 0;
    if (pace_kernel) {
      row.paired_baseline = pace->entry->algo;
      row.paired_baseline_params = pace->params;
    }
    pace_kernel.reset();
    kernel.reset();
    row.time = stats_of(times);
    const double per_s = row.time.median > 0 ? 1.0 / row.time.median : 0;
    row.units_per_s = run.family->units(d) * per_s;
    row.bytes_per_s = run.family->bytes(d) * per_s;

    // Outside the bound's domain the report shows +inf ("no claim") and the reason.
    std::string outside;
    double bound = run.reference.special ? -1 : proven_bound(e, params, run.reference.facts, &outside);
    if (!outside.empty()) bound = INFINITY;
    row.metrics = run.family->measure(value, run.reference, bound);
    row.metrics.extra.insert(row.metrics.extra.end(), value.figures.begin(), value.figures.end());
    row.metrics.outside_domain = outside;
    check_reproducible(row, e, run, value, runs_identical, opt);
  } catch (const UsageError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // out of memory: one line, exit 2 (main), not a failed row
  } catch (const std::exception& ex) {
    row.error = ex.what();
  }
  judge(row, run.reference);
  return row;
}

void judge(ResultRow& row, const ExactValue& ref) {
  const AlgoEntry& e = *row.entry;
  auto fail = [&](const std::string& why) {
    row.guarantee_met = false;
    row.violation += (row.violation.empty() ? "" : "; ") + why;
  };
  if (!row.error.empty()) return fail("run failed: " + row.error);
  const Metrics& m = row.metrics;
  if (ref.special) {
    // IEEE 754: NaN in -> NaN, +inf and -inf -> NaN, one infinity -> that infinity.
    if (!m.correctly_rounded) fail("special values: expected " + ref.hex + ", got " + m.hex);
  } else {
    const Guarantee promised = e.guarantee_for(row.params);
    switch (promised) {
      case Guarantee::exact:
      case Guarantee::correctly_rounded:
        if (!m.correctly_rounded)
          fail(std::string("not ") + to_string(promised) + " (" + m.hex + " vs " + ref.hex + ")");
        break;
      case Guarantee::faithful:
        if (!m.faithful) fail("not faithful (" + m.hex + " vs " + ref.hex + ")");
        break;
      case Guarantee::kfold:
      case Guarantee::bound:
      case Guarantee::none:
        break;
    }
    if (m.has_bound && m.outside_domain.empty() && !m.within_bound) fail("error above the proven bound");
  }
  if (e.reproducible && !row.reproducible) fail("not reproducible");
}

void attach_baselines(std::vector<ResultRow>& rows) {
  // The baseline of the same backend and family; among several (e.g. --threads=1,2), the one
  // whose shared parameters (threads, local, ...) agree with the row's. A row timed beside its
  // baseline takes the median of its paired ratios (the same machine state on both sides).
  for (auto& r : rows) {
    if (!r.error.empty()) continue;
    const ResultRow* best = nullptr;
    for (auto& b : rows)
      if (b.entry->is_baseline && b.error.empty() && b.entry->backend == r.entry->backend &&
          b.entry->family == r.entry->family &&
          (!best || agreement(b.params, r.params) > agreement(best->params, r.params)))
        best = &b;
    if (!best) continue;
    r.baseline = best->entry->algo;
    if (!r.ratio_samples.empty() && r.paired_baseline == r.baseline)
      r.ratio_to_baseline = median_of(r.ratio_samples);
    else
      r.ratio_to_baseline = r.time.median > 0 ? best->time.median / r.time.median : 0;
  }
}

}  // namespace accsum::cli
