// accsum: benchmarks and verifies accurate floating-point algorithms against an exact oracle.
// Parsing only; each subcommand lives in its own cmd_*.cpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "git_rev.hpp"
#include "app/commands.hpp"
#include "app/harness.hpp"
#include "app/inputs.hpp"
#include "app/output.hpp"
#include "families/gemm/openblas_limits.hpp"
#include "app/parse.hpp"
#include "app/report_reader.hpp"
#include "core/frame/artifacts.hpp"
#include "core/frame/family.hpp"
#include "base/limits.hpp"
#include "core/frame/placement.hpp"
#include "core/frame/plugins.hpp"
#include "core/frame/registry.hpp"

using namespace accsum::cli;

namespace {

// --seed: a decimal integer in [0, 2^64 - 1]; anything else (-1, 2^64, 1e3) is refused rather
// than wrapped (CLI11 would convert -1 to 2^64 - 1).
void add_seed_option(CLI::App* cmd, uint64_t& seed) {
  cmd->add_option_function<std::string>(
         "--seed",
         [&seed](const std::string& v) {
           uint64_t x = 0;
           auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
           if (v.empty() || ec != std::errc() || end != v.data() + v.size())
             throw CLI::ValidationError("--seed", "'" + v + "' is not an integer in [0, 18446744073709551615]");
           seed = x;
         },
         "generator seed (0 .. 2^64-1)")
      ->default_str(std::to_string(seed));
}

// No option of any subcommand takes an empty value. "--json=" is refused before CLI11 sees it
// (it would take the next argument as the value); "--json ''" by a validator on every option.
std::string empty_option_in(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--") break;
    const bool long_eq = a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' && a.find('=') == a.size() - 1;
    const bool short_eq = a.size() == 3 && a[0] == '-' && a[1] != '-' && a[2] == '=';
    if (long_eq || short_eq) return a.substr(0, a.size() - 1);
  }
  return "";
}

// "-o=x.npy": CLI11 reads a short option's value as everything after the letter, so the file would
// be named "=x.npy". Refused: the value goes after a space, or with the long option's '='.
std::string short_option_with_equals_in(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--") break;
    if (a.size() > 3 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1])) && a[2] == '=') return a;
  }
  return "";
}

void refuse_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](std::string& v) { return v.empty() ? std::string("an empty value is not allowed") : ""; }, "", "NON_EMPTY");
  for (CLI::App* cmd : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* o : cmd->get_options([](CLI::Option* o) { return o->get_type_size() != 0; })) o->check(non_empty);
}

// --force on every command that writes files: write-protected outputs are replaced.
void add_force_option(CLI::App* cmd) {
  cmd->add_flag_callback(
      "--force", [] { set_force_overwrite(true); },
      "replace output files that are write-protected (mode 0444); refused without it");
}

// Options a mode ignores are errors, not silently dropped.
void reject_ignored_data_options(CLI::App* cmd, const DataArgs& d, bool is_gen) {
  if (is_gen) {
    if (cmd->count("--input")) throw accsum::UsageError("gen generates data: --input is not an option of gen");
    return;
  }
  if (d.input.empty()) return;
  for (const char* o : {"--n", "--seed", "--dist"})
    if (cmd->count(o))
      throw accsum::UsageError(std::string(o) + " cannot be combined with --input (the file is the data)");
  for (auto& [name, value] : d.options)
    if (!accsum::cli::option_for_files(name))
      throw accsum::UsageError("--" + name + " cannot be combined with --input (the file is the data)");
}

void add_data_options(CLI::App* cmd, DataArgs& d) {
  cmd->add_option("--n", d.n,
                  "elements: 1e6, 2^24, a list 2^10,2^20 or a doubling range 2^10:2^28 (default 2^24, or the "
                  "family's own default); small: a quick size each family accepts (2^16, fpe 2^12, gemm 64)");
  std::string dists, formats;
  std::map<std::string, std::string> option_help;  // every family's data options, once each
  for (auto& f : accsum::families()) {
    dists += fmt::format("{}: {}; ", f.name, fmt::join(f.dists, " | "));
    formats += fmt::format("{}: {}; ", f.name, f.file_formats);
    for (auto& o : f.options) option_help.emplace(o.name, o.help);
  }
  cmd->add_option("--dist", d.dist, "generator (" + dists + "default: the family's first)");
  for (auto& [name, help] : option_help) {
    std::string key = name;  // (clang 14 cannot capture a structured binding)
    cmd->add_option_function<std::string>(
        "--" + key, [&d, key](const std::string& v) { d.options[key] = v; }, help);
  }
  cmd->add_option("--input", d.input, "read the data from a file (" + formats + ")");
  add_seed_option(cmd, d.seed);
}

