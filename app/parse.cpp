#include "app/parse.hpp"

#include <cctype>
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

namespace {
bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }
}  // namespace

int64_t parse_size(const std::string& s) {
  auto bad = [&] { return UsageError("invalid size '" + s + "' (use e.g. 1000000, 1e6 or 2^24; at least 1)"); };
  auto too_large = [&] { return UsageError("size '" + s + "' is too large"); };
  constexpr uint64_t kMaxSize = uint64_t(1) << 62;
  auto caret = s.find('^');
  if (caret != std::string::npos) {
    // base^exponent, both plain decimal integers: no sign, fraction, exponent or NaN ("-2^2",
    // "4^0.5", "2^", "nan^0" are refused, not read as 4, 2 or 1).
    const std::string base_text = s.substr(0, caret), ex_text = s.substr(caret + 1);
    if (!all_digits(base_text) || !all_digits(ex_text)) throw bad();
    if (base_text.size() > 19 || ex_text.size() > 19) throw too_large();
    const uint64_t base = std::stoull(base_text), ex = std::stoull(ex_text);
    if (base == 0) throw bad();
    uint64_t v = 1;
    for (uint64_t k = 0; k < ex && base > 1; ++k)
      if (__builtin_mul_overflow(v, base, &v) || v > kMaxSize) throw too_large();
    return static_cast<int64_t>(v);
  }
  // A decimal number (1000000, 1e6, 2.5e3): no sign, leading space, hex, NaN or infinity.
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])) || s.find_first_of("xXpP") != std::string::npos)
    throw bad();
  char* end = nullptr;
  const long double v = std::strtold(s.c_str(), &end);
  if (*end || !std::isfinite(static_cast<double>(v)) || v < 1 || v != std::floor(v)) throw bad();
  if (v > static_cast<long double>(kMaxSize)) throw too_large();
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
