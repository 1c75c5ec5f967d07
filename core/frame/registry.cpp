#include "core/frame/registry.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <set>

#ifndef ACCSUM_BACKENDS
#error "CMake defines ACCSUM_BACKENDS, the compiled-in backends (comma-separated)"
#endif

namespace accsum {

namespace {
constexpr double kWholeRangeSweep = 16;  // a shorter integer range is swept value by value
constexpr int kLogSteps = 4;             // log-spaced steps between the ends of each sign

// Log-spaced magnitudes from lo to hi (1 <= lo <= hi), the ends included.
std::vector<long long> log_spaced(long long lo, long long hi) {
  std::vector<long long> out;
  const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi));
  for (int k = 0; k <= kLogSteps; ++k) {
    const double m = std::exp(a + (b - a) * k / kLogSteps);
    out.push_back(k == 0 ? lo : k == kLogSteps || m >= static_cast<double>(hi) ? hi : std::max(lo, std::llround(m)));
  }
  return out;
}
}  // namespace

std::vector<std::string> swept_values(const ParamSpec& spec) {
  if (!spec.choices.empty() || !spec.is_int || spec.min > spec.max) return spec.choices;
  std::set<long long> v;
  if (static_cast<double>(spec.max) - static_cast<double>(spec.min) < kWholeRangeSweep) {
    for (long long x = spec.min; x <= spec.max; ++x) v.insert(x);
  } else {
    v = {spec.min, spec.max};
    char* end = nullptr;
    const long long def = std::strtoll(spec.def.c_str(), &end, 10);
    if (!spec.def.empty() && !*end) v.insert(def);
    if (spec.max >= 1)
      for (long long m : log_spaced(std::max(spec.min, 1LL), spec.max)) v.insert(m);
    if (spec.min <= -1) {
      const long long hi = spec.min == LLONG_MIN ? LLONG_MAX : -spec.min;
      for (long long m : log_spaced(spec.max <= -1 ? -spec.max : 1, hi)) v.insert(m == hi ? spec.min : -m);
    }
    if (spec.min <= 0 && spec.max >= 0) v.insert(0);
  }
  std::vector<std::string> out;
  for (long long x : v) out.push_back(std::to_string(x));
  return out;
}

// The names of the guarantees, in the order of enum Guarantee.
constexpr const char* kGuaranteeNames[] = {"none", "k-fold", "faithful", "correctly-rounded", "exact", "bound"};
static_assert(std::size(kGuaranteeNames) == static_cast<size_t>(Guarantee::bound) + 1, "one name per guarantee");

const char* to_string(Guarantee g) {
  const auto i = static_cast<size_t>(g);
  return i < std::size(kGuaranteeNames) ? kGuaranteeNames[i] : "?";
}

double proven_bound(const AlgoEntry& e, const Params& p, const ExactFacts& f, std::string* outside) {
  if (!e.bound) return -1;
  std::string why = e.domain ? e.domain(p, f) : "";
  if (outside) *outside = why;
  return why.empty() ? e.bound(p, f) : -1;
}

Registry& registry() {
  static Registry r;
  return r;
}

void Registry::add_one(AlgoEntry e) {
  for (auto& w : wrappers_) e.make = w(std::move(e.make), e);
  for (auto& old : entries_)
    if (old.algo == e.algo && old.backend == e.backend) {
      if (e.composed) return;  // an explicit one is already there
      if (!old.composed) throw std::logic_error("registered twice: " + e.algo + "/" + e.backend);
      old = std::move(e);
      return;
    }
  entries_.push_back(std::move(e));
}

void Registry::add(AlgoEntry e) {
  std::vector<AlgoEntry> twins;
  for (auto& c : composers_) {
    AlgoEntry t;
    if (c(e, t)) twins.push_back(std::move(t));
  }
  add_one(std::move(e));
  for (auto& t : twins) {
    t.composed = true;
    add_one(std::move(t));
  }
}

void Registry::add_composer(Composer c) {
  composers_.push_back(c);
  const std::vector<AlgoEntry> existing = entries_;
  for (auto& e : existing) {
    AlgoEntry t;
    if (!c(e, t)) continue;
    t.composed = true;
    add_one(std::move(t));
  }
}

void Registry::add_wrapper(MakeWrapper w) {
  for (auto& e : entries_) e.make = w(std::move(e.make), e);
  wrappers_.push_back(std::move(w));
}

void Registry::add_backend(BackendInfo b) { backends_.push_back(std::move(b)); }

const AlgoEntry* Registry::find(const std::string& algo, const std::string& backend) const {
  for (auto& e : entries_)
    if (e.algo == algo && e.backend == backend) return &e;
  return nullptr;
}

const BackendInfo* Registry::backend(const std::string& name) const {
  for (auto& b : backends_)
    if (b.name == name) return &b;
  return nullptr;
}

