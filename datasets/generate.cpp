// Dataset generation: validation, the threaded driver of the counter-based distributions
// (datasets/elements.hpp holds one element of each) and the dataset ids.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/limits.hpp"
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

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

const std::vector<std::string>& dist_names() {
  static const std::vector<std::string> names = {"uniform",         "uniform-sym", "loguniform", "illcond", "subnormal",
                                                 "overflow-cancel", "ties",        "specials",   "huge"};
  return names;
}

bool counter_based(const std::string& dist) { return dist != "illcond"; }

void validate(const GenSpec& spec) {
  const auto& names = dist_names();
  if (std::find(names.begin(), names.end(), spec.dist) == names.end())
    throw UsageError("unknown distribution '" + spec.dist + "' (valid: " + join_names() + ")");
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
  if (spec.with_y && y == nullptr) throw UsageError("a dot dataset needs a y buffer");
  generate_range(recipe(spec), begin, end, x, y);
}

void generate_range(const ElementRecipe& r, int64_t begin, int64_t end, double* x, double* y) {
  double unused = 0;
  for (int64_t i = begin; i < end; ++i)
    gen::element(r, static_cast<uint64_t>(i), x[i - begin], r.dot ? y[i - begin] : unused);
}

void generate_range_threaded(const ElementRecipe& r, int64_t begin, int64_t end, double* x, double* y) {
  datasets_detail::parallel_chunks(end - begin, [&](int64_t b, int64_t e) {
    generate_range(r, begin + b, begin + e, x + b, r.dot ? y + b : nullptr);
  });
}

ElementRecipe recipe(const GenSpec& spec) {
  validate(spec);
  if (!counter_based(spec.dist))
    throw UsageError("'" + spec.dist + "' is generated sequentially (Ogita-Rump-Oishi); it has no per-element recipe");
  ElementRecipe r;
  r.dot = spec.with_y;
  r.seed = spec.seed;
  r.n = spec.n;
  r.rx = rng::CounterRng(spec.seed, gen::kStreamX);
  r.ry = rng::CounterRng(spec.seed, gen::kStreamY);
  const std::string& d = spec.dist;
  if (d == "uniform") {
    r.dist = gen::Dist::uniform;
  } else if (d == "uniform-sym") {
    r.dist = gen::Dist::uniform_sym;
  } else if (d == "loguniform") {
    // Dot: x carries the dynamic range, y = +-(1 + w) so products have the range of x.
    r.dist = gen::Dist::loguniform;
    r.x_window = gen::log_window(spec.range);
    r.y_window = gen::LogWindow{0, 0};
  } else if (d == "subnormal") {
    // Dot: y = +-(1 + w) 2^[-1, 1], so products stay subnormal-heavy.
    r.dist = gen::Dist::subnormal;
    r.y_window = gen::LogWindow{-1, 2};
  } else if (d == "huge") {
    // |x| in [2^990, 2^1001): beyond what Dekker's Split can scale (it multiplies by 2^27 + 1),
    // yet every partial sum stays finite for n < 2^20. Dot: y = +-(1 + w) 2^[-40, -20], so the
    // products lie near 2^960 and the dot is finite too.
    r.dist = gen::Dist::huge;
    r.x_window = gen::LogWindow{990, 10};
    r.y_window = gen::LogWindow{-40, 20};
  } else if (d == "specials") {
    r.dist = gen::Dist::specials;
  } else if (d == "overflow-cancel" || d == "ties") {
    r.dist = d == "ties" ? gen::Dist::ties : gen::Dist::overflow_cancel;
    r.perm = rng::FeistelPermutation(static_cast<uint64_t>(spec.n), spec.seed, gen::kStreamPerm);
    if (d == "ties") r.tie = gen::tie_shape(spec.seed, spec.n, r.dot);
  } else {
    throw UsageError("no per-element recipe for '" + d + "'");
  }
  return r;
}

Dataset generate(const GenSpec& spec) {
  validate(spec);
  const bool dot = spec.with_y;
  // illcond builds its data in scratch arrays and then shuffles: twice the memory.
  const double arrays = (dot ? 2.0 : 1.0) * (counter_based(spec.dist) ? 1.0 : 2.0);
  const double need = arrays * 8.0 * static_cast<double>(spec.n);
  const double avail = memory_available_bytes();
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

Dataset generate_by_index(const GenSpec& spec) {
  Dataset d;
  d.generated_by = std::make_shared<const ElementRecipe>(recipe(spec));  // validates; illcond refused
  d.family = spec.family;
  d.generator = spec.dist;
  d.seed = spec.seed;
  d.n = spec.n;
  d.range = spec.dist == "loguniform" ? spec.range : 0;
  d.id = next_dataset_id();
  return d;
}

}  // namespace accsum
