#include "app/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "app/commands.hpp"
#include "app/harness.hpp"

namespace accsum::cli {
namespace {

Progress::Mode want_progress() {
  if (const char* s = std::getenv("ACCSUM_PROGRESS")) {
    if (std::strcmp(s, "1") == 0) return Progress::Mode::bar;
    if (std::strcmp(s, "0") == 0) return Progress::Mode::off;
    if (std::strcmp(s, "lines") == 0) return Progress::Mode::lines;
  }
  if (progress_enabled()) return Progress::Mode::bar;
  // A CI job's log (GitHub Actions, GitLab CI and most others set CI): no bar redrawn in place,
  // one line per finished block of work.
  const char* ci = std::getenv("CI");
  const bool in_ci = ci && *ci && std::strcmp(ci, "0") != 0 && std::strcmp(ci, "false") != 0;
  return in_ci && process_rank() == 0 ? Progress::Mode::lines : Progress::Mode::off;
}

int terminal_width() {
  struct winsize w {};
  if (::ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col >= 20) return std::min<int>(w.ws_col - 1, 160);
  return 79;
}

std::string duration_text(double s) {
  if (!std::isfinite(s) || s < 0) return "--";
  long t = std::lround(s);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

}  // namespace

std::string progress_line(const std::string& title, int64_t done, int64_t total, double elapsed_s,
                          const std::string& what, int width) {
  total = std::max<int64_t>(total, 1);
  done = std::clamp<int64_t>(done, 0, total);
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  const int bar = 20, filled = static_cast<int>(frac * bar);
  std::string line = title + " [" + std::string(filled, '#') + std::string(bar - filled, '.') + "] " +
                     std::to_string(done) + "/" + std::to_string(total) + " " +
                     std::to_string(static_cast<int>(frac * 100)) + "% ETA " +
                     (done > 0 ? duration_text(elapsed_s / done * (total - done)) : std::string("--"));
  if (!what.empty()) line += "  " + what;
  if (width > 0 && static_cast<int>(line.size()) > width) line.resize(width);
  return line;
}

Progress::Progress(std::string title, int64_t total)
    : title_(std::move(title)),
      total_(total),
      mode_(want_progress()),
      enabled_(mode_ != Mode::off),
      start_(std::chrono::steady_clock::now()),
      uncaught_at_start_(std::uncaught_exceptions()) {}

Progress::~Progress() {
  // Unwinding from an error: the block did not finish, so no "done" line; only the bar is cleared.
  if (std::uncaught_exceptions() > uncaught_at_start_) mode_ = mode_ == Mode::lines ? Mode::off : mode_;
  finish();
}

void Progress::finish(const std::string& block) {
  if (mode_ == Mode::lines && done_ + 1 > logged_) {  // the block's units are done: one line for the log
    logged_ = done_ + 1;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "%s: %lld/%lld done after %.1f s%s\n", title_.c_str(), static_cast<long long>(logged_),
                 static_cast<long long>(std::max<int64_t>(total_, 1)), elapsed,
                 block.empty() ? "" : (" (" + block + ")").c_str());
  }
  if (mode_ == Mode::bar && drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
  std::fflush(stderr);
}

void Progress::status(const std::string& what) {
  if (!enabled_) return;
  what_ = what;
  if (mode_ == Mode::bar) draw(true);
}

void Progress::tick(const std::string& what) {
  if (!enabled_) return;
  ++done_;
  what_ = what;
  if (mode_ == Mode::bar) draw(done_ == 0);
}

void Progress::draw(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = progress_line(title_, done_, total_, elapsed, what_, terminal_width());
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace accsum::cli