const AlgoEntry* Registry::baseline(const std::string& family, const std::string& backend) const {
  for (auto& e : entries_)
    if (e.is_baseline && e.family == family && e.backend == backend) return &e;
  return nullptr;
}

std::vector<const AlgoEntry*> Registry::entries_of(const std::string& family, const std::string& backend) const {
  std::vector<const AlgoEntry*> out;
  for (auto& e : entries_)
    if (e.family == family && e.backend == backend) out.push_back(&e);
  return out;
}

std::vector<std::string> Registry::algo_names() const {
  std::vector<std::string> names;
  for (auto& e : entries_)
    if (std::find(names.begin(), names.end(), e.algo) == names.end()) names.push_back(e.algo);
  return names;
}

const std::vector<std::string>& compiled_backends() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    std::string rest = ACCSUM_BACKENDS;  // CMake: "cpu,cpu-mt,..."
    for (size_t comma; (comma = rest.find(',')) != std::string::npos; rest.erase(0, comma + 1))
      out.push_back(rest.substr(0, comma));
    out.push_back(rest);
    return out;
  }();
  return names;
}

std::vector<std::string> Registry::backend_names() const {
  const std::vector<std::string>& names = compiled_backends();
  for (auto& b : backends_)
    if (std::find(names.begin(), names.end(), b.name) == names.end())
      throw std::logic_error("backend '" + b.name + "' registered but missing from the backend list (ACCSUM_BACKENDS)");
  for (auto& n : names)
    if (!backend(n)) throw std::logic_error("backend '" + n + "' compiled in but not registered (no BackendInfo)");
  return names;
}

std::vector<std::string> Registry::backends_by_preference() const {
  std::vector<std::string> names = backend_names();
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return backend(a)->best_rank < backend(b)->best_rank;
  });
  return names;
}

bool Registry::has_algo(const std::string& algo) const {
  for (auto& e : entries_)
    if (e.algo == algo) return true;
  return false;
}

Params Registry::resolve_params(const AlgoEntry& e, const Params& user) const {
  Params out;
  for (auto& kv : user) {  // (no structured binding: clang < 16 cannot capture one in the lambda)
    const std::string& k = kv.first;
    bool known = std::any_of(e.params.begin(), e.params.end(), [&](const ParamSpec& s) { return s.name == k; });
    if (!known) throw UsageError("algorithm '" + e.algo + "' has no parameter '" + k + "'");
  }
  for (auto& s : e.params) {
    auto it = user.find(s.name);
    std::string v = it == user.end() ? s.def : it->second;
    if (s.is_int) {
      long long iv;
      size_t used = 0;
      try {
        iv = std::stoll(v, &used);
      } catch (...) {
        used = 0;
      }
      if (used == 0 || used != v.size())
        throw UsageError(e.algo + ": parameter " + s.name + "=" + v + " is not an integer");
      if (iv < s.min || iv > s.max)
        throw UsageError(e.algo + ": parameter " + s.name + "=" + v + " out of range [" + std::to_string(s.min) + ", " +
                         std::to_string(s.max) + "]");
      v = std::to_string(iv);
    }
    if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), v) == s.choices.end()) {
      std::string list;
      for (auto& c : s.choices) list += (list.empty() ? "" : ", ") + c;
      throw UsageError(e.algo + ": parameter " + s.name + "=" + v + " not allowed (one of: " + list + ")");
    }
    out[s.name] = v;
  }
  return out;
}

Params with_param(Params p, const std::string& name, const std::string& value) {
  p[name] = value;
  return p;
}

std::vector<Params> variants_of(const Params& p, const std::string& name, const std::vector<std::string>& values) {
  std::vector<Params> out;
  std::set<std::string> seen;  // a value named twice (the default thread count is 2) is one variant
  for (auto& v : values)
    if (seen.insert(v).second) out.push_back(with_param(p, name, v));
  return out;
}

void require_backend(const std::string& name) {
  static std::mutex m;
  static std::set<std::string> passed;
  std::lock_guard<std::mutex> lock(m);
  if (passed.count(name)) return;
  const BackendInfo* b = registry().backend(name);
  if (!b) {
    std::string list;
    for (auto& n : registry().backend_names()) list += (list.empty() ? "" : ", ") + n;
    throw UsageError("unknown or not compiled-in backend '" + name + "' (available: " + list + ")");
  }
  if (b->available && !b->available())
    throw UsageError("backend '" + name + "' is not present on this machine (" + b->summary + ")");
  if (b->self_test && !b->self_test())
    throw UsageError("backend '" + name +
                     "' failed its error-free-transform self-test (FMA contraction or fast-math?); refusing to run");
  passed.insert(name);
}

}  // namespace accsum
