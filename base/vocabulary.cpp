#include "base/vocabulary.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>

namespace accsum {

long long param_int(const Params& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) throw std::logic_error("parameter not resolved: " + name);
  return std::stoll(it->second);
}

double option_number(const Params& p, const std::string& name, double def, double at_least) {
  auto it = p.find(name);
  if (it == p.end()) return def;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end || !std::isfinite(v) || v < at_least)
    throw UsageError("--" + name + " '" + it->second + "' must be a finite number" +
                     (at_least > -HUGE_VAL ? " >= " + fmt::format("{:g}", at_least) : std::string()));
  return v;
}

float data_float(const Params& data, const std::string& name, float def) {
  auto it = data.find(name);
  return it == data.end() ? def : std::strtof(it->second.c_str(), nullptr);
}
double data_double(const Params& data, const std::string& name, double def) {
  auto it = data.find(name);
  return it == data.end() ? def : std::strtod(it->second.c_str(), nullptr);
}

const std::string& param_str(const Params& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) throw std::logic_error("parameter not resolved: " + name);
  return it->second;
}

std::string params_str(const Params& p, const char* sep) {
  std::string s;
  for (auto& [k, v] : p) s += (s.empty() ? "" : sep) + k + "=" + v;
  return s;
}

uint64_t next_dataset_id() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

}  // namespace accsum
