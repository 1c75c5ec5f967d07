#include "app/parse.hpp"

#include <cmath>
#include <cstdlib>

#include "core/frame/registry.hpp"

namespace accsum::cli {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  if (s.find_first_not_of(" \t") == std::string::npos) return out;  // nothing given: the caller says what is missing
  std::string cur;
  auto flush = [&] {
    size_t b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
    // "2,,3", "sumk,", ",": an empty element is a typo, not something to drop silently.
    if (b == std::string::npos) throw UsageError("empty element in the list '" + s + "'");
    out.push_back(cur.substr(b, e - b + 1));
    cur.clear();
  };
  for (char c : s) {
    if (c == ',')
      flush();
    else
      cur += c;
  }
  flush();
  return out;
}

int64_t parse_size(const std::string& s) {
  auto bad = [&] { return UsageError("invalid size '" + s + "' (use e.g. 1000000, 1e6 or 2^24; at least 1)"); };
  if (s.empty()) throw bad();
  long double v;
  auto caret = s.find('^');
  char* end = nullptr;
  if (caret != std::string::npos) {
    // named: `end` points into them (a temporary's buffer is gone when *end is read; found by fuzz_cli)
    const std::string base_text = s.substr(0, caret), ex_text = s.substr(caret + 1);
    long double base = std::strtold(base_text.c_str(), &end);
    if (*end) throw bad();
    long double ex = std::strtold(ex_text.c_str(), &end);
    if (*end) throw bad();
    v = std::pow(base, ex);
  } else {
    v = std::strtold(s.c_str(), &end);
    if (*end) throw bad();
  }
  if (!std::isfinite((double)v) || v < 1 || v != std::floor(v)) throw bad();
  if (v > 0x1p62L) throw UsageError("size '" + s + "' is too large");
  return static_cast<int64_t>(v);
}

std::vector<int64_t> parse_sizes(const std::string& s) {
  std::vector<int64_t> out;
  for (auto& item : split_list(s)) {
    auto colon = item.find(':');
    if (colon == std::string::npos) {
      out.push_back(parse_size(item));
      continue;
    }
    int64_t a = parse_size(item.substr(0, colon)), b = parse_size(item.substr(colon + 1));
    if (a > b) throw UsageError("size range '" + item + "' is empty");
    for (int64_t v = a; v <= b; v = v > b / 2 ? b + 1 : 2 * v) out.push_back(v);  // no signed overflow at 2^62
  }
  if (out.empty()) throw UsageError("no size given");
  return out;
}

double parse_positive(const std::string& s, const char* what) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !std::isfinite(v) || v < 1)
    throw UsageError(std::string(what) + " '" + s + "' must be a finite number >= 1");
  return v;
}

std::string format_size(int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) < n) ++k;
    if (k >= 10) return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

}  // namespace accsum::cli
