#include "app/counterexample.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "app/output.hpp"
#include "core/frame/plugins.hpp"
#include "datasets/gemm_data.hpp"
#include "datasets/npy_input.hpp"

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

// Paths dir/stem<suffix> (stem, then stem-1, stem-2, ...) that no file has, created (O_EXCL) so
// that nothing else takes them.
std::vector<std::string> reserve_names(const std::string& dir, const std::string& stem,
                                       const std::vector<std::string>& suffixes) {
  for (int i = 0; i < 1000; ++i) {
    std::vector<std::string> made;
    for (auto& suffix : suffixes) {
      std::string path = (dir == "." ? "" : dir + "/") + stem + (i ? "-" + std::to_string(i) : "") + suffix;
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0) {
        const int err = errno;
        for (auto& m : made) ::unlink(m.c_str());
        if (err != EEXIST) throw UsageError("cannot write a counter-example in '" + dir + "': " + std::strerror(err));
        made.clear();
        break;
      }
      ::close(fd);
      made.push_back(path);
    }
    if (!made.empty()) return made;
  }
  throw UsageError("cannot write a counter-example in '" + dir + "': too many files named " + stem + "*");
}

// Each file's bytes written, or every reserved file removed.
void write_all_or_none(const std::vector<std::string>& paths, const std::vector<std::string>& contents) {
  try {
    for (size_t i = 0; i < paths.size(); ++i)
      write_output(paths[i], [&](const Sink& sink) { sink(contents[i].data(), contents[i].size()); });
  } catch (...) {
    for (auto& p : paths) ::unlink(p.c_str());
    throw;
  }
}

// A column-major matrix as a .npy file with fortran_order: its bytes as they are.
template <class F>
std::string npy_matrix(const std::vector<F>& cm, int64_t rows, int64_t cols) {
  std::string bytes = npy_header(sizeof(F) == 4 ? "<f4" : "<f8", {rows, cols}, /*fortran_order=*/true);
  bytes.append(reinterpret_cast<const char*>(cm.data()), cm.size() * sizeof(F));
  return bytes;
}

// A matrix family's failing case as the files `--input=A.npy,B.npy` reads: A and B, with alpha 1
// and beta 0 (what a file run computes). A case whose claim holds there is not written.
std::vector<std::string> write_matrices(const AlgoEntry& e, const Params& params, const Dataset& d,
                                        const MeasureOptions& opt, const std::string& dir) {
  Dataset as_read = d;
  as_read.c.assign(d.c.size(), 0.0f);
  as_read.c64.assign(d.c64.size(), 0.0);
  as_read.data["alpha"] = float_hex(1.0);
  as_read.data["beta"] = float_hex(0.0);
  as_read.id = next_dataset_id();
  if (as_read.data != d.data && !breaks_claim(e, params, as_read, opt))
    throw UsageError("the claim holds on A and B with alpha = 1 and beta = 0, the only scalars a matrix --input takes");
  const bool single = !d.a.empty();
  const std::vector<std::string> contents =
      single ? std::vector<std::string>{npy_matrix(d.a, d.rows, d.inner), npy_matrix(d.b, d.inner, d.cols)}
             : std::vector<std::string>{npy_matrix(d.a64, d.rows, d.inner), npy_matrix(d.b64, d.inner, d.cols)};
  const auto paths =
      reserve_names(dir, "counterexample-" + safe_name(e.algo) + "-" + safe_name(e.backend), {"-A.npy", "-B.npy"});
  write_all_or_none(paths, contents);
  return paths;
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
  std::string input;
  if (d.rows > 0 && (!d.a.empty() || !d.a64.empty())) {
    const auto paths = write_matrices(e, params, small, opt, dir);
    c.path = paths[0] + " and " + paths[1];
    input = shell_quote(paths[0] + "," + paths[1]);
  } else {
    const FamilyDescriptor& fam = family(d.family);
    std::string bytes;  // encoded first: a family that writes no dataset leaves no file behind
    c.path = reserve_names(dir, "counterexample-" + safe_name(e.algo) + "-" + safe_name(e.backend), {".npy"})[0];
    try {
      fam.encode(c.path, small, "f8", [&](const void* p, size_t n) { bytes.append(static_cast<const char*>(p), n); });
    } catch (...) {
      ::unlink(c.path.c_str());
      throw;
    }
    write_all_or_none({c.path}, {bytes});
    input = shell_quote(c.path);
  }
  c.command = "accsum bench --input=" + input + " --algo=" + shell_quote(e.algo) + " --backend=" + e.backend;
  for (auto& [k, v] : params) c.command += " --param=" + shell_quote(k + "=" + v);
  if (const plugins::PluginAlgo* a = plugins::find(e.algo)) c.command += " --plugin=" + shell_quote(a->path);
  return c;
}

}  // namespace accsum::cli
