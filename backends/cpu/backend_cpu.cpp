// The serial reference backend: the readable definition of every algorithm.
#include <fstream>
#include <string>
#include <thread>

#include "core/numerics/eft.hpp"
#include "core/frame/machine.hpp"
#include "core/frame/registry.hpp"

namespace accsum {

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

namespace {

Registrar reg_cpu(BackendInfo{
    "cpu", "serial reference on one core", [] { return true; }, [] { return eft_self_test(); },
    [] {
      return cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
    }}.ranked_for_best(2));

}  // namespace
}  // namespace accsum
