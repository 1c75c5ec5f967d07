// compare's speed verdicts. By default each row is judged on its per-repetition ratios to the
// baseline timed beside it in the same run (bench interleaves their repetitions), so a machine
// that slows down as a whole moves numerator and denominator alike; --speed=time judges the raw
// times. Either way: a two-sided Mann-Whitney U test at kAlpha plus a minimum effect, the
// tolerance; ratios beyond Tukey's far-out fences (interrupted repetitions) are left out first.
// Rows that cannot be judged are listed as "not speed-comparable" with the reason.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/compare.hpp"
#include "app/mann_whitney.hpp"

namespace accsum::cli::compare {

using nlohmann::json;

namespace {

// The finite numbers of time_s[key] (empty when absent).
std::vector<double> series(const json& r, const char* key) {
  std::vector<double> s;
  if (!r.contains("time_s") || !r["time_s"].is_object()) return s;
  const json& t = r["time_s"];
  if (!t.contains(key) || !t[key].is_array()) return s;
  for (auto& v : t[key])
    if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0) s.push_back(v.get<double>());
  return s;
}

// Tukey's far-out fences (Tukey, Exploratory Data Analysis, 1977): a ratio whose logarithm lies more
// than 3 interquartile ranges beyond the quartiles is a repetition the scheduler interrupted (on a
// loaded host a time slice of milliseconds lands in one side of a pair and moves its ratio by a
// factor of ten). Those are left out before the test; the count is reported.
constexpr double kFenceIqrs = 3;

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::vector<double> within_fences(const std::vector<double>& ratios) {
  std::vector<double> logs;
  for (double r : ratios) logs.push_back(std::log(r));
  std::vector<double> sorted = logs;
  std::sort(sorted.begin(), sorted.end());
  const double q1 = quantile(sorted, 0.25), q3 = quantile(sorted, 0.75), iqr = q3 - q1;
  std::vector<double> kept;
  for (size_t i = 0; i < ratios.size(); ++i)
    if (logs[i] >= q1 - kFenceIqrs * iqr && logs[i] <= q3 + kFenceIqrs * iqr) kept.push_back(ratios[i]);
  return kept;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

std::string seconds(double s) {
  if (s >= 1) return fmt::format("{:.4g} s", s);
  if (s >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} us", s * 1e6);
}

json member_or_null(const json& r, const char* key) { return r.contains(key) ? r[key] : json(); }

void not_comparable(const Row& b, const std::string& file, const std::string& why, Outcome& out) {
  ++out.speed_not_comparable;
  Change c;
  c.file = file;
  c.row = b.key;
  c.aspect = "speed";
  c.verdict = "not speed-comparable";
  c.detail = why;
  out.changes.push_back(std::move(c));
}

// Why the two rows' speeds cannot be judged on `basis` ("" when they can).
std::string obstacle(const json& rb, const json& rn, const Options& o) {
  const SpeedBasis basis = o.speed_basis;
  if (!o.force && member_or_null(rb, "placement") != member_or_null(rn, "placement"))
    return "ran on other devices: " + member_or_null(rb, "placement").dump() + " vs " +
           member_or_null(rn, "placement").dump();
  const std::vector<double> tb = series(rb, "samples"), tn = series(rn, "samples");
  if (tb.empty() || tn.empty()) return "no timed repetitions recorded (a report written before samples were)";
  if (basis == SpeedBasis::time) return "";
  const bool base_b = rb.value("is_baseline", false), base_n = rn.value("is_baseline", false);
  if (base_b || base_n) return "";  // the yardstick itself: counted, not listed
  const std::vector<double> qb = series(rb, "ratio_samples"), qn = series(rn, "ratio_samples");
  if (qb.empty() || qn.empty()) {
    const bool any_baseline = rb.contains("baseline") && rn.contains("baseline");
    return any_baseline ? "no per-repetition ratios to the baseline (a report written before they were; "
                          "--speed=time judges the raw times)"
                        : "no baseline in the run to take the ratio to (--speed=time judges the raw times)";
  }
  const json pb = rb["time_s"].value("paired_with", json()), pn = rn["time_s"].value("paired_with", json());
  if (pb != pn) return "timed beside other baselines: " + pb.dump() + " vs " + pn.dump();
  return "";
}

}  // namespace

std::string speed_method(const Options& o) {
  return fmt::format("{}; two-sided Mann-Whitney U, p < {:g}, change > {:g} %",
                     o.speed_basis == SpeedBasis::ratio
                         ? "ratio to the baseline timed beside each row in the same run, interrupted repetitions "
                           "(beyond 3 IQR) left out"
                         : "raw times",
                     kAlpha, 100 * o.speed_tolerance);
}

void judge_speed(const Row& b, const Row& n, const Options& o, const std::string& file, Outcome& out) {
  const json &rb = b.row, &rn = n.row;
  if (rb.contains("error") || rn.contains("error")) return;  // accuracy lists the failed run
  if (const std::string why = obstacle(rb, rn, o); !why.empty()) {
    if (why.rfind("no timed", 0) == 0) ++out.speed_without_samples;
    return not_comparable(b, file, why, out);
  }
  const bool ratio = o.speed_basis == SpeedBasis::ratio;
  if (ratio && (rb.value("is_baseline", false) || rn.value("is_baseline", false))) {
    ++out.speed_baselines;
    return;
  }
  const char* key = ratio ? "ratio_samples" : "samples";
  const std::vector<double> all_b = series(rb, key), all_n = series(rn, key);
  const std::vector<double> sb = ratio ? within_fences(all_b) : all_b, sn = ratio ? within_fences(all_n) : all_n;
  const size_t fenced = all_b.size() - sb.size() + all_n.size() - sn.size();
  if (sb.size() < kMinSamples || sn.size() < kMinSamples) {
    ++out.speed_too_few;
    return not_comparable(
        b, file, fmt::format("{} and {} repetitions: fewer than {} on a side", sb.size(), sn.size(), kMinSamples), out);
  }
  ++out.speed_judged;
  const MannWhitneyResult t = mann_whitney_u(sb, sn);
  const double mb = median_of(sb), mn = median_of(sn);
  // The change of the row's time: for ratios (baseline time / row time) their inverse moves.
  const double change = mb > 0 && mn > 0 ? (ratio ? mb / mn : mn / mb) - 1 : 0;
  if (t.p_value >= kAlpha || std::fabs(change) <= o.speed_tolerance) return;
  Change c;
  c.file = file;
  c.row = b.key;
  c.aspect = "speed";
  c.old_value = ratio ? fmt::format("{:.4g}x", mb) : seconds(mb);
  c.new_value = ratio ? fmt::format("{:.4g}x", mn) : seconds(mn);
  c.delta = fmt::format("{:+.1f} %", 100 * change);
  c.p_value = t.p_value;
  c.verdict = change > 0 ? "slower" : "faster";
  c.regression = change > 0;
  c.improvement = change < 0;
  c.detail = ratio ? fmt::format("median ratio to {} over {} and {} interleaved repetitions{} (time {} -> {})",
                                 rn.value("baseline", std::string("the baseline")), sb.size(), sn.size(),
                                 fenced ? fmt::format(", {} interrupted one(s) left out", fenced) : "",
                                 seconds(median_of(series(rb, "samples"))), seconds(median_of(series(rn, "samples"))))
                   : fmt::format("medians of {} and {} repetitions", sb.size(), sn.size());
  out.changes.push_back(std::move(c));
}

}  // namespace accsum::cli::compare
