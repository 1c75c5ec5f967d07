#pragma once
// Files a backend writes for inspection beside the results (ACCSUM_OPENCL_DUMP: each built OpenCL
// program). The tool installs the writer (app/output.hpp write_into_directory: the directory must
// exist, each file is a new file renamed into place, so a link planted under the name is replaced,
// never followed); without one (the C library) nothing is written.
#include <functional>
#include <string>

namespace accsum {

using ArtifactWriter = std::function<void(const std::string& dir, const std::string& name, const std::string& bytes)>;

void set_artifact_writer(ArtifactWriter writer);
// Writes dir/name through the installed writer (its errors propagate: UsageError, exit 2).
void write_artifact(const std::string& dir, const std::string& name, const std::string& bytes);

}  // namespace accsum