// --device: the accelerator index for the cuda and opencl backends (core/frame/placement.hpp); an
// index the machine does not have is refused when a device backend first binds.
void add_device_option(CLI::App* cmd) {
  cmd->add_option_function<std::string>(
      "--device",
      [](const std::string& v) {
        unsigned x = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size() || x > 65535)
          throw CLI::ValidationError("--device", "'" + v + "' is not a device index (0, 1, ...)");
        accsum::placement::set_cli_device(v);
      },
      "GPU index for cuda/opencl (default: $ACCSUM_CUDA_DEVICE, else the node-local MPI rank modulo the GPUs, else 0)");
}

void add_out_options(CLI::App* cmd, OutArgs& o) {
  cmd->add_option("--format", o.format, "stdout format: table | json | csv | md")
      ->check(CLI::IsMember({"table", "json", "csv", "md"}))
      ->capture_default_str();
  cmd->add_option("--json", o.json, "also write the accsum-report/1 JSON document here (atomically)");
  cmd->add_option("--out,-o", o.out, "write the --format output to this file instead of stdout (atomically)");
}

void add_param_options(CLI::App* cmd, ParamLists& p, std::vector<std::string>& generic) {
  // Every algorithm parameter of the registry as --<name> (underscores as dashes), with the
  // algorithms that take it; a comma list sweeps.
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> seen;  // name -> help, algos
  for (auto& e : accsum::registry().entries())
    for (auto& ps : e.params) {
      auto& [help, algos] = seen[ps.name];
      if (help.empty()) help = ps.help;
      if (std::find(algos.begin(), algos.end(), e.algo) == algos.end()) algos.push_back(e.algo);
    }
  for (auto& [name, info] : seen) {
    std::string flag = "--" + name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (cmd->get_option_no_throw(flag)) continue;  // a plugin's parameter named like an option: --param only
    std::string key = name;
    cmd->add_option_function<std::string>(
        flag,
        [&p, key, flag](const std::string& v) {
          if (p.count(key)) throw CLI::ValidationError(flag, "given twice (give one list: " + flag + "=a,b)");
          p[key] = v;
        },
        printable(fmt::format("{} ({}; a list sweeps)", info.first, fmt::join(info.second, ", "))));
  }
  cmd->add_option("--param", generic, "any algorithm parameter as name=value[,value...] (repeatable)");
}

void merge_generic(ParamLists& p, const std::vector<std::string>& generic) {
  for (auto& g : generic) {
    auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size())
      throw accsum::UsageError("--param expects name=value with a non-empty value, got '" + g + "'");
    const std::string name = g.substr(0, eq);
    if (p.count(name))
      throw accsum::UsageError("parameter '" + name + "' is given twice (--" + name +
                               " and --param, or --param twice)");
    p[name] = g.substr(eq + 1);
  }
}

// The subcommands that take plugins.
bool takes_plugins(const std::string& cmd) {
  return cmd == "bench" || cmd == "verify" || cmd == "list" || cmd == "table" || cmd == "info";
}

// Plugins are loaded before the command line is parsed, so that their algorithms and parameters
// are options, `list` entries and selections like the built-ins: $ACCSUM_PLUGINS, then every
// --plugin=PATH[,PATH...] (or --plugin PATH) of a subcommand that takes them.
std::vector<std::string> plugin_paths(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  size_t cmd = 1;
  while (cmd < args.size() && !args[cmd].empty() && args[cmd][0] == '-') ++cmd;
  if (cmd >= args.size() || !takes_plugins(args[cmd])) return paths;
  auto add = [&](const std::string& list) {
    for (auto& p : accsum::plugins::split_paths(list)) paths.push_back(p);
  };
  if (const char* env = std::getenv("ACCSUM_PLUGINS"))
    if (*env) add(env);
  for (size_t i = cmd + 1; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i].rfind("--plugin=", 0) == 0)
      add(args[i].substr(9));
    else if (args[i] == "--plugin" && i + 1 < args.size())
      add(args[++i]);
  }
  return paths;
}

void add_plugin_option(CLI::App* cmd, std::vector<std::string>& sink) {
  cmd->add_option("--plugin", sink,
                  "load algorithms from a plugin shared library (include/accsum/plugin.h); repeatable or a comma "
                  "list; also $ACCSUM_PLUGINS")
      ->allow_extra_args(false);
}

// The options of the subcommands that run algorithms (bench, verify): parameters, outputs, device,
// --force and plugins.
void add_run_options(CLI::App* cmd, ParamLists& params, std::vector<std::string>& generic, OutArgs& out,
                     std::vector<std::string>& plugin_args) {
  add_param_options(cmd, params, generic);
  add_out_options(cmd, out);
  add_device_option(cmd);
  add_force_option(cmd);
  add_plugin_option(cmd, plugin_args);
}

}  // namespace

