#pragma once
// Reporting: the accsum-report/1 JSON document, console table, CSV and Markdown. Reports know
// nothing of kernels: they read ResultRow / RunRecord only.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/harness.hpp"

namespace accsum::cli {

nlohmann::json machine_json(const std::vector<std::string>& backends);
nlohmann::json report_json(const std::vector<RunRecord>& runs, const std::vector<std::string>& argv,
                           const std::vector<std::string>& backends);
std::string report_table(const std::vector<RunRecord>& runs);  // console
std::string report_csv(const std::vector<RunRecord>& runs);
std::string report_markdown(const std::vector<RunRecord>& runs);

// Fails early (UsageError) when path cannot be written, before any long run.
void check_writable(const std::string& path);
// Writes path as app/output.hpp says (regular files: a temporary file renamed; never half-written).
void write_atomic(const std::string& path, const std::string& content);

std::string json_number_or_string(double v);  // for tables: "nan", "inf" or %.3g
nlohmann::json jnum(double v);                // NaN/inf as strings (JSON has no such numbers)

}  // namespace accsum::cli
