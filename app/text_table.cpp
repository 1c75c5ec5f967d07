#include "app/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "app/report.hpp"

namespace accsum::cli {

std::string aligned_table(const TextRows& rows) {
  std::vector<size_t> width;
  for (auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string s;
  for (auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) line += fmt::format("{:<{}}  ", r[i], i + 1 < r.size() ? width[i] : 0);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += line + "\n";
  }
  return s;
}

std::string markdown_table(const TextRows& rows) {
  if (rows.empty()) return "";
  std::string s;
  for (size_t k = 0; k < rows.size(); ++k) {
    s += "|";
    for (auto& cell : rows[k]) s += " " + markdown_cell(cell) + " |";
    s += "\n";
    if (k == 0) {
      s += "|";
      for (size_t i = 0; i < rows[0].size(); ++i) s += " --- |";
      s += "\n";
    }
  }
  return s;
}

std::string csv_table(const TextRows& rows) {
  std::string s;
  for (auto& r : rows) s += csv_record(r);
  return s;
}

}  // namespace accsum::cli
