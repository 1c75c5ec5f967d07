#include "app/select.hpp"

#include <algorithm>
#include <set>

#include "app/parse.hpp"
#include "core/frame/family.hpp"

namespace accsum::cli {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool backend_usable(const std::string& b) {
  const BackendInfo* info = registry().backend(b);
  return info && (!info->available || info->available());
}

std::vector<Params> param_product(const AlgoEntry& e, const ParamLists& lists) {
  std::vector<Params> sets{Params{}};
  for (auto& spec : e.params) {
    auto it = lists.find(spec.name);
    if (it == lists.end()) continue;
    if (split_list(it->second).empty()) throw UsageError("parameter '" + spec.name + "' is given no value");
    std::vector<Params> next;
    for (auto& base : sets)
      for (auto& v : split_list(it->second)) {
        Params p = base;
        p[spec.name] = v;
        next.push_back(p);
      }
    sets = next;
  }
  for (auto& p : sets) p = registry().resolve_params(e, p);
  return sets;
}

}  // namespace

std::vector<Selection> select(const std::string& algos, const std::string& backends, const ParamLists& params,
                              bool add_baselines) {
  Registry& reg = registry();
  std::vector<std::string> names = algos == "all" ? reg.algo_names() : split_list(algos);
  if (names.empty()) throw UsageError("no algorithm given (--algo)");
  for (auto& a : names)
    if (!reg.has_algo(a)) throw UsageError("unknown algorithm '" + a + "' (known: " + join(reg.algo_names()) + ")");

  std::vector<std::string> wanted;
  const bool best = backends.empty() || backends == "best";
  if (!best) {
    wanted = backends == "all" ? reg.backend_names() : split_list(backends);
    for (auto& b : wanted) {
      if (!reg.backend(b))
        throw UsageError("unknown or not compiled-in backend '" + b + "' (available: " + join(reg.backend_names()) +
                         ")");
      if (backends != "all") require_backend(b);
    }
    if (backends == "all") {
      std::vector<std::string> usable;
      for (auto& b : wanted)
        if (backend_usable(b)) usable.push_back(b);
      wanted = usable;
    }
  }

  std::vector<Selection> out;
  auto add = [&](const AlgoEntry* e) {
    for (auto& s : out)
      if (s.entry == e) return;
    out.push_back({e, param_product(*e, params)});
  };
  for (auto& a : names) {
    if (best) {
      // Best available backend that has the algorithm: a GPU first, then all cores, then one.
      const AlgoEntry* pick = nullptr;
      for (auto& b : reg.backends_by_preference())
        if (!pick && reg.find(a, b) && backend_usable(b)) pick = reg.find(a, b);
      if (!pick && algos == "all") continue;  // e.g. cub-sum without a GPU
      if (!pick) throw UsageError("algorithm '" + a + "' has no backend present on this machine");
      if (algos == "all" && reg.backend(pick->backend)->across_processes) continue;
      add(pick);
      continue;
    }
    bool any = false;
    for (auto& b : wanted) {
      const AlgoEntry* e = reg.find(a, b);
      if (e) {
        add(e);
        any = true;
      } else if (algos != "all" && backends != "all") {  // an explicit pair that does not exist
        std::vector<std::string> has;
        for (auto& x : reg.entries())
          if (x.algo == a) has.push_back(x.backend);
        throw UsageError("algorithm '" + a + "' is not available on backend '" + b + "' (it runs on: " + join(has) +
                         ")");
      }
    }
    // --backend=all skips the pairs that do not exist, but an algorithm asked for by name must run somewhere.
    if (!any && algos != "all" && backends == "all")
      throw UsageError("algorithm '" + a + "' runs on none of the backends present here");
  }
  if (out.empty()) throw UsageError("no selected algorithm runs on the selected backends");
  for (auto& kv : params) {  // (no structured binding: clang < 16 cannot capture one in a lambda)
    const std::string& k = kv.first;
    bool used = std::any_of(out.begin(), out.end(), [&](const Selection& s) {
      return std::any_of(s.entry->params.begin(), s.entry->params.end(),
                         [&](const ParamSpec& p) { return p.name == k; });
    });
    if (!used) throw UsageError("no selected algorithm takes parameter '" + k + "'");
  }
  if (add_baselines) {
    std::set<std::pair<std::string, std::string>> fams;
    for (auto& s : out) fams.insert({s.entry->family, s.entry->backend});
    for (auto& [fam, b] : fams)
      if (const AlgoEntry* base = reg.baseline(fam, b)) add(base);
  }
  // Families in registration order, baselines first within each (family, backend), then
  // registration order.
  auto family_rank = [](const std::string& name) {
    auto& fs = families();
    for (size_t i = 0; i < fs.size(); ++i)
      if (fs[i].name == name) return i;
    return fs.size();
  };
  std::stable_sort(out.begin(), out.end(), [&](const Selection& a, const Selection& b) {
    if (a.entry->family != b.entry->family) return family_rank(a.entry->family) < family_rank(b.entry->family);
    if (a.entry->backend != b.entry->backend) return a.entry->backend < b.entry->backend;
    return a.entry->is_baseline > b.entry->is_baseline;
  });
  return out;
}

std::vector<std::string> backends_of(const std::vector<Selection>& sel) {
  std::vector<std::string> out;
  for (auto& b : registry().backend_names())
    for (auto& s : sel)
      if (s.entry->backend == b) {
        out.push_back(b);
        break;
      }
  return out;
}

std::vector<const FamilyDescriptor*> families_in_listing_order() {
  std::vector<const FamilyDescriptor*> fs;
  for (auto& f : families()) fs.push_back(&f);
  std::stable_sort(fs.begin(), fs.end(), [](auto* a, auto* b) { return a->listing_rank < b->listing_rank; });
  return fs;
}

}  // namespace accsum::cli
