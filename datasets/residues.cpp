// The moddot family's datasets: residue vectors generated counter-based, or read from .npy
// (int64/uint64, shape (2, n)) and text files; the modulus is checked prime with GMP.
#include "datasets/residues.hpp"

#include <gmp.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "datasets/npy_input.hpp"
#include "datasets/rng.hpp"
#include "datasets/threads.hpp"

namespace accsum {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw UsageError("'" + path + "': " + what); }

// One residue read from a file: an integer in [0, p) (checked), returned as a double (exact).
double checked_residue(const std::string& path, long double v, bool integral, uint64_t p, int64_t index) {
  if (!integral) fail(path, "entry " + std::to_string(index) + " is not an integer");
  if (v < 0) fail(path, "entry " + std::to_string(index) + " is negative (residues are in [0, p))");
  if (v >= static_cast<long double>(p))
    fail(path, "entry " + std::to_string(index) + " is >= p = " + std::to_string(p) + " (residues are in [0, p))");
  return static_cast<double>(v);
}


// The value of `key` in a .npy header dict, e.g. '<i8', False, (2, 5).
std::string npy_value(const std::string& path, const std::string& dict, const std::string& key) {
  auto k = dict.find("'" + key + "'");
  if (k == std::string::npos) fail(path, "npy header has no '" + key + "'");
  auto c = dict.find(':', k);
  if (c == std::string::npos) fail(path, "npy header is malformed");
  size_t b = dict.find_first_not_of(' ', c + 1), e = b;
  if (b == std::string::npos) fail(path, "npy header is malformed");
  if (dict[b] == '(') e = dict.find(')', b) + 1;
  else if (dict[b] == '\'') e = dict.find('\'', b + 1) + 1;
  else e = dict.find_first_of(",}", b);
  if (e == std::string::npos || e == 0 || e <= b) fail(path, "npy header is malformed");
  std::string v = dict.substr(b, e - b);
  if (v.size() >= 2 && v.front() == '\'') v = v.substr(1, v.size() - 2);
  return v;
}

Dataset read_npy_residues(const std::string& path) {
  InFile in(path);  // datasets/npy_input.hpp: regular files only, never blocking
  const std::string dict = read_npy_dict(in);
  const std::string descr = npy_value(path, dict, "descr");
  const bool is_signed = descr == "<i8";
  if (!is_signed && descr != "<u8")
    fail(path, "dtype '" + descr + "' is not supported for residues (use int64 '<i8' or uint64 '<u8')");
  if (npy_value(path, dict, "fortran_order") != "False") fail(path, "only C-order arrays are supported");
  const std::string shape = npy_value(path, dict, "shape");
  long long rows = -1, cols = -1;
  if (std::sscanf(shape.c_str(), "(%lld, %lld)", &rows, &cols) != 2 || rows != 2 || cols < 0)
    fail(path, "shape " + shape + " is not a moddot dataset; expected (2, n) (row 0 x, row 1 y)");
  const uint64_t have = in.remaining();
  if (have != static_cast<uint64_t>(cols) * 16)
    fail(path, "holds " + std::to_string(have) + " bytes of data, shape " + shape + " needs " +
                   std::to_string(static_cast<uint64_t>(cols) * 16));
  Dataset d;
  const uint64_t p = kModdotDefaultPrime;
  d.n = cols;
  std::vector<uint64_t> buf;
  for (auto* dst : {&d.x, &d.y}) {
    dst->resize(d.n);
    for (int64_t b = 0; b < d.n; b += 1 << 16) {
      const int64_t e = std::min<int64_t>(d.n, b + (1 << 16));
      buf.resize(e - b);
      in.read(buf.data(), buf.size() * 8);
      for (int64_t i = b; i < e; ++i) {
        uint64_t u = buf[i - b];
        long double v = is_signed ? static_cast<long double>(static_cast<int64_t>(u)) : static_cast<long double>(u);
        (*dst)[i] = checked_residue(path, v, true, p, (dst == &d.y ? d.n : 0) + i);
      }
    }
  }
  d.data["p"] = std::to_string(p);
  return d;
}

