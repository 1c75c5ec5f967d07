// The moddot family's datasets: residue vectors generated counter-based, or read from .npy
// (int64/uint64, shape (2, n)) and text files; the modulus is checked prime with GMP.
#include "datasets/residues.hpp"

#include <gmp.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "datasets/npy_input.hpp"
#include "datasets/rng.hpp"
#include "datasets/threads.hpp"

namespace accsum {
namespace {

// The longest vectors generated or read (2^36 residues: 1 TiB for x and y).
constexpr int64_t kMaxResidues = int64_t(1) << 36;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw UsageError("'" + path + "': " + what);
}

// The columns of a residue .npy file: int64 '<i8' or uint64 '<u8', C order, shape (n, 2)
// (columns x, y), (2, n) (rows x, y; n != 2), or one column (n,) / (n, 1). Checked against p.
std::vector<std::vector<double>> read_npy_columns(const std::string& path, uint64_t p) {
  InFile in(path);
  const NpyHeader h = read_npy_header(in);  // datasets/npy_input.hpp: the one .npy reader
  const bool is_signed = h.descr == "<i8";
  if (!is_signed && h.descr != "<u8")
    fail(path, "dtype '" + h.descr + "' is not supported for residues (use int64 '<i8' or uint64 '<u8')");
  if (h.fortran_order) fail(path, "only C-order arrays are supported");
  const std::string shape = npy_shape_text(h.shape);
  const auto& s = h.shape;
  const bool one_column = s.size() == 1 || (s.size() == 2 && s[1] == 1);
  if (!one_column && !(s.size() == 2 && (s[1] == 2 || s[0] == 2)))
    fail(path,
         "shape " + shape + " is not a residue array; expected (n, 2) (columns x, y), (2, n), or one column (n,)");
  const bool rows = !one_column && s[1] != 2;  // (2, n): x then y
  const int64_t n = rows ? s[1] : s[0], cols = one_column ? 1 : 2;
  if (n > kMaxResidues) fail(path, "shape " + shape + " is too large (at most 2^36 entries per vector)");
  require_npy_data(in, h);
  std::vector<std::vector<double>> out(cols, std::vector<double>(n));
  std::vector<uint64_t> buf;
  const int64_t total = n * cols, chunk = 1 << 16;
  for (int64_t k0 = 0; k0 < total; k0 += chunk) {
    const int64_t e = std::min(total, k0 + chunk);
    buf.resize(e - k0);
    in.read(buf.data(), buf.size() * 8);
    for (int64_t k = k0; k < e; ++k) {
      const uint64_t u = buf[k - k0];
      if (is_signed && static_cast<int64_t>(u) < 0)
        fail(path, "entry " + std::to_string(k) + " is negative (residues are in [0, p))");
      if (u >= p)
        fail(path, "entry " + std::to_string(k) + " is >= p = " + std::to_string(p) + " (residues are in [0, p))");
      const int64_t col = rows ? k / n : k % cols, i = rows ? k % n : k / cols;
      out[col][i] = static_cast<double>(u);  // exact: u < p <= 2^52
    }
  }
  return out;
}

// A residue written in a text file: decimal digits only (an optional '+'), so that a value is
// exactly the integer it shows; "7.0", "1e3" and "1125899906842596.0000000000000000001" are
// refused rather than rounded to an integer. Returns false when the text is not such a number;
// *overflow when it does not fit 64 bits.
bool parse_residue_text(const std::string& f, uint64_t& v, bool& overflow) {
  const char* b = f.data() + (!f.empty() && f[0] == '+' ? 1 : 0);
  const char* e = f.data() + f.size();
  overflow = false;
  if (b == e || !std::all_of(b, e, [](char c) { return c >= '0' && c <= '9'; })) return false;
  auto [end, ec] = std::from_chars(b, e, v);
  overflow = ec == std::errc::result_out_of_range;
  return end == e;
}

// The header line "# p = <prime>" of a text file, or 0 when there is none.
uint64_t text_prime(const std::string& path, const std::string& line) {
  auto first = line.find_first_not_of(" \t\r#");
  auto eq = line.find('=');
  if (first == std::string::npos || eq == std::string::npos) return 0;
  std::string key = line.substr(first, eq - first), v = line.substr(eq + 1);
  for (auto* t : {&key, &v})
    t->erase(std::remove_if(t->begin(), t->end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
             t->end());
  return key == "p" ? parse_prime(v, "'" + path + "': p") : 0;
}

// Text: one or two integers per line (the same count on every line), '#' comments, an optional
// "# p = <prime>" line before the values. Returns the columns; `p` becomes the file's prime if
// it names one (which must agree with p when p_fixed: given by --p or by the other file).
std::vector<std::vector<double>> read_text_columns(const std::string& path, uint64_t& p, bool p_fixed) {
  const std::string text = read_text_input(path);  // the memory limit of every text input
  std::vector<std::vector<double>> cols;
  for_each_line(text, [&](std::string& line, int64_t line_no) {
    const std::string where = "line " + std::to_string(line_no) + ": ";
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) return;
    if (line[first] == '#') {
      const uint64_t q = text_prime(path, line);
      if (q && !cols.empty()) fail(path, where + "'# p =' must come before the values");
      if (q && p_fixed && q != p)
        fail(path, where + "p = " + std::to_string(q) + " disagrees with p = " + std::to_string(p) +
                       " (--p or the other file)");
      if (q) p = q;
      return;
    }
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    std::vector<std::string> fields;
    for (size_t q = line.find_first_not_of(' '); q != std::string::npos; q = line.find_first_not_of(' ', q)) {
      size_t e = std::min(line.size(), line.find(' ', q));
      fields.push_back(line.substr(q, e - q));
      q = e;
    }
    if (cols.empty() && fields.size() <= 2) cols.resize(fields.size());
    if (fields.size() != cols.size() || cols.empty())
      fail(path, where + "expected " +
                     (cols.empty() ? std::string("one or two integers") : std::to_string(cols.size()) + " integer(s)") +
                     ", found " + std::to_string(fields.size()) + " fields");
    for (size_t k = 0; k < fields.size(); ++k) {
      const std::string& f = fields[k];
      uint64_t v = 0;
      bool overflow = false;
      if (!parse_residue_text(f, v, overflow)) {
        const bool negative = f.size() > 1 && f[0] == '-' &&
                              std::all_of(f.begin() + 1, f.end(), [](char c) { return c >= '0' && c <= '9'; });
        fail(path, where + "'" + f + "' " +
                       (negative ? "is negative (residues are in [0, p))"
                                 : "is not an integer (residues are written as decimal digits)"));
      }
      if (overflow || v >= p) fail(path, where + "'" + f + "' is >= p = " + std::to_string(p));
      cols[k].push_back(static_cast<double>(v));
    }
  });
  return cols;  // no values: no columns (an empty dataset in either layout)
}

// The columns of one file (.npy or text); p as for read_text_columns.
std::vector<std::vector<double>> read_columns(const std::string& path, uint64_t& p, bool p_fixed) {
  const std::string ext = file_extension(path);
  if (ext == ".npy") return read_npy_columns(path, p);
  if (ext == ".txt" || ext == ".csv") return read_text_columns(path, p, p_fixed);
  fail(path, "unknown extension for a moddot dataset (use .npy int64/uint64, .txt or .csv)");
}

}  // namespace

