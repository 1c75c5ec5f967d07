#pragma once
// Plugins (include/accsum/plugin.h): shared libraries that describe algorithms through a C ABI.
// Each plugin algorithm becomes one more registry entry (core/frame/registry.hpp), so `list`, `bench`,
// `verify`, `table`, the reproducibility checks and the reports treat it as they treat a
// built-in. The host owns every buffer and the oracle; the plugin only computes.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/frame/registry.hpp"
#include <accsum/plugin.h>

namespace accsum::plugins {

// One plugin algorithm as the host holds it.
struct PluginAlgo {
  std::string plugin;     // the plugin's own name
  std::string path;       // the file it was loaded from
  accsum_algorithm desc;  // copied; its pointers live as long as the library (never unloaded)
  std::string name;       // desc.name, owned
};

// Loads each shared library and registers its algorithms. UsageError (one line, exit 2) for a
// file that is not a loadable shared library, a missing entry point, another ABI version, an
// invalid descriptor, or a name already registered (a built-in or another plugin's).
void load(const std::vector<std::string>& paths);

// The paths of --plugin values and of $ACCSUM_PLUGINS: comma lists, in the order given.
std::vector<std::string> split_paths(const std::string& list);

// Every algorithm loaded so far.
const std::vector<std::unique_ptr<PluginAlgo>>& loaded();
const PluginAlgo* find(const std::string& algo_name);

// What is running, for the crash report: set by the harness for each dataset.
void note_dataset(const std::string& label);

// What a plugin may change for the whole process and the host relies on: while one of these is
// alive the standard output is the standard error (what a plugin prints never lands inside a
// JSON or CSV document on stdout); when it ends, the standard output is back and the locale is
// "C" again (a plugin's setlocale() would make strtod and printf read and write decimal commas
// in the command line and the reports). Nested guards share the outermost one's redirection.
class StdoutAndLocaleGuard {
 public:
  StdoutAndLocaleGuard();
  ~StdoutAndLocaleGuard();
  StdoutAndLocaleGuard(const StdoutAndLocaleGuard&) = delete;
  StdoutAndLocaleGuard& operator=(const StdoutAndLocaleGuard&) = delete;
};

// While alive, a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or a call of exit() or
// quick_exit() prints one line naming the plugin, the algorithm and the dataset, and the process
// exits with kCrashExit. `isolate`: the call also gets a StdoutAndLocaleGuard (false where one
// lives around many timed calls: its two dup2 calls would be timed with each).
constexpr int kCrashExit = 3;
class CallGuard {
 public:
  explicit CallGuard(const char* message, bool isolate = true);
  ~CallGuard();
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  std::optional<StdoutAndLocaleGuard> isolation_;
};
// The crash line for algo on the dataset noted last (prepared before the call, written by the
// signal handler without formatting).
std::string crash_message(const PluginAlgo& algo);

// The parameter values in the descriptor's order, and a call with them and the message buffer.
struct CallArgs {
  std::vector<std::string> values;
  std::vector<const char*> pointers;
  char message[512] = {0};
  void fill(const PluginAlgo& a, const Params& p);
};
// Throws std::runtime_error with the plugin's message when rc != 0 (the row is marked error).
void check_rc(const PluginAlgo& a, int rc, const char* message);

// Makers of plugin kernels on other backends than cpu (backends/cuda/plugin_cuda.cu).
using KernelMaker = std::unique_ptr<Kernel> (*)(const PluginAlgo&, const Problem&, const Params&);
struct BackendMakerRegistrar {
  BackendMakerRegistrar(int backend, KernelMaker make);
};

}  // namespace accsum::plugins