Dataset read_text_residues(const std::string& path) {
  InFile in(path);
  std::string text(in.size, '\0');
  in.read(text.data(), in.size);
  uint64_t p = kModdotDefaultPrime;
  Dataset d;
  std::vector<long double> row;
  size_t pos = 0;
  int64_t line_no = 0;
  bool values_seen = false;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      auto eq = line.find('=', first);
      std::string key = line.substr(first + 1, eq == std::string::npos ? std::string::npos : eq - first - 1);
      key.erase(std::remove_if(key.begin(), key.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), key.end());
      if (key == "p" && eq != std::string::npos) {
        if (values_seen) fail(path, "line " + std::to_string(line_no) + ": '# p =' must come before the values");
        std::string v = line.substr(eq + 1);
        v.erase(std::remove_if(v.begin(), v.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), v.end());
        p = parse_prime(v, "'" + path + "': p");
      }
      continue;
    }
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    std::vector<std::string> fields;
    size_t q = 0;
    while (q < line.size()) {
      size_t b = line.find_first_not_of(' ', q);
      if (b == std::string::npos) break;
      size_t e = line.find(' ', b);
      if (e == std::string::npos) e = line.size();
      fields.push_back(line.substr(b, e - b));
      q = e;
    }
    if (fields.size() != 2)
      fail(path, "line " + std::to_string(line_no) + ": expected two integers (x y), found " + std::to_string(fields.size()) + " fields");
    values_seen = true;
    for (int k = 0; k < 2; ++k) {
      const std::string& f = fields[k];
      char* end = nullptr;
      errno = 0;
      long double v = std::strtold(f.c_str(), &end);
      if (*end || errno == ERANGE || f.empty())
        fail(path, "line " + std::to_string(line_no) + ": '" + f + "' is not a number");
      const bool integral = v == v && v == std::floor(v);
      double r;
      try {
        r = checked_residue(path, v, integral, p, 0);
      } catch (const UsageError&) {
        std::string why = !integral ? "is not an integer" : v < 0 ? "is negative (residues are in [0, p))" : "is >= p = " + std::to_string(p);
        fail(path, "line " + std::to_string(line_no) + ": '" + f + "' " + why);
      }
      (k == 0 ? d.x : d.y).push_back(r);
    }
  }
  d.n = static_cast<int64_t>(d.x.size());
  d.data["p"] = std::to_string(p);
  return d;
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
  if (spec.n < 0 || spec.n > (int64_t(1) << 36)) throw UsageError("--n must be in [0, 2^36] for the moddot family");
  Dataset d;
  d.family = "moddot";
  d.generator = spec.dist;
  d.seed = spec.seed;
  d.n = spec.n;
  d.x.resize(spec.n);
  d.y.resize(spec.n);
  datasets_detail::parallel_chunks(spec.n, [&](int64_t b, int64_t e) {
    generate_residues_range(spec, p, b, e, d.x.data() + b, d.y.data() + b);
  });
  d.data["p"] = std::to_string(p);
  d.id = next_dataset_id();
  return d;
}

Dataset read_residues(const std::string& path) {
  const std::string ext = file_extension(path);
  Dataset d;
  if (ext == ".npy")
    d = read_npy_residues(path);
  else if (ext == ".txt" || ext == ".csv")
    d = read_text_residues(path);
  else
    throw UsageError("'" + path + "': unknown extension for a moddot dataset (use .npy int64/uint64 (2, n), .txt or .csv)");
  d.family = "moddot";
  d.generator = "file";
  d.source = path;
  d.id = next_dataset_id();
  return d;
}

void encode_residues(const std::string& path, const Dataset& d, const std::function<void(const void*, size_t)>& emit) {
  const std::string ext = file_extension(path);
  const uint64_t p = prime_of(d.data);
  if (ext == ".npy") {
    std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (2, " + std::to_string(d.n) + "), }";
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
    std::vector<int64_t> buf;
    for (auto* src : {&d.x, &d.y})
      for (int64_t b = 0; b < d.n; b += 1 << 16) {
        const int64_t e = std::min<int64_t>(d.n, b + (1 << 16));
        buf.assign(src->begin() + b, src->begin() + e);
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
