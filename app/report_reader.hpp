#pragma once
// The one reader of the JSON documents accsum reads (compare's reports). Every document is
//   * a regular file, opened without blocking (a FIFO or a device is refused at once), judged by
//     the size of the opened descriptor (fstat) before a byte is read: larger than the limit
//     (kJsonMaxBytes unless --max-size says otherwise), or larger than the memory available can
//     parse (kJsonMemoryPerByte bytes per byte of text), it is refused;
//   * refused when arrays and objects nest more than kJsonMaxDepth deep (a linear scan before the
//     parser runs), so no tree is built, and no later walk over one recurses, without bound;
//   * refused with one line (UsageError, exit 2) for anything else that is not JSON, numbers
//     out of the double range included (main cuts every error line to kMessageMaxBytes).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace accsum::cli {

// Arrays and objects nested deeper than this are refused (a report nests about 6 deep).
constexpr int kJsonMaxDepth = 64;
// The default largest document read (the committed reports are at most about 1 MB).
constexpr uint64_t kJsonMaxBytes = uint64_t(64) << 20;
// Memory one byte of JSON text takes once parsed, at most (the text and nlohmann::json's tree;
// maximum resident size measured: 8.5 per byte on a 20 MB report, 36 on 18 MB of empty objects,
// the worst kind of document).
constexpr double kJsonMemoryPerByte = 40;

// Reads and parses the document at path; UsageError (naming the file) when it cannot or must not.
nlohmann::json read_json_file(const std::string& path, uint64_t max_bytes = kJsonMaxBytes);

// Parses text (the contents of `path`, which names it in errors) with the depth bound above.
nlohmann::json parse_json_text(const std::string& text, const std::string& path);

}  // namespace accsum::cli
