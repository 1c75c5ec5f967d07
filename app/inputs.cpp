#include "app/inputs.hpp"

#include "app/output.hpp"

namespace accsum::cli {

std::vector<std::unique_ptr<Dataset>> read_input_families(const std::string& path,
                                                          const std::vector<const FamilyDescriptor*>& families,
                                                          bool skip_unfit) {
  std::vector<std::unique_ptr<Dataset>> out;
  std::string first_error;
  for (auto* fam : families) {
    try {
      out.push_back(std::make_unique<Dataset>(fam->read(path)));
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
