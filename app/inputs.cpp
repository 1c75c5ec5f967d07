#include "app/inputs.hpp"

#include "app/output.hpp"

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

std::vector<std::unique_ptr<Dataset>> read_input_families(const std::string& path, const Params& options,
                                                          const std::vector<const FamilyDescriptor*>& families,
                                                          bool skip_unfit) {
  std::vector<std::unique_ptr<Dataset>> out;
  std::string first_error;
  for (auto* fam : families) {
    try {
      out.push_back(std::make_unique<Dataset>(read_one(*fam, path, options)));
      out.back()->source = utf8_safe(path);  // the report's JSON text must be UTF-8
    } catch (const UsageError& e) {
      if (!skip_unfit) throw;
      if (first_error.empty()) first_error = e.what();
    }
  }
  if (out.empty() && !families.empty()) throw UsageError(first_error);
  return out;
}

}  // namespace accsum::cli
