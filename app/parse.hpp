#pragma once
// Parsing of the CLI's value syntax: sizes ("1e6", "2^24", "16777216"), lists ("2,3,4") and
// doubling ranges of sizes ("2^10:2^28").
#include <cstdint>
#include <string>
#include <vector>

namespace accsum::cli {

std::vector<std::string> split_list(const std::string& s);      // on commas, trimmed; an empty element throws
int64_t parse_size(const std::string& s);                       // throws UsageError
std::vector<int64_t> parse_sizes(const std::string& s);         // list of sizes and a:b doubling ranges
double parse_positive(const std::string& s, const char* what);  // finite double >= 1
std::string format_size(int64_t n);                             // "2^24" when a power of two

}  // namespace accsum::cli
