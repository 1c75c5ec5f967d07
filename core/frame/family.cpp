#include "core/frame/family.hpp"

namespace accsum {
namespace {
std::vector<FamilyDescriptor>& store() {
  static std::vector<FamilyDescriptor> s;
  return s;
}
}  // namespace

const DataOption* find_option(const FamilyDescriptor& f, const std::string& name) {
  for (auto& o : f.options)
    if (o.name == name) return &o;
  return nullptr;
}

void register_family(FamilyDescriptor f) {
  if (find_family(f.name)) throw std::logic_error("family registered twice: " + f.name);
  store().push_back(std::move(f));
}

const std::vector<FamilyDescriptor>& families() { return store(); }

const FamilyDescriptor* find_family(const std::string& name) {
  for (auto& f : store())
    if (f.name == name) return &f;
  return nullptr;
}

const FamilyDescriptor& family(const std::string& name) {
  if (auto* f = find_family(name)) return *f;
  std::string known;
  for (auto& f : store()) known += (known.empty() ? "" : ", ") + f.name;
  throw UsageError("unknown family '" + name + "' (known: " + known + ")");
}

}  // namespace accsum
