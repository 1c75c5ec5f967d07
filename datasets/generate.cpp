// Dataset generation: validation, the threaded driver of the counter-based distributions
// (datasets/elements.hpp holds one element of each) and the dataset ids.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "datasets/dataset.hpp"
#include "datasets/elements.hpp"
#include "datasets/illcond.hpp"
#include "datasets/threads.hpp"

namespace accsum {
namespace {

std::string join_names() {
  std::string s;
  for (const auto& d : dist_names()) s += (s.empty() ? "" : ", ") + d;
  return s;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

// MemAvailable from /proc/meminfo in bytes, or -1 when it cannot be read (not Linux).
double mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return -1;
}

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

const std::vector<std::string>& dist_names() {
  static const std::vector<std::string> names = {"uniform",  "uniform-sym",     "loguniform", "illcond",
                                                 "subnormal", "overflow-cancel", "ties",       "specials",
                                                 "huge"};
  return names;
}

bool counter_based(const std::string& dist) { return dist != "illcond"; }

uint64_t next_dataset_id() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

void validate(const GenSpec& spec) {
  const auto& names = dist_names();
  if (std::find(names.begin(), names.end(), spec.dist) == names.end())
    throw UsageError("unknown distribution '" + spec.dist + "' (valid: " + join_names() + ")");
  if (spec.family != "sum" && spec.family != "dot")
    throw UsageError("unknown family '" + spec.family + "' for generated data (valid: sum, dot)");
  if (spec.n <= 0) throw UsageError("n must be at least 1 (got " + std::to_string(spec.n) + ")");
  if (!(spec.range >= 1) || !std::isfinite(spec.range))
    throw UsageError("range must be a finite number >= 1 (got " + fmt_double(spec.range) + ")");
  if (!(spec.cond >= 1) || !(spec.cond <= kMaxCond))
    throw UsageError("cond must be a finite number in [1, 1e300] (got " + fmt_double(spec.cond) + ")");
  if (spec.dist == "ties" && spec.n < 2)
    throw UsageError("ties needs n >= 2 (a single double is never halfway between two doubles)");
}

void generate_range(const GenSpec& spec, int64_t begin, int64_t end, double* x, double* y) {
  validate(spec);
  if (!counter_based(spec.dist))
    throw UsageError("'" + spec.dist + "' is generated sequentially (Ogita-Rump-Oishi); it cannot be sliced");
  if (begin < 0 || end < begin || end > spec.n)
    throw UsageError("slice [" + std::to_string(begin) + ", " + std::to_string(end) + ") is outside [0, " +
                     std::to_string(spec.n) + ")");
  const bool dot = spec.family == "dot";
  if (dot && y == nullptr) throw UsageError("a dot dataset needs a y buffer");
  const uint64_t seed = spec.seed;
  const int64_t n = spec.n;
  const rng::CounterRng rx(seed, gen::kStreamX), ry(seed, gen::kStreamY);
  const std::string& d = spec.dist;
  double unused = 0;
  double* yy = dot ? y : &unused;
  const int64_t ystep = dot ? 1 : 0;
  if (d == "uniform") {
    for (int64_t i = begin; i < end; ++i) {
      x[i - begin] = gen::uniform01(rx, i);
      if (dot) y[i - begin] = gen::uniform01(ry, i);
    }
  } else if (d == "uniform-sym") {
    for (int64_t i = begin; i < end; ++i) {
      x[i - begin] = gen::uniform_sym(rx, i);
      if (dot) y[i - begin] = gen::uniform_sym(ry, i);
    }
  } else if (d == "loguniform") {
    // Dot: x carries the dynamic range, y = +-(1 + w) so products have the range of x.
    const gen::LogWindow w = gen::log_window(spec.range), unit{0, 0};
    for (int64_t i = begin; i < end; ++i) {
      x[i - begin] = gen::loguniform(rx, i, w);
      if (dot) y[i - begin] = gen::loguniform(ry, i, unit);
    }
  } else if (d == "subnormal") {
    // Dot: y = +-(1 + w) 2^[-1, 1], so products stay subnormal-heavy.
    const gen::LogWindow near_one{-1, 2};
    for (int64_t i = begin; i < end; ++i) {
      x[i - begin] = gen::subnormal(rx, i);
      if (dot) y[i - begin] = gen::loguniform(ry, i, near_one);
    }
  } else if (d == "huge") {
    // |x| in [2^990, 2^1001): beyond what Dekker's Split can scale (it multiplies by 2^27 + 1),
    // yet every partial sum stays finite for n < 2^20. Dot: y = +-(1 + w) 2^[-40, -20], so the
    // products lie near 2^960 and the dot is finite too.
    const gen::LogWindow top{990, 10}, small{-40, 20};
    for (int64_t i = begin; i < end; ++i) {
      x[i - begin] = gen::loguniform(rx, i, top);
      if (dot) y[i - begin] = gen::loguniform(ry, i, small);
    }
  } else if (d == "specials") {
    for (int64_t i = begin; i < end; ++i) {
      x[i - begin] = gen::specials_x(seed, rx, i);
      if (dot) y[i - begin] = gen::specials_y(seed, rx, ry, i);
    }
  } else if (d == "overflow-cancel") {
    const rng::FeistelPermutation perm(static_cast<uint64_t>(n), seed, gen::kStreamPerm);
    for (int64_t i = begin; i < end; ++i)
      gen::overflow_cancel(n, rx, ry, perm, i, dot, x[i - begin], yy[(i - begin) * ystep]);
  } else if (d == "ties") {
    const rng::FeistelPermutation perm(static_cast<uint64_t>(n), seed, gen::kStreamPerm);
    const gen::TieShape shape = gen::tie_shape(seed, n, dot);
    for (int64_t i = begin; i < end; ++i)
      gen::ties_element(shape, n, rx, ry, perm, i, dot, x[i - begin], yy[(i - begin) * ystep]);
  }
}

Dataset generate(const GenSpec& spec) {
  validate(spec);
  const bool dot = spec.family == "dot";
  // illcond builds its data in scratch arrays and then shuffles: twice the memory.
  const double arrays = (dot ? 2.0 : 1.0) * (counter_based(spec.dist) ? 1.0 : 2.0);
  const double need = arrays * 8.0 * static_cast<double>(spec.n);
  const double avail = mem_available_bytes();
  if ((avail >= 0 && need > 0.9 * avail) || need > 0x1p62)
    throw UsageError("n = " + std::to_string(spec.n) + " needs " + human_bytes(need) + " but only " +
                     human_bytes(std::max(avail, 0.0)) + " of memory is available");

  Dataset d;
  d.family = spec.family;
  d.generator = spec.dist;
  d.seed = spec.seed;
  d.n = spec.n;
  d.range = spec.dist == "loguniform" ? spec.range : 0;
  d.target_cond = spec.dist == "illcond" ? spec.cond : 0;
  d.id = next_dataset_id();
  d.x.resize(spec.n);
  if (dot) d.y.resize(spec.n);
  if (spec.dist == "illcond") {
    generate_illcond(spec, d.x.data(), dot ? d.y.data() : nullptr);
    return d;
  }
  datasets_detail::parallel_chunks(spec.n, [&](int64_t b, int64_t e) {
    generate_range(spec, b, e, d.x.data() + b, dot ? d.y.data() + b : nullptr);
  });
  return d;
}

}  // namespace accsum
