#include "app/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

namespace accsum::cli {

namespace {

bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

std::string params_str(const Params& p) {
  std::string s;
  for (auto& [k, v] : p) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

// One timed call: device time when the backend measured it, else the host's steady clock.
double timed_run(Kernel& k, double& seconds) {
  auto t0 = std::chrono::steady_clock::now();
  double v = k.run();
  auto t1 = std::chrono::steady_clock::now();
  double dev = k.last_device_seconds();
  seconds = dev >= 0 ? dev : std::chrono::duration<double>(t1 - t0).count();
  return v;
}

// A copy of d in a random order, with a fresh id: whole blocks of 4096 elements in a random
// order, and each block shuffled inside (the tail block stays last, shuffled). Built with all
// cores and cache-friendly, so a 2^28-element input is permuted in a second, not a minute; the
// last one is cached, so every reproducible row of a dataset compares against one permutation.
const Dataset& permuted(const Dataset& d) {
  static std::unique_ptr<Dataset> cached;
  static uint64_t cached_for = ~0ull;
  if (cached && cached_for == d.id) return *cached;
  cached.reset();
  auto p = std::make_unique<Dataset>(d);
  p->id = next_dataset_id();
  const int64_t B = 4096, full = d.n / B;
  std::vector<int64_t> order(full);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(0x5eed ^ static_cast<uint64_t>(d.n));
  std::shuffle(order.begin(), order.end(), rng);
  const bool dot = !d.y.empty();
  auto work = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {  // output block b
      int64_t src = b < full ? order[b] * B : b * B, len = std::min(B, d.n - b * B);
      std::mt19937_64 r(0x9e3779b97f4a7c15ull * static_cast<uint64_t>(b + 1));
      std::copy_n(d.x.begin() + src, len, p->x.begin() + b * B);
      if (dot) std::copy_n(d.y.begin() + src, len, p->y.begin() + b * B);
      for (int64_t i = len - 1; i > 0; --i) {
        int64_t j = static_cast<int64_t>(r() % static_cast<uint64_t>(i + 1));
        std::swap(p->x[b * B + i], p->x[b * B + j]);
        if (dot) std::swap(p->y[b * B + i], p->y[b * B + j]);
      }
    }
  };
  const int64_t blocks = (d.n + B - 1) / B;
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(blocks / 16, 16)));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, blocks * t / threads, blocks * (t + 1) / threads);
  for (auto& th : pool) th.join();
  cached = std::move(p);
  cached_for = d.id;
  return *cached;
}

}  // namespace

int process_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

ExactValue reference_of(const Dataset& d) {
  return d.y.empty() ? exact_sum(d.x.data(), d.n) : exact_dot(d.x.data(), d.y.data(), d.n);
}

double dynamic_range_log10_of(const Dataset& d) {
  double lo = INFINITY, hi = 0;
  for (double v : d.x) {
    double a = std::fabs(v);
    if (a > 0 && std::isfinite(a)) {
      lo = std::min(lo, a);
      hi = std::max(hi, a);
    }
  }
  return hi > 0 ? std::log10(hi) - std::log10(lo) : 0.0;  // the ratio itself can overflow
}

