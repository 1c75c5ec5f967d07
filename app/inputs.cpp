#include "app/inputs.hpp"

#include "app/output.hpp"

namespace accsum::cli {

std::vector<std::pair<std::string, std::unique_ptr<Dataset>>> read_input_families(
    const std::string& path, const std::vector<std::string>& families, bool skip_unfit) {
  std::vector<std::pair<std::string, std::unique_ptr<Dataset>>> out;
  std::string first_error;
  for (auto& fam : families) {
    try {
      out.emplace_back(fam, std::make_unique<Dataset>(read_dataset(path, fam)));
      out.back().second->source = utf8_safe(path);  // the report's JSON text must be UTF-8
    } catch (const UsageError& e) {
      if (!skip_unfit) throw;
      if (first_error.empty()) first_error = e.what();
    }
  }
  if (out.empty() && !families.empty()) throw UsageError(first_error);
  return out;
}

}  // namespace accsum::cli
