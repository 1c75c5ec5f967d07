#include "app/counterexample.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "app/output.hpp"
#include "core/frame/plugins.hpp"

namespace accsum::cli {

namespace {

constexpr int kMaxTries = 4000;  // evaluations of the failing claim while shrinking

bool breaks_claim(const AlgoEntry& e, const Params& params, const Dataset& d, const MeasureOptions& opt) {
  RunRecord run = begin_run(d);
  ResultRow row = measure_entry(e, params, run, opt);
  return row.error.empty() && !row.guarantee_met;
}

// The elements of d whose indices are not in [drop, drop + len).
Dataset without(const Dataset& d, int64_t drop, int64_t len) {
  Dataset s = d;
  s.generator = "counter-example";
  s.id = next_dataset_id();
  auto cut = [&](std::vector<double>& v) {
    if (!v.empty()) v.erase(v.begin() + drop, v.begin() + drop + len);
  };
  cut(s.x);
  cut(s.y);
  s.n = d.n - len;
  return s;
}

Dataset shrink(const AlgoEntry& e, const Params& params, Dataset d, const MeasureOptions& opt) {
  if (d.x.empty() || static_cast<int64_t>(d.x.size()) != d.n) return d;  // not a vector dataset: whole
  int tries = 0;
  for (int64_t chunk = d.n / 2; chunk >= 1 && tries < kMaxTries; chunk /= 2) {
    int64_t at = 0;
    while (at < d.n && d.n > 1 && tries < kMaxTries) {
      const int64_t len = std::min(chunk, d.n - at);
      if (len >= d.n) break;
      Dataset smaller = without(d, at, len);
      ++tries;
      if (breaks_claim(e, params, smaller, opt))
        d = std::move(smaller);  // keep `at`: new elements moved in
      else
        at += len;
    }
  }
  return d;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out;
}

// A name in dir that no file has, created (O_EXCL) so that nothing else takes it.
std::string reserve_name(const std::string& dir, const std::string& stem) {
  for (int i = 0; i < 1000; ++i) {
    std::string path = (dir == "." ? "" : dir + "/") + stem + (i ? "-" + std::to_string(i) : "") + ".npy";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return path;
    }
    if (errno != EEXIST) throw UsageError("cannot write a counter-example in '" + dir + "': " + std::strerror(errno));
  }
  throw UsageError("cannot write a counter-example in '" + dir + "': too many files named " + stem + "*.npy");
}

}  // namespace

std::string counterexample_dir(const std::string& json, const std::string& out) {
  const std::string& report = !json.empty() ? json : out;
  if (report.empty() || report.rfind("/dev/", 0) == 0 || report.rfind("/proc/", 0) == 0) return ".";
  auto slash = report.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : report.substr(0, slash);
}

CounterExample write_counterexample(const AlgoEntry& e, const Params& params, const Dataset& d,
                                    const MeasureOptions& opt, const std::string& dir) {
  CounterExample c;
  c.n_found = d.n;
  Dataset small = shrink(e, params, d, opt);
  c.n_kept = small.n;
  {
    RunRecord run = begin_run(small);
    c.violation = measure_entry(e, params, run, opt).violation;
  }
  const FamilyDescriptor& fam = family(d.family);
  c.path = reserve_name(dir, "counterexample-" + safe_name(e.algo) + "-" + safe_name(e.backend));
  try {
    std::string bytes;  // encoded first: a family that writes no dataset leaves no file behind
    fam.encode(c.path, small, "f8", [&](const void* p, size_t n) { bytes.append(static_cast<const char*>(p), n); });
    write_output(c.path, [&](const Sink& sink) { sink(bytes.data(), bytes.size()); });
  } catch (...) {
    ::unlink(c.path.c_str());
    throw;
  }
  c.command =
      "accsum bench --input=" + shell_quote(c.path) + " --algo=" + shell_quote(e.algo) + " --backend=" + e.backend;
  for (auto& [k, v] : params) c.command += " --param=" + shell_quote(k + "=" + v);
  if (const plugins::PluginAlgo* a = plugins::find(e.algo)) c.command += " --plugin=" + shell_quote(a->path);
  return c;
}

}  // namespace accsum::cli
