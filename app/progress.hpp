#pragma once
// Progress of long runs (bench sweeps, verify, table): a bar with the count, percentage and an
// ETA on stderr, redrawn in place at most ten times a second. Drawn only when stderr is a
// terminal and this is rank 0 (progress_enabled()), or when ACCSUM_PROGRESS=1 forces it (tests);
// ACCSUM_PROGRESS=0 turns it off. In a CI job's log (the CI variable set, stderr not a terminal)
// or with ACCSUM_PROGRESS=lines: one plain line per finished block (a dataset's rows) instead.
// Never written to stdout. The bar's line is cleared when done.
#include <chrono>
#include <cstdint>
#include <string>

namespace accsum::cli {

class Progress {
 public:
  enum class Mode { off, bar, lines };
  Progress(std::string title, int64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // The next unit of work begins (`what` names it); the bar shows the units finished before it.
  void tick(const std::string& what = "");
  // What is happening now, without counting a unit (e.g. "exact reference (MPFR)").
  void status(const std::string& what);
  // A block of units is done: clears the bar's line, or prints the block's line (also done by
  // the destructor, unless an error is unwinding); call before printing the results.
  void finish(const std::string& block = "");
  bool enabled() const { return enabled_; }

 private:
  void draw(bool force);
  std::string title_, what_;
  int64_t total_, done_ = -1, logged_ = 0;  // logged_: units finished when the last line was printed
  Mode mode_;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int uncaught_at_start_;
};

// The text of one progress line (without '\r'), at most `width` characters: exposed for tests.
std::string progress_line(const std::string& title, int64_t done, int64_t total, double elapsed_s,
                          const std::string& what, int width);

}  // namespace accsum::cli
