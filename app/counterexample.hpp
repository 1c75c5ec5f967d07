#pragma once
// verify's counter-examples: the input on which an algorithm broke its claim, shrunk while the
// claim still fails (drop halves, then quarters, ... then single elements, as property-based
// testers shrink; Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
// 2002), written as a file that `accsum bench --input` reads (a matrix family's A and B as two
// .npy files), with the one command that reproduces the failure.
#include <string>

#include "app/harness.hpp"

namespace accsum::cli {

struct CounterExample {
  std::string path;       // the file written
  int64_t n_found = 0;    // elements of the failing dataset
  int64_t n_kept = 0;     // elements after shrinking
  std::string violation;  // what the shrunk input breaks
  std::string command;    // accsum bench --input=... reproducing it
};

// Shrinks d (vector families; other families' data are written whole) while entry e with
// params still breaks its claim, then writes it as .npy in `dir` under a name no file has
// (never overwriting). Throws UsageError when nothing can be written there, when the family
// writes no dataset, or when a matrix case needs scalars (alpha, beta) a file run cannot take.
CounterExample write_counterexample(const AlgoEntry& e, const Params& params, const Dataset& d,
                                    const MeasureOptions& opt, const std::string& dir);

// Where counter-examples go: the directory of the report (--json, else --out), else ".".
std::string counterexample_dir(const std::string& json, const std::string& out);

}  // namespace accsum::cli
