#pragma once
// The memory pre-check of bench (README "Resource limits"): before a dataset is generated or an
// algorithm runs, the host memory the run will peak at is compared with the memory available
// (MemAvailable, the process limits of `ulimit -v` and `ulimit -d`, the memory cgroup), and a run
// that cannot fit is refused with one line (exit 2) instead of being killed or throwing
// std::bad_alloc halfway. Peaks measured with /usr/bin/time -v (max RSS) on cpu and cpu-mt,
// n = 2^24, as multiples of the dataset's bytes (8 n for a sum, 16 n for a dot product):
//   plain, compensated, k-fold, fused, superacc with --no-repro-check ............ 1
//   superacc, superacc-dot (the harness's permuted copy for the reproducibility check) 2
//   dpsumk / dpdotk variant=tree (the working vector of the DPSum passes) ........ 2
//   opencl (PoCL keeps the device buffers in host memory) ........................ +1
// tests/base/test_limits.cpp measures the peaks again and checks these figures hold.
#include <cstdint>
#include <string>
#include <vector>

#include "app/select.hpp"
#include "core/frame/family.hpp"

namespace accsum::cli {

// Peak host bytes of one measured run of `e` with `params` as a multiple of the data's bytes.
double peak_data_multiple(const AlgoEntry& e, const Params& params, bool repro_check);

// Throws UsageError when measuring the selected entries of `family` on one dataset needs more
// than 90% of the memory available: `held_bytes` of data already in memory (a file just read) or
// `new_bytes` still to be generated, plus the extra of the worst entry's peak.
void check_run_memory(const std::vector<Selection>& sel, const FamilyDescriptor& family, double held_bytes,
                      double new_bytes, bool repro_check);

// The bytes a generated dataset of `spec` holds: the family's input_bytes (every family that
// generates data declares it; tests/app/test_io_rules.cpp checks that).
double spec_bytes(const FamilyDescriptor& family, const GenSpec& spec);

// gen and table: one dataset of `bytes` in memory at a time, with no algorithm selection.
void check_data_memory(const FamilyDescriptor& family, double bytes);

// memory_available_bytes() (base/limits.hpp): MemAvailable, RLIMIT_AS, RLIMIT_DATA and the
// memory cgroup, the least; -1 when unknown.
double available_memory_bytes();

}  // namespace accsum::cli
