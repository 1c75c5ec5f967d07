#include "core/frame/plugins.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <locale>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "base/printable.hpp"
#include "core/frame/family.hpp"
#include "core/frame/plugin_guard.hpp"

namespace accsum::plugins {

namespace {

std::vector<std::unique_ptr<PluginAlgo>>& algos() {
  static std::vector<std::unique_ptr<PluginAlgo>> a;
  return a;
}

std::map<int, KernelMaker>& makers() {
  static std::map<int, KernelMaker> m;
  return m;
}

std::string& dataset_label() {
  static std::string s = "(no dataset yet)";
  return s;
}

// ---- the crash report: plain memory only in the handler ----
const char* volatile g_running = nullptr;  // the prepared line while a plugin call runs
const int kFatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[sizeof kFatal / sizeof kFatal[0]];

void write_all(const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// The name `names` gives `key` (a signal, a C API enumerator), or `otherwise`. Async-signal-safe.
const char* name_of(int key, std::initializer_list<std::pair<int, const char*>> names, const char* otherwise) {
  for (const auto& [k, name] : names)
    if (k == key) return name;
  return otherwise;
}

const char* signal_name(int sig) {
  return name_of(
      sig, {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGILL, "SIGILL"}, {SIGABRT, "SIGABRT"}},
      "a fatal signal");
}

extern "C" void on_plugin_crash(int sig) {
  const char* line = g_running;
  if (line) {
    write_all(line, std::strlen(line));
    const char* name = signal_name(sig);
    write_all(name, std::strlen(name));
    write_all(")\n", 2);
    ::_exit(kCrashExit);
  }
  for (size_t i = 0; i < sizeof kFatal / sizeof kFatal[0]; ++i)  // not in a plugin: as before
    if (kFatal[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  ::raise(sig);
}

// A plugin that calls exit() or quick_exit() during a call would end the run with its status
// (0: a CI gate passes with no output); the process leaves through here instead.
extern "C" void on_exit_in_plugin() {
  const char* line = g_running;
  if (!line) return;
  write_all(line, std::strlen(line));
  write_all("called exit)\n", 13);
  ::_exit(kCrashExit);
}

// A copy of the real standard output: during a plugin call fd 1 is the standard error, so what a
// plugin prints never lands inside a JSON or CSV document on stdout.
int g_stdout_copy = -1;
int g_isolation_depth = 0;  // StdoutAndLocaleGuards alive

void install_crash_handler() {
  static bool done = false;
  if (done) return;
  done = true;
  g_stdout_copy = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  std::atexit(on_exit_in_plugin);
  std::at_quick_exit(on_exit_in_plugin);
  // An alternate stack, so a plugin that overflows its stack is still reported.
  static char alt[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  ::sigaltstack(&ss, nullptr);
  for (size_t i = 0; i < sizeof kFatal / sizeof kFatal[0]; ++i) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_plugin_crash;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(kFatal[i], &sa, &g_previous[i]);
  }
}

// ---- validating a descriptor ----
bool valid_name(const char* s, bool first_alpha_only) {
  if (!s || !*s || std::strlen(s) > 64) return false;
  for (const char* c = s; *c; ++c) {
    const bool alnum = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
    const bool punct = first_alpha_only ? *c == '_' : (*c == '_' || *c == '-' || *c == '.');
    if (c == s ? !(first_alpha_only ? (*c >= 'a' && *c <= 'z') : alnum) : !(alnum || punct)) return false;
  }
  return true;
}

const char* family_name(int f) {
  return name_of(f, {{ACCSUM_FAMILY_SUM, "sum"}, {ACCSUM_FAMILY_DOT, "dot"}, {ACCSUM_FAMILY_GEMM, "gemm"}}, nullptr);
}

const char* backend_name(int b) {
  return name_of(b, {{ACCSUM_BACKEND_CPU, "cpu"}, {ACCSUM_BACKEND_CUDA, "cuda"}}, nullptr);
}

// The guarantee a C API claim promises, or null for an unknown claim.
const Guarantee* claimed_guarantee(int claim) {
  static const std::pair<int, Guarantee> kClaims[] = {{ACCSUM_CLAIM_NONE, Guarantee::none},
                                                      {ACCSUM_CLAIM_BOUND, Guarantee::bound},
                                                      {ACCSUM_CLAIM_FAITHFUL, Guarantee::faithful},
                                                      {ACCSUM_CLAIM_CORRECTLY_ROUNDED, Guarantee::correctly_rounded}};
  for (const auto& [c, g] : kClaims)
    if (c == claim) return &g;
  return nullptr;
}

ParamSpec param_spec(const std::string& where, const accsum_param& q) {
  if (!valid_name(q.name, true)) throw UsageError(where + ": invalid parameter name (want [a-z][a-z0-9_]*)");
  ParamSpec s;
  s.name = q.name;
  s.help = q.help ? q.help : "";
  if (!q.default_value) throw UsageError(where + ": parameter '" + s.name + "' has no default value");
  s.def = q.default_value;
  if (q.choices) {
    s.is_int = false;
    s.verify_every_choice = true;  // the claim must hold for each value
    for (const char* const* c = q.choices; *c; ++c) {
      if (s.choices.size() > 256)
        throw UsageError(where + ": parameter '" + s.name + "' has no NULL after its choices");
      s.choices.push_back(*c);
    }
    if (s.choices.empty()) throw UsageError(where + ": parameter '" + s.name + "' allows no value");
    bool found = false;
    for (auto& c : s.choices) found |= c == s.def;
    if (!found)
      throw UsageError(where + ": parameter '" + s.name + "' default '" + s.def + "' is not one of its choices");
  } else {
    s.is_int = true;
    s.verify_every_choice = true;  // its ends and log-spaced points (swept_values)
    s.min = q.min;
    s.max = q.max;
    char* end = nullptr;
    long long d = std::strtoll(s.def.c_str(), &end, 10);
    if (q.min > q.max || s.def.empty() || *end || d < q.min || d > q.max)
      throw UsageError(where + ": parameter '" + s.name + "' default '" + s.def + "' is not an integer in [" +
                       std::to_string(q.min) + ", " + std::to_string(q.max) + "]");
  }
  return s;
}

// Every combination of the parameters' values (swept_values: choices, or an integer range's ends,
// default and log-spaced points): what a reproducible algorithm must give the same bits for.
std::vector<Params> every_value(const std::vector<ParamSpec>& specs) {
  constexpr size_t kMaxVariants = 16;
  std::vector<Params> sets{Params{}};
  for (auto& s : specs) {
    std::vector<Params> next;
    for (auto& base : sets)
      for (auto& v : swept_values(s)) {
        if (next.size() >= kMaxVariants) break;
        Params p = base;
        p[s.name] = v;
        next.push_back(p);
      }
    sets = next;
  }
  return sets;
}

accsum_facts to_facts(const ExactFacts& f) {
  accsum_facts a{};
  a.n = f.n;
  a.abs_exact = f.abs_sum;
  a.sum_abs = f.sum_abs;
  a.max_abs_x = f.max_abs_x;
  a.max_abs_y = f.max_abs_y;
  a.products_underflow = f.products_underflow;
  a.partial_sums_may_overflow = f.partial_sums_may_overflow;
  return a;
}

double stated_bound(const PluginAlgo& a, const Params& p, const ExactFacts& f) {
  CallArgs args;
  args.fill(a, p);
  const accsum_facts facts = to_facts(f);
  const std::string line = crash_message(a);
  CallGuard guard(line.c_str());
  return a.desc.bound(&facts, args.pointers.data());
}

// The one line and exit code of a plugin that broke out of its call in a way no signal reports.
[[noreturn]] void die(const std::string& line, const char* why) {
  std::fflush(stdout);
  const std::string text = line + why + ")\n";
  write_all(text.data(), text.size());
  ::_exit(kCrashExit);
}

template <class T>
GuardedBuffer input_copy(const T* p, int64_t count) {
  return GuardedBuffer::read_only_copy(p, p ? static_cast<size_t>(count) * sizeof(T) : 0);
}

// The cpu kernel: the inputs copied into read-only guarded buffers and the outputs guarded
// (core/frame/plugin_guard.hpp), and stdout and the locale guarded, for the kernel's life; the
// call alone is what is timed.
class CpuKernel : public Kernel {
 public:
  CpuKernel(const PluginAlgo& a, const Problem& p, const Params& q) : a_(a), crash_(crash_message(a)) {
    args_.fill(a, q);
    const bool gemm = a.desc.family == ACCSUM_FAMILY_GEMM;
    const float beta = data_float(p.data, "beta", 0.0f);
    if (gemm) {
      a_in_ = input_copy(p.a, p.rows * p.inner);
      b_in_ = input_copy(p.b, p.inner * p.cols);
      if (beta != 0.0f) c_in_ = input_copy(p.c, p.rows * p.cols);
      out_ = GuardedBuffer(static_cast<size_t>(p.rows * p.cols) * sizeof(float));
    } else {
      x_in_ = input_copy(p.x, p.n);
      y_in_ = input_copy(p.y, p.n);
      out_ = GuardedBuffer(sizeof(double));
    }
    call_.x = p.x ? static_cast<const double*>(x_in_.data()) : nullptr;
    call_.y = p.y ? static_cast<const double*>(y_in_.data()) : nullptr;
    call_.n = p.n;
    call_.a = p.a ? static_cast<const float*>(a_in_.data()) : nullptr;
    call_.b = p.b ? static_cast<const float*>(b_in_.data()) : nullptr;
    call_.c = beta != 0.0f && p.c ? static_cast<const float*>(c_in_.data()) : nullptr;
    call_.rows = p.rows;
    call_.cols = p.cols;
    call_.inner = p.inner;
    call_.alpha = data_float(p.data, "alpha", 1.0f);
    call_.beta = beta;
    call_.result = gemm ? nullptr : static_cast<double*>(out_.data());
    call_.c_out = gemm ? static_cast<float*>(out_.data()) : nullptr;
    call_.param_values = args_.pointers.data();
    call_.param_count = static_cast<int>(args_.values.size());
    call_.message = args_.message;
    call_.message_size = sizeof args_.message;
  }
  void execute() override {
    args_.message[0] = 0;
    int rc;
    {
      CallGuard guard(crash_.c_str(), /*isolate=*/false);  // isolation_ lives around every call
      rc = a_.desc.compute(&call_);
    }
    check_rc(a_, rc, args_.message);
  }
  Result result() override {
    if (!out_.slack_intact()) die(crash_, "wrote before its output buffer");
    if (call_.result) return Result::scalar(call_.result[0]);
    const size_t count = static_cast<size_t>(call_.rows * call_.cols);
    return Result{std::vector<double>(call_.c_out, call_.c_out + count), {}, {}};
  }

 private:
  const PluginAlgo& a_;
  std::string crash_;
  CallArgs args_;
  accsum_call call_{};
  GuardedBuffer x_in_, y_in_, a_in_, b_in_, c_in_, out_;
  StdoutAndLocaleGuard isolation_;
};

std::unique_ptr<Kernel> make_kernel(const PluginAlgo& a, const Problem& p, const Params& q) {
  if (a.desc.backend == ACCSUM_BACKEND_CPU) return std::make_unique<CpuKernel>(a, p, q);
  auto it = makers().find(a.desc.backend);
  if (it == makers().end())
    throw std::runtime_error(std::string("the ") + backend_name(a.desc.backend) + " backend is not compiled in");
  return it->second(a, p, q);
}

AlgoEntry entry_of(const PluginAlgo& a, const std::string& where) {
  const accsum_algorithm& d = a.desc;
  const char* fam = family_name(d.family);
  const char* back = backend_name(d.backend);
  if (!fam) throw UsageError(where + ": unknown family " + std::to_string(d.family) + " (sum, dot or gemm)");
  if (!back) throw UsageError(where + ": unknown backend " + std::to_string(d.backend) + " (cpu or cuda)");
  if (!find_family(fam))
    throw UsageError(where + ": the " + std::string(fam) + " family is not built into this accsum");
  if (!d.compute) throw UsageError(where + ": no compute function");
  if (d.param_count < 0 || d.param_count > 16 || (d.param_count > 0 && !d.params))
    throw UsageError(where + ": invalid parameter list (0 to 16 parameters)");
  AlgoEntry e(fam, a.name, back, "plugin " + a.plugin + ": " + (d.summary ? d.summary : a.name));
  const Guarantee* claimed = claimed_guarantee(d.claim);
  if (!claimed) throw UsageError(where + ": unknown claim " + std::to_string(d.claim));
  e.guarantee = *claimed;
  if (d.claim == ACCSUM_CLAIM_BOUND && d.family == ACCSUM_FAMILY_GEMM)
    throw UsageError(where + ": claims a bound, which only a sum or dot plugin may (accsum_facts describe a vector)");
  if (d.claim == ACCSUM_CLAIM_BOUND && !d.bound) throw UsageError(where + ": claims a bound but states none");
  if (d.claim == ACCSUM_CLAIM_NONE && d.bound)  // a stated bound is checked: it is a claim
    throw UsageError(where + ": states a bound but claims none (ACCSUM_CLAIM_BOUND claims it)");
  std::set<std::string> seen;
  for (int i = 0; i < d.param_count; ++i) {
    ParamSpec s = param_spec(where, d.params[i]);
    if (!seen.insert(s.name).second) throw UsageError(where + ": parameter '" + s.name + "' declared twice");
    e.params.push_back(std::move(s));
  }
  e.reproducible = d.reproducible != 0;
  // cpu: the guarded copy of the inputs (core/frame/plugin_guard.hpp) beside the data, and the
  // harness's permuted copy for a reproducibility claim.
  if (d.backend == ACCSUM_BACKEND_CPU) e.peak_data_multiple = e.reproducible ? 3 : 2;
  if (e.reproducible && !e.params.empty()) {
    auto specs = e.params;
    e.shape_variants = [specs](const Params&) { return every_value(specs); };
  }
  const PluginAlgo* held = &a;
  if (d.bound) {
    e.bound_cite = "stated by plugin " + a.plugin;
    e.domain = [held](const Params& p, const ExactFacts& f) {
      return stated_bound(*held, p, f) >= 0 ? std::string() : "the plugin states no bound on these data";
    };
    e.bound = [held](const Params& p, const ExactFacts& f) { return stated_bound(*held, p, f); };
  }
  e.make = [held](const Problem& p, const Params& q) { return make_kernel(*held, p, q); };
  return e;
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError("plugin '" + path + "': " + why);
}

void load_one(const std::string& path) {
  if (path.empty()) throw UsageError("--plugin needs a non-empty path");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) refuse(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse(path, "not a regular file");
  // One file named twice (in $ACCSUM_PLUGINS and --plugin, by two spellings or a link) is loaded once.
  static std::set<std::pair<dev_t, ino_t>> files;
  if (!files.insert({st.st_dev, st.st_ino}).second) return;
  // dlopen searches the library path for a bare name: a file in the current directory is meant.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  install_crash_handler();  // dlopen runs the library's constructors
  void* lib;
  {
    const std::string line = "accsum: error: plugin '" + path + "' crashed while loading (";
    CallGuard guard(line.c_str());
    lib = ::dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (!lib) {
    const char* err = ::dlerror();
    refuse(path, std::string("not a loadable shared library (") + (err ? err : "dlopen failed") + ")");
  }
  ::dlerror();
  auto reg = reinterpret_cast<accsum_plugin_register_fn>(::dlsym(lib, ACCSUM_PLUGIN_ENTRY_POINT));
  if (!reg) refuse(path, "no entry point " ACCSUM_PLUGIN_ENTRY_POINT " (see include/accsum/plugin.h)");
  const accsum_plugin* desc;
  {
    const std::string line = "accsum: error: plugin '" + printable(path) + "' crashed while registering (";
    CallGuard guard(line.c_str());
    desc = reg(ACCSUM_PLUGIN_ABI_VERSION);
  }
  if (!desc) refuse(path, "its entry point returned no description");
  if (desc->abi_version != ACCSUM_PLUGIN_ABI_VERSION)
    refuse(path, "built for plugin ABI version " + std::to_string(desc->abi_version) + ", this accsum speaks version " +
                     std::to_string(ACCSUM_PLUGIN_ABI_VERSION) + " (rebuild it against this include/accsum/plugin.h)");
  if (!valid_name(desc->name, false)) refuse(path, "invalid plugin name (want [a-z0-9][a-z0-9_.-]*)");
  if (desc->algorithm_count < 1 || desc->algorithm_count > 256 || !desc->algorithms)
    refuse(path, "describes no algorithm (algorithm_count " + std::to_string(desc->algorithm_count) + ")");
  // Validate everything first: a plugin is registered whole or not at all.
  std::vector<std::unique_ptr<PluginAlgo>> mine;
  std::vector<AlgoEntry> entries;
  for (int i = 0; i < desc->algorithm_count; ++i) {
    const accsum_algorithm& d = desc->algorithms[i];
    const std::string where = "plugin '" + path + "', algorithm " + std::to_string(i);
    if (!valid_name(d.name, false))
      throw UsageError(where + ": empty or invalid name (want [a-z0-9][a-z0-9_.-]*, at most 64 characters)");
    auto a = std::make_unique<PluginAlgo>();
    a->plugin = desc->name;
    a->path = path;
    a->desc = d;
    a->name = d.name;
    const std::string named = "plugin '" + path + "', algorithm '" + a->name + "'";
    if (const PluginAlgo* other = find(a->name))
      throw UsageError(named + ": the name is taken by plugin '" + other->path + "'");
    if (registry().has_algo(a->name)) throw UsageError(named + ": the name is taken by a built-in algorithm");
    for (auto& m : mine)
      if (m->name == a->name) throw UsageError(named + ": described twice");
    entries.push_back(entry_of(*a, named));
    mine.push_back(std::move(a));
  }
  for (size_t i = 0; i < mine.size(); ++i) {
    algos().push_back(std::move(mine[i]));
    registry().add(std::move(entries[i]));
  }
}

}  // namespace

StdoutAndLocaleGuard::StdoutAndLocaleGuard() {
  if (g_isolation_depth++ > 0) return;
  std::fflush(stdout);
  if (g_stdout_copy >= 0) ::dup2(2, 1);
}

StdoutAndLocaleGuard::~StdoutAndLocaleGuard() {
  const char* now = std::setlocale(LC_ALL, nullptr);
  if (!now || std::strcmp(now, "C") != 0) std::setlocale(LC_ALL, "C");
  ::uselocale(LC_GLOBAL_LOCALE);
  if (std::locale() != std::locale::classic()) std::locale::global(std::locale::classic());
  if (--g_isolation_depth > 0) return;
  std::fflush(stdout);  // what the plugin printed, to the standard error
  if (g_stdout_copy >= 0) ::dup2(g_stdout_copy, 1);
}

CallGuard::CallGuard(const char* message, bool isolate) {
  if (isolate) isolation_.emplace();
  g_running = message;
}

CallGuard::~CallGuard() { g_running = nullptr; }

std::string crash_message(const PluginAlgo& a) {
  return "accsum: error: plugin '" + a.plugin + "' (" + printable(a.path) + ") crashed in algorithm '" + a.name +
         "' on dataset " + printable(dataset_label()) + " (";
}

void CallArgs::fill(const PluginAlgo& a, const Params& p) {
  values.clear();
  pointers.clear();
  for (int i = 0; i < a.desc.param_count; ++i) {
    auto it = p.find(a.desc.params[i].name);
    values.push_back(it == p.end() ? a.desc.params[i].default_value : it->second);
  }
  for (auto& v : values) pointers.push_back(v.c_str());
  pointers.push_back(nullptr);
}

void check_rc(const PluginAlgo& a, int rc, const char* message) {
  if (rc == 0) return;
  std::string m(message, strnlen(message, 511));
  throw std::runtime_error("plugin '" + a.plugin + "' algorithm '" + a.name + "' returned error " + std::to_string(rc) +
                           (m.empty() ? std::string() : ": " + m));
}

BackendMakerRegistrar::BackendMakerRegistrar(int backend, KernelMaker make) { makers()[backend] = make; }

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void load(const std::vector<std::string>& paths) {
  for (auto& p : paths) load_one(p);
}

const std::vector<std::unique_ptr<PluginAlgo>>& loaded() { return algos(); }

const PluginAlgo* find(const std::string& name) {
  for (auto& a : algos())
    if (a->name == name) return a.get();
  return nullptr;
}

void note_dataset(const std::string& label) { dataset_label() = label; }

}  // namespace accsum::plugins