uint64_t parse_prime(const std::string& text, const std::string& what) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + " '" + text + "' must be a decimal integer (a prime p with p - 1 < 2^52)");
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < 2 || v - 1 >= (1ull << 52))
    throw UsageError(what + " " + text + " is out of range: need 2 <= p and p - 1 < 2^52 (= 4503599627370496)");
  mpz_t z;
  mpz_init_set_ui(z, v);
  int prime = mpz_probab_prime_p(z, 50);
  mpz_clear(z);
  if (!prime) throw UsageError(what + " " + text + " is not prime");
  return v;
}

uint64_t prime_of(const Params& data) {
  auto it = data.find("p");
  return it == data.end() ? kModdotDefaultPrime : parse_prime(it->second, "p");
}

uint64_t checked_prime_of(const Params& data) {
  auto it = data.find("p");
  return it == data.end() ? kModdotDefaultPrime : std::stoull(it->second);
}

const std::vector<std::string>& residue_dist_names() {
  static const std::vector<std::string> names{"uniform", "worst", "sparse"};
  return names;
}

void generate_residues_range(const GenSpec& spec, uint64_t p, int64_t begin, int64_t end, double* x, double* y) {
  const rng::CounterRng rx(spec.seed ^ p, 0), ry(spec.seed ^ p, 1);
  for (int64_t i = begin; i < end; ++i) {
    double a, b;
    if (spec.dist == "worst") {
      a = b = static_cast<double>(p - 1);
    } else {
      a = static_cast<double>(rx.below(p, i));
      b = static_cast<double>(ry.below(p, i));
      if (spec.dist == "sparse" && rx.u64(i, 1) % 64 != 0) a = 0;
    }
    x[i - begin] = a;
    y[i - begin] = b;
  }
}

