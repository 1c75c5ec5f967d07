#pragma once
// Facts about the host, shared by the cpu backend's description and the report's `machine`.
#include <string>

namespace accsum {
std::string cpu_model();  // "model name" of /proc/cpuinfo, or "unknown CPU"
}  // namespace accsum