int main(int argc, char** argv) {
  accsum::openblas::start_within_memory_limits(argv);
  install_signal_handlers();
  accsum::set_artifact_writer(write_into_directory);  // ACCSUM_OPENCL_DUMP's files follow the output rules
  std::vector<std::string> args(argv, argv + argc);
  for (auto& s : args) s = utf8_safe(s);   // the report's `command`: JSON text must be UTF-8
  const bool rank0 = process_rank() == 0;  // under mpirun only rank 0 prints errors
  try {
    accsum::plugins::load(plugin_paths(std::vector<std::string>(argv, argv + argc)));  // the paths' own bytes
  } catch (const accsum::UsageError& e) {
    if (rank0) std::fprintf(stderr, "accsum: error: %s\n", printable(clipped(e.what())).c_str());
    return 2;
  }
  std::vector<std::string> plugin_args;  // parsed only to be accepted: loaded above

  CLI::App app{"accsum: benchmark and verify accurate floating-point algorithms against an exact oracle"};
  app.set_version_flag("--version", std::string("accsum ") + ACCSUM_VERSION + " (git " + ACCSUM_GIT_REV + ")");
  app.require_subcommand(1);

  BenchArgs bench;
  std::vector<std::string> bench_generic;
  auto* b = app.add_subcommand("bench", "time algorithms beside the baseline and check them against the exact result");
  b->add_option("--algo", bench.algo, "algorithms: a comma list or all (see `accsum list`)")->capture_default_str();
  std::string backend_choices;  // the compiled-in backends; a missing registration throws here, at startup
  for (auto& name : accsum::registry().backend_names())
    backend_choices += (backend_choices.empty() ? "" : " | ") + name;
  b->add_option("--backend", bench.backend, backend_choices + ", a list, or all (default: best present)");
  add_data_options(b, bench.data);
  b->add_option("--reps", bench.reps, "timed repetitions (median reported)")->capture_default_str();
  b->add_option("--warmup", bench.warmup, "untimed warm-up runs")->capture_default_str();
  b->add_flag("--no-repro-check", bench.no_repro_check, "skip the launch-shape and permutation reproducibility runs");
  b->add_option("--generate", bench.generate,
                "where generated data are made: host (the whole array in host memory) or by-index (each GPU or MPI "
                "rank makes its own elements by global index; no process holds the array; algorithms marked "
                "'by index' in `accsum list`)")
      ->check(CLI::IsMember({"host", "by-index"}))
      ->capture_default_str();
  add_run_options(b, bench.params, bench_generic, bench.out, plugin_args);

  VerifyArgs verify;
  std::vector<std::string> verify_generic;
  auto* v = app.add_subcommand("verify", "correctness sweep against MPFR; exit 1 if any result breaks its guarantee");
  v->add_option("--algo", verify.algo, "algorithms (comma list or all)")->capture_default_str();
  v->add_option("--backend", verify.backend, "backends (comma list or all present)")->capture_default_str();
  v->add_flag("--full", verify.full, "the long sweep (more sizes, ranges, conditions and seeds)");
  v->add_flag("--dry-run", verify.dry_run,
              "make the datasets and count each algorithm's cases without running them (exit 1 if one has none)");
  v->add_option("--seeds", verify.seeds, "seeds per case, 1 .. 1000 (default 2, or 5 with --full)")
      ->check(CLI::Range(1, 1000));
  add_run_options(v, verify.params, verify_generic, verify.out, plugin_args);

  GenArgs gen;
  auto* g = app.add_subcommand("gen", "generate a dataset and write it (.npy, .bin/.raw, .txt/.csv)");
  add_data_options(g, gen.data);
  g->add_option("--family", gen.family, "the family whose data to generate (see `accsum list`)")->capture_default_str();
  g->add_option("--dtype", gen.dtype, "npy element type: f8 or f4")->capture_default_str();
  g->add_option("-o,--output", gen.output, "output file")->required();
  add_force_option(g);

  std::string list_format = "table";
  auto* l = app.add_subcommand("list", "algorithms x backends x parameters, with guarantees");
  l->add_option("--format", list_format, "table | json")->capture_default_str();
  add_plugin_option(l, plugin_args);

  std::string info_n = "2^26";
  int info_reps = 10;
  auto* i = app.add_subcommand("info", "machine, backends, EFT self-tests and measured baseline throughput");
  i->add_option("--n", info_n, "elements for the throughput measurement")->capture_default_str();
  i->add_option("--reps", info_reps, "repetitions")->capture_default_str();
  add_device_option(i);
  add_plugin_option(i, plugin_args);

  TableArgs table;
  std::string suites;
  for (auto& f : accsum::families())
    for (auto& s : f.tables)
      if (suites.find(s.name) == std::string::npos) suites += (suites.empty() ? "" : " | ") + s.name;
  auto* t = app.add_subcommand("table", "paper-style accuracy tables (suites: " + suites + ")");
  t->add_option("--suite", table.suite, suites)->capture_default_str();
  t->add_option("--backend", table.backend, "backend whose algorithms fill the table")->capture_default_str();
  t->add_option("--n", table.n, "elements per dataset")->capture_default_str();
  add_seed_option(t, table.seed);
  add_device_option(t);
  add_plugin_option(t, plugin_args);
  t->add_option("--reps", table.reps,
                "time every cell: median of this many runs after warm-up, printed as throughput (0: accuracy only, "
                "the reproducible table)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  t->add_option("--json", table.out.json, "also write the JSON report here");
  t->add_option("--out,-o", table.out.out, "write the Markdown table here instead of stdout");
  add_force_option(t);

  CompareArgs cmp;
  auto* c =
      app.add_subcommand("compare",
                         "judge NEW against BASE (accsum-report/1 files, or directories of them matched by file "
                         "name): accuracy from the reports' verdicts, speed by a rank test; exit 1 on a regression");
  c->add_option("BASE", cmp.base, "the reference report (or directory)")->required();
  c->add_option("NEW", cmp.fresh, "the report (or directory) to judge")->required();
  c->add_option("--format", cmp.format, "table | json | csv | md")
      ->check(CLI::IsMember({"table", "json", "csv", "md"}))
      ->capture_default_str();
  c->add_option("--speed", cmp.speed,
                "what speed is judged on: ratio (each repetition's ratio to the baseline timed beside it in the "
                "same run) or time (raw times)")
      ->check(CLI::IsMember({"ratio", "time"}))
      ->capture_default_str();
  c->add_option("--speed-tolerance", cmp.speed_tolerance,
                "smallest change of the median time that is a verdict, when the rank test finds one (0.05 or 5%)")
      ->capture_default_str();
  c->add_option("--accuracy-tolerance", cmp.accuracy_tolerance,
                "growth of the error in ulps allowed before it is a regression (0.5 or 50%; 0: any growth)")
      ->capture_default_str();
  c->add_flag("--accuracy-only", cmp.accuracy_only, "judge accuracy only (no speed verdicts)");
  c->add_flag("--force", cmp.force, "compare speed even when the reports come from different machines");
  c->add_option("--max-size", cmp.max_size,
                fmt::format("the largest report read, in bytes (1e8, 2^27; default {}); a larger one is refused before "
                            "it is read",
                            format_size(static_cast<int64_t>(kJsonMaxBytes))));

  refuse_empty_values(app);

  if (std::string opt = empty_option_in(argc, argv); !opt.empty()) {
    if (rank0)
      std::fprintf(stderr, "accsum: error: %s is given an empty value (see accsum --help)\n",
                   printable(clipped(opt)).c_str());
    return 2;
  }
  if (std::string arg = short_option_with_equals_in(argc, argv); !arg.empty()) {
    if (rank0)
      std::fprintf(stderr,
                   "accsum: error: '%s': a short option takes its value after a space (%s %s) or as the long option's "
                   "--name=value\n",
                   printable(clipped(arg)).c_str(), arg.substr(0, 2).c_str(),
                   printable(clipped(arg.substr(3))).c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    if (msg.empty()) msg = e.get_name();
    if (rank0) std::fprintf(stderr, "accsum: error: %s (see accsum --help)\n", printable(clipped(msg)).c_str());
    return 2;
  }

  try {
    if (!*l) accsum::threads_from_env();  // a malformed ACCSUM_THREADS is refused before any work
    if (*b) {
      reject_ignored_data_options(b, bench.data, false);
      merge_generic(bench.params, bench_generic);
      return run_bench(bench, args);
    }
    if (*v) {
      merge_generic(verify.params, verify_generic);
      return run_verify(verify, args);
    }
    if (*g) {
      reject_ignored_data_options(g, gen.data, true);
      return run_gen(gen);
    }
    if (*l) return run_list(list_format);
    if (*c) return run_compare(cmp);
    if (*i) return run_info(info_n, info_reps);
    if (*t) {
      return run_table(table, args);
    }
  } catch (const accsum::UsageError& e) {
    if (rank0) std::fprintf(stderr, "accsum: error: %s\n", printable(clipped(e.what())).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    if (rank0) std::fprintf(stderr, "accsum: error: out of memory (try a smaller --n)\n");
    return 2;
  } catch (const std::system_error& e) {
    if (e.code().value() == EPIPE) return 0;  // stdout's reader went away (`| head`): not an error of the run
    if (rank0) std::fprintf(stderr, "accsum: internal error: %s\n", printable(clipped(e.what())).c_str());
    return 3;
  } catch (const std::exception& e) {
    if (rank0) std::fprintf(stderr, "accsum: internal error: %s\n", printable(clipped(e.what())).c_str());
    return 3;
  }
  return 0;
}