Dataset generate_residues(const GenSpec& spec) {
  const auto& names = residue_dist_names();
  if (std::find(names.begin(), names.end(), spec.dist) == names.end())
    throw UsageError("unknown --dist '" + spec.dist + "' for the moddot family (valid: uniform, worst, sparse)");
  for (auto& [k, v] : spec.options)
    if (k != "p") throw UsageError("the moddot family has no data option --" + k);
  const uint64_t p = spec.options.count("p") ? parse_prime(spec.options.at("p"), "--p") : kModdotDefaultPrime;
  if (spec.n < 0 || spec.n > kMaxResidues) throw UsageError("--n must be in [0, 2^36] for the moddot family");
  Dataset d;
  d.family = "moddot";
  d.generator = spec.dist;
  d.seed = spec.seed;
  d.n = spec.n;
  d.x.resize(spec.n);
  d.y.resize(spec.n);
  datasets_detail::parallel_chunks(
      spec.n, [&](int64_t b, int64_t e) { generate_residues_range(spec, p, b, e, d.x.data() + b, d.y.data() + b); });
  d.data["p"] = std::to_string(p);
  d.id = next_dataset_id();
  return d;
}

Dataset read_residues(const std::string& spec, const Params& options) {
  for (auto& [k, v] : options)
    if (k != "p") throw UsageError("--" + k + " does not apply to a moddot input file");
  bool p_fixed = options.count("p") != 0;
  uint64_t p = p_fixed ? parse_prime(options.at("p"), "--p") : kModdotDefaultPrime;
  // "x.npy,y.npy": two one-column files (datasets/npy_input.hpp: a path that exists whole is one file).
  const std::vector<std::string> paths = input_paths(spec);
  if (paths.size() > 2) throw UsageError("'" + spec + "': a moddot input is one file or two (x.npy,y.npy)");
  const bool two = paths.size() == 2;
  std::vector<std::vector<double>> cols;
  for (auto& path : paths) {
    const uint64_t before = p;
    auto c = read_columns(path, p, p_fixed);
    p_fixed |= p != before;
    if (c.empty()) c.resize(two ? 1 : 2);
    if (c.size() != (two ? 1u : 2u))
      fail(path, two ? "holds " + std::to_string(c.size()) + " columns; each of two files holds one (x, then y)"
                     : "holds one column; give x and y as two columns, or two files --input=x.npy,y.npy");
    for (auto& v : c) cols.push_back(std::move(v));
  }
  if (cols[0].size() != cols[1].size())
    throw UsageError("'" + spec + "': x and y have different lengths (" + std::to_string(cols[0].size()) + " and " +
                     std::to_string(cols[1].size()) + ")");
  Dataset d;
  d.family = "moddot";
  d.generator = "file";
  d.source = spec;
  d.n = static_cast<int64_t>(cols[0].size());
  d.x = std::move(cols[0]);
  d.y = std::move(cols[1]);
  d.data["p"] = std::to_string(p);
  d.id = next_dataset_id();
  return d;
}

void encode_residues(const std::string& path, const Dataset& d, const std::function<void(const void*, size_t)>& emit) {
  const std::string ext = file_extension(path);
  const uint64_t p = prime_of(d.data);
  if (ext == ".npy") {
    std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(d.n) + ", 2), }";
    size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::string head = "\x93NUMPY";
    head += static_cast<char>(1);
    head += static_cast<char>(0);
    head += static_cast<char>(dict.size() & 0xff);
    head += static_cast<char>(dict.size() >> 8);
    head += dict;
    emit(head.data(), head.size());
    std::vector<int64_t> buf;  // (n, 2): x_i, y_i interleaved
    for (int64_t b = 0; b < d.n; b += 1 << 16) {
      const int64_t e = std::min<int64_t>(d.n, b + (1 << 16));
      buf.clear();
      for (int64_t i = b; i < e; ++i) {
        buf.push_back(static_cast<int64_t>(d.x[i]));
        buf.push_back(static_cast<int64_t>(d.y[i]));
      }
      emit(buf.data(), buf.size() * 8);
    }
  } else if (ext == ".txt" || ext == ".csv") {
    std::string out = "# p = " + std::to_string(p) + "\n";
    for (int64_t i = 0; i < d.n; ++i) {
      out += std::to_string(static_cast<uint64_t>(d.x[i])) + " " + std::to_string(static_cast<uint64_t>(d.y[i])) + "\n";
      if (out.size() > (1u << 20)) {
        emit(out.data(), out.size());
        out.clear();
      }
    }
    emit(out.data(), out.size());
  } else {
    throw UsageError("'" + path + "': a moddot dataset is written as .npy (int64) or .txt/.csv");
  }
}

}  // namespace accsum
