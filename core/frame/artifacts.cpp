#include "core/frame/artifacts.hpp"

namespace accsum {
namespace {
ArtifactWriter& installed() {
  static ArtifactWriter writer;
  return writer;
}
}  // namespace

void set_artifact_writer(ArtifactWriter writer) { installed() = std::move(writer); }

void write_artifact(const std::string& dir, const std::string& name, const std::string& bytes) {
  if (installed()) installed()(dir, name, bytes);
}

}  // namespace accsum