ResultRow measure_entry(const AlgoEntry& e, const Params& params, const Dataset& d, const ExactValue& ref,
                        const MeasureOptions& opt) {
  ResultRow row;
  row.entry = &e;
  row.params = params;
  try {
    require_backend(e.backend);
    auto kernel = e.make(d.problem(), params);
    row.transfer_s = kernel->transfer_seconds();
    double value = 0, secs = 0;
    for (int i = 0; i < opt.warmup; ++i) value = timed_run(*kernel, secs);
    std::vector<double> times;
    bool runs_identical = true;
    bool have_first = opt.warmup > 0;
    double first = value;
    for (int i = 0; i < std::max(1, opt.reps); ++i) {
      double v = timed_run(*kernel, secs);
      times.push_back(secs);
      if (!have_first) {
        first = v;
        have_first = true;
      } else if (!same_bits(v, first)) {
        runs_identical = false;
      }
      value = v;
    }
    row.device_timed = kernel->last_device_seconds() >= 0;
    kernel.reset();
    std::sort(times.begin(), times.end());
    size_t m = times.size();
    row.time.median = m % 2 ? times[m / 2] : 0.5 * (times[m / 2 - 1] + times[m / 2]);
    row.time.min = times.front();
    row.time.max = times.back();
    row.time.reps = static_cast<int>(m);
    double bytes_per_elem = d.y.empty() ? 8.0 : 16.0;
    row.elements_per_s = row.time.median > 0 ? d.n / row.time.median : 0;
    row.bytes_per_s = row.elements_per_s * bytes_per_elem;

    ExactFacts facts{d.n, ref.abs_sum, ref.sum_abs};
    double bound = -1;
    if (e.bound && !ref.special) bound = e.bound(params, facts);
    row.metrics = measure(value, ref, bound);

    row.reproducible = runs_identical;
    row.repro_checks.push_back("runs");
    if (e.reproducible && opt.repro_check && runs_identical) {
      if (e.shape_variants)
        for (auto& variant : e.shape_variants(params)) {
          if (variant == params) continue;
          double v = e.make(d.problem(), variant)->run();
          row.repro_checks.push_back(params_str(variant));
          if (!same_bits(v, value)) row.reproducible = false;
        }
      if (d.n > 1) {
        const Dataset& p = permuted(d);
        double v = e.make(p.problem(), params)->run();
        row.repro_checks.push_back("permutation");
        if (!same_bits(v, value)) row.reproducible = false;
      }
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // out of memory: one line, exit 2 (main), not a failed row
  } catch (const std::exception& ex) {
    row.error = ex.what();
  }
  judge(row, d, ref);
  return row;
}

void judge(ResultRow& row, const Dataset& d, const ExactValue& ref) {
  const AlgoEntry& e = *row.entry;
  auto fail = [&](const std::string& why) {
    row.guarantee_met = false;
    row.violation += (row.violation.empty() ? "" : "; ") + why;
  };
  if (!row.error.empty()) return fail("run failed: " + row.error);
  const Metrics& m = row.metrics;
  // Finite data whose intermediate sums overflow, and dot products whose terms underflow, lie
  // outside the proven domain of the k-fold / compensated algorithms (their EFTs are not exact
  // there); only correctly rounded algorithms promise anything on them.
  bool outside_domain = d.generator == "overflow-cancel" || (d.family == "dot" && d.generator == "subnormal");
  if (ref.special) {
    // IEEE 754: NaN in -> NaN, +inf and -inf -> NaN, one infinity -> that infinity.
    if (!m.correctly_rounded) fail("special values: expected " + ref.hex + ", got " + m.hex);
  } else {
    switch (e.guarantee) {
      case Guarantee::correctly_rounded:
        if (!m.correctly_rounded) fail("not correctly rounded (" + m.hex + " vs " + ref.hex + ")");
        break;
      case Guarantee::faithful:
        if (!m.faithful) fail("not faithful");
        break;
      case Guarantee::kfold:
      case Guarantee::none:
        break;
    }
    if (m.has_bound && !outside_domain && !m.within_bound) fail("error above the proven bound");
  }
  if (e.reproducible && !row.reproducible) fail("not reproducible");
}

void attach_baselines(std::vector<ResultRow>& rows) {
  // The baseline of the same backend and family; among several (e.g. --threads=1,2), the one
  // whose shared parameters (threads, local, ...) agree with the row's.
  auto agreement = [](const Params& a, const Params& b) {
    int n = 0;
    for (auto& [k, v] : a) {
      auto it = b.find(k);
      if (it != b.end()) n += it->second == v ? 1 : -1;
    }
    return n;
  };
  for (auto& r : rows) {
    if (!r.error.empty()) continue;
    const ResultRow* best = nullptr;
    for (auto& b : rows)
      if (b.entry->baseline && b.error.empty() && b.entry->backend == r.entry->backend &&
          b.entry->family == r.entry->family && (!best || agreement(b.params, r.params) > agreement(best->params, r.params)))
        best = &b;
    if (!best) continue;
    r.baseline = best->entry->algo;
    r.ratio_to_baseline = r.time.median > 0 ? best->time.median / r.time.median : 0;
  }
}

}  // namespace accsum::cli
