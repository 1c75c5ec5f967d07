#include "app/memcheck.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "base/limits.hpp"

namespace accsum::cli {
namespace {

std::string human(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) b /= 1024, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

}  // namespace

double available_memory_bytes();

namespace {
// Throws UsageError with the bytes needed when `need` exceeds 90% of the memory available
// (memory_available_bytes: MemAvailable, the process limits, the cgroup) or 2^62.
void refuse_unless_fits(const FamilyDescriptor& family, double need, double worst, const std::string& who) {
  const double avail = available_memory_bytes();
  if ((avail >= 0 && need > 0.9 * avail) || need > 0x1p62 || !(need >= 0)) {
    char mult[32], bytes[48];
    std::snprintf(mult, sizeof mult, "%g", worst);
    std::snprintf(bytes, sizeof bytes, "%.0f", need);
    throw UsageError("the " + family.name + " data need " + human(need) + " (" + bytes + " bytes)" +
                     (who.empty() ? std::string() : " (" + who + " peaks at " + mult + "x the data)") + " but only " +
                     human(std::max(avail, 0.0)) + " of memory is available");
  }
}
}  // namespace

double available_memory_bytes() { return memory_available_bytes(); }

double peak_data_multiple(const AlgoEntry& e, const Params& params, bool repro_check) {
  if (e.peak_data_multiple > 0) return e.peak_data_multiple;
  double m = 1;
  if (e.reproducible && e.reproducible_any_order && repro_check) m += 1;  // app/harness.cpp permuted(): a shuffled copy
  auto v = params.find("variant");
  if (v != params.end() && v->second == "tree") m += 1;  // families/sum_dot/dpsum.hpp: the DPSum passes' vector
  if (const BackendInfo* b = registry().backend(e.backend)) m += b->host_copies;  // e.g. PoCL's buffers
  return m;
}

void check_run_memory(const std::vector<Selection>& sel, const FamilyDescriptor& family, double held_bytes,
                      double new_bytes, bool repro_check) {
  double worst = 1;
  std::string who;
  // A row is timed beside its baseline (app/harness.hpp Pace): the baseline's own copies add up.
  std::map<std::string, double> baseline_extra;
  for (auto& s : sel)
    if (s.entry->family == family.name && s.entry->is_baseline)
      for (auto& p : s.param_sets)
        baseline_extra[s.entry->backend] =
            std::max(baseline_extra[s.entry->backend], peak_data_multiple(*s.entry, p, false) - 1);
  for (auto& s : sel) {
    if (s.entry->family != family.name) continue;
    for (auto& p : s.param_sets) {
      double m = peak_data_multiple(*s.entry, p, repro_check);
      if (!s.entry->is_baseline) m += baseline_extra[s.entry->backend];
      if (m > worst) worst = m, who = s.entry->algo + " on " + s.entry->backend;
    }
  }
  refuse_unless_fits(family, (held_bytes + new_bytes) * worst, worst, who);
}

double spec_bytes(const FamilyDescriptor& family, const GenSpec& spec) {
  if (!family.input_bytes) throw std::logic_error("family " + family.name + " declares no input_bytes");
  return family.input_bytes(spec);
}

void check_data_memory(const FamilyDescriptor& family, double bytes) { refuse_unless_fits(family, bytes, 1, ""); }

}  // namespace accsum::cli
