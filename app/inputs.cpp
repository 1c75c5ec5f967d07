#include "app/inputs.hpp"

#include "datasets/npy_input.hpp"

namespace accsum::cli {

namespace {
Dataset read_one(const FamilyDescriptor& fam, const std::string& path, const Params& options) {
  if (options.empty()) return fam.read(path);
  for (auto& [name, value] : options) {
    const DataOption* o = find_option(fam, name);
    if (!o || !o->for_files || !fam.read_with)
      throw UsageError("--" + name + " does not apply to a " + fam.name + " input file");
  }
  return fam.read_with(path, options);
}
}  // namespace

std::vector<NamedPath> input_files(const std::string& input) {
  if (input.empty()) return {};
  std::vector<NamedPath> out;
  for (auto& p : input_paths(input)) out.push_back({"--input", p});
  if (out.size() > 1) out.push_back({"--input", input});
  return out;
}

std::unique_ptr<Dataset> read_input(const std::string& path, const Params& options, const FamilyDescriptor& family) {
  auto d = std::make_unique<Dataset>(read_one(family, path, options));
  d->source = utf8_safe(path);  // the report's JSON text must be UTF-8
  return d;
}

}  // namespace accsum::cli
