#pragma once
// Tables of text cells for the console, Markdown and CSV: each column as wide as its widest cell,
// so long names (cublas-dgemm-fixedpoint) and long lists never run into the next column. The
// first row is the header.
#include <string>
#include <vector>

namespace accsum::cli {

using TextRows = std::vector<std::vector<std::string>>;

// Columns separated by two spaces, left-aligned (trailing spaces trimmed).
std::string aligned_table(const TextRows& rows);
// A GitHub Markdown table, '|' escaped in cells.
std::string markdown_table(const TextRows& rows);
// RFC 4180 records (app/report.hpp csv_record).
std::string csv_table(const TextRows& rows);

}  // namespace accsum::cli
