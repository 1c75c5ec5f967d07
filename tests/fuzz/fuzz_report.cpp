// libFuzzer target: compare's report reader. The input is written to a file and read as `accsum
// compare` reads a report (app/report_reader.hpp: size, nesting and number checks; app/compare.hpp
// load: the report's structure), then judged against itself and against an empty report. Bad input
// may only be a UsageError; anything else escaping (a type error, a stack overflow) is a bug.
#include "app/compare.hpp"
#include "app/report_reader.hpp"
#include "base/vocabulary.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace accsum::cli::compare;
  static const std::string path = accsum_fuzz::temp_path(".json");
  accsum_fuzz::write_file(path, data, size);
  try {
    std::string not_report;
    const Report r = load(path, accsum::cli::kJsonMaxBytes, &not_report);
    if (!not_report.empty()) return 0;
    Options o;
    o.force = true;  // speed judged too
    Outcome out;
    compare_reports(r, r, o, "", out);
    compare_reports(r, Report{}, o, "file.json", out);
    compare_reports(Report{}, r, o, "file.json", out);
    (void)out.summary();
  } catch (const accsum::UsageError&) {
  }
  return 0;
}
