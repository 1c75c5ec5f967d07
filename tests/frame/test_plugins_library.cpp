// The library (include/accsum/accsum.h): in process, each function gives the bits of the
// registry entry the tool measures; installed, a plain CMake project (examples/use-the-library)
// and a pkg-config build link it and print the same bits as `accsum bench --input`.
#include <accsum/accsum.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/frame/registry.hpp"
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"
#include "tests/cli_run.hpp"

namespace {

double via_registry(const char* algo, const char* backend, const std::vector<double>& x, const std::vector<double>& y,
                    accsum::Params user) {
  const accsum::AlgoEntry* e = accsum::registry().find(algo, backend);
  auto p = accsum::Problem::vectors(x.data(), y.empty() ? nullptr : y.data(), static_cast<int64_t>(x.size()),
                                    accsum::next_dataset_id());
  return e->make(p, accsum::registry().resolve_params(*e, user))->run_scalar();
}

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST(Library, CApiGivesTheRegistryEntrysBits) {
  accsum::GenSpec spec;
  spec.dist = "loguniform";
  spec.family = "dot";
  spec.with_y = true;
  spec.n = 3001;
  spec.range = 1e40;
  accsum::Dataset d = accsum::generate(spec);
  const int64_t n = d.n;
  double r = 0;
  ASSERT_EQ(accsum_sum(d.x.data(), n, &r), ACCSUM_OK);
  EXPECT_TRUE(same(r, via_registry("superacc", "cpu", d.x, {}, {})));
  ASSERT_EQ(accsum_sum_mt(d.x.data(), n, 3, &r), ACCSUM_OK);
  EXPECT_TRUE(same(r, via_registry("superacc", "cpu", d.x, {}, {})));  // same bits on any thread count
  ASSERT_EQ(accsum_dot(d.x.data(), d.y.data(), n, &r), ACCSUM_OK);
  EXPECT_TRUE(same(r, via_registry("superacc-dot", "cpu", d.x, d.y, {})));
  ASSERT_EQ(accsum_dot_mt(d.x.data(), d.y.data(), n, 2, &r), ACCSUM_OK);
  EXPECT_TRUE(same(r, via_registry("superacc-dot", "cpu-mt", d.x, d.y, {{"threads", "2"}})));
  for (int K : {2, 3, 5}) {
    ASSERT_EQ(accsum_dpsumk(d.x.data(), n, K, &r), ACCSUM_OK);
    EXPECT_TRUE(same(r, via_registry("dpsumk", "cpu", d.x, {}, {{"K", std::to_string(K)}})));
    ASSERT_EQ(accsum_dpdotk(d.x.data(), d.y.data(), n, K, &r), ACCSUM_OK);
    EXPECT_TRUE(same(r, via_registry("dpdotk", "cpu", d.x, d.y, {{"K", std::to_string(K)}})));
  }
  // IEEE special values, errors with a reason.
  const double specials[] = {1.0, INFINITY, -INFINITY};
  ASSERT_EQ(accsum_sum(specials, 3, &r), ACCSUM_OK);
  EXPECT_TRUE(std::isnan(r));
  EXPECT_EQ(accsum_dpsumk(d.x.data(), n, 1, &r), ACCSUM_EINVAL);
  EXPECT_NE(std::string(accsum_last_error()).find("out of range"), std::string::npos) << accsum_last_error();
  EXPECT_EQ(accsum_sum(nullptr, 5, &r), ACCSUM_EINVAL);
  EXPECT_EQ(accsum_sum(d.x.data(), -1, &r), ACCSUM_EINVAL);
  EXPECT_EQ(accsum_sum(d.x.data(), 0, &r), ACCSUM_OK);
  EXPECT_TRUE(same(r, 0.0));
  EXPECT_STREQ(accsum_last_error(), "");
#if !defined(ACCSUM_HAVE_CUDA)
  EXPECT_EQ(accsum_has_cuda(), 0);
#endif
}

// The device functions answer as docs/library.md says: ACCSUM_EINVAL for an invalid argument
// whether or not a GPU is here, and ACCSUM_EUNAVAILABLE for valid ones without a CUDA device.
TEST(Library, DeviceFunctionsSayInvalidBeforeUnavailable) {
  const double x[2] = {1.0, 2.0};
  double r = 0;
  EXPECT_EQ(accsum_sum_cuda(nullptr, 5, nullptr, &r), ACCSUM_EINVAL) << accsum_last_error();
  EXPECT_EQ(accsum_sum_cuda(x, -1, nullptr, &r), ACCSUM_EINVAL) << accsum_last_error();
  EXPECT_EQ(accsum_sum_cuda(x, 2, nullptr, nullptr), ACCSUM_EINVAL) << accsum_last_error();
  EXPECT_EQ(accsum_dot_cuda(x, nullptr, 2, nullptr, &r), ACCSUM_EINVAL) << accsum_last_error();
  EXPECT_EQ(accsum_dpsumk_cuda(x, 2, 1, nullptr, &r), ACCSUM_EINVAL) << accsum_last_error();
  EXPECT_EQ(accsum_dpdotk_cuda(x, x, 2, 65, nullptr, &r), ACCSUM_EINVAL) << accsum_last_error();
  if (accsum_has_cuda()) return;
  EXPECT_EQ(accsum_sum_cuda(x, 2, nullptr, &r), ACCSUM_EUNAVAILABLE) << accsum_last_error();
  EXPECT_EQ(accsum_dot_cuda(x, x, 2, nullptr, &r), ACCSUM_EUNAVAILABLE) << accsum_last_error();
  EXPECT_EQ(accsum_dpsumk_cuda(x, 2, 2, nullptr, &r), ACCSUM_EUNAVAILABLE) << accsum_last_error();
  EXPECT_EQ(accsum_dpdotk_cuda(x, x, 2, 3, nullptr, &r), ACCSUM_EUNAVAILABLE) << accsum_last_error();
}

#if defined(ACCSUM_HAVE_LIBRARY)
// Installs into a temporary prefix, builds examples/use-the-library against it (CMake package and
// pkg-config), runs it on a raw file and compares with the tool's report of the same file.
TEST(Library, InstalledPackageBuildsAProgramThatMatchesTheTool) {
  const std::string dir = cli_test::tmpdir() + "/library";
  const std::string prefix = dir + "/prefix", data = dir + "/data.bin";
  auto sh = [&](const std::string& cmd) {
    int status = std::system((cmd + " >" + dir + "/log.txt 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  const std::string cmake = ACCSUM_CMAKE;
  ASSERT_EQ(sh(cmake + " --install " + ACCSUM_BINARY_DIR + " --prefix " + prefix), 0)
      << cli_test::slurp(dir + "/log.txt");
  ASSERT_EQ(sh(cmake + " -S " + ACCSUM_SOURCE_DIR + "/examples/use-the-library -B " + dir +
               "/app -DCMAKE_PREFIX_PATH=" + prefix + " -DCMAKE_BUILD_TYPE=Release"),
            0)
      << cli_test::slurp(dir + "/log.txt");
  ASSERT_EQ(sh(cmake + " --build " + dir + "/app"), 0) << cli_test::slurp(dir + "/log.txt");
  // The same program through pkg-config alone: its Libs carry the rpath, so the program runs.
  const std::string pc = "PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig:" + prefix + "/lib64/pkgconfig";
  ASSERT_EQ(sh("cc " + std::string(ACCSUM_SOURCE_DIR) + "/examples/use-the-library/sum_file.c $(" + pc +
               " pkg-config --cflags --libs accsum) -o " + dir + "/sum_file_pc"),
            0)
      << cli_test::slurp(dir + "/log.txt");

  // Ill-conditioned (cond 1e40): DPSumK with K = 2 and 3 give different, not correctly rounded, bits.
  auto gen = cli_test::accsum("gen --dist=illcond --cond=1e40 --n=4000 --seed=7 -o " + data);
  ASSERT_EQ(gen.code, 0) << gen.err;
  auto bench = cli_test::accsum(
      "bench --input=" + data +
      " --algo=superacc,superacc-dot,dpsumk,dpdotk --backend=cpu --param K=2,3 --reps=1 --format=json");
  ASSERT_EQ(bench.code, 0) << bench.err;
  std::map<std::string, std::string> tool;  // "superacc" or "dpsumk K=2" -> value_hex
  const nlohmann::json report = nlohmann::json::parse(bench.out);
  for (auto& run : report["runs"])
    for (auto& r : run["results"]) {
      std::string key = r["algo"];
      if (r["params"].contains("K")) {
        const auto& K = r["params"]["K"];
        key += " K=" + (K.is_string() ? K.get<std::string>() : std::to_string(K.get<int>()));
      }
      tool[key] = r["value_hex"];
    }
  for (const std::string& program : std::vector<std::string>{dir + "/app/sum_file", dir + "/sum_file_pc"}) {
    ASSERT_EQ(std::system((program + " " + data + " >" + dir + "/out.txt 2>" + dir + "/log.txt").c_str()), 0)
        << cli_test::slurp(dir + "/log.txt");
    std::map<std::string, std::string> lib;
    char line[256], name[64], hex[64];
    FILE* f = std::fopen((dir + "/out.txt").c_str(), "r");
    ASSERT_TRUE(f);
    while (std::fgets(line, sizeof line, f)) {
      int K = 0;
      if (std::sscanf(line, "dpsumk K=%d %63s", &K, hex) == 2)
        lib["dpsumk K=" + std::to_string(K)] = hex;
      else if (std::sscanf(line, "dpdotk K=%d %63s", &K, hex) == 2)
        lib["dpdotk K=" + std::to_string(K)] = hex;
      else if (std::sscanf(line, "%63s %63s", name, hex) == 2)
        lib[name] = hex;
    }
    std::fclose(f);
    auto value = [&](const std::string& key) {
      EXPECT_TRUE(lib.count(key)) << program << " printed no " << key;
      return std::strtod(lib[key].c_str(), nullptr);
    };
    auto tool_value = [&](const std::string& key) {
      EXPECT_TRUE(tool.count(key)) << "the tool's report has no " << key << ": " << bench.out;
      return std::strtod(tool[key].c_str(), nullptr);
    };
    ASSERT_EQ(lib.size(), 9u) << program;
    EXPECT_TRUE(same(value("sum"), tool_value("superacc"))) << lib["sum"] << " vs " << tool["superacc"];
    EXPECT_TRUE(same(value("sum_mt"), tool_value("superacc")));
    EXPECT_TRUE(same(value("dot"), tool_value("superacc-dot")));
    EXPECT_TRUE(same(value("dot_mt"), tool_value("superacc-dot")));
    for (const char* k : {"dpsumk K=2", "dpsumk K=3", "dpdotk K=2", "dpdotk K=3"})
      EXPECT_TRUE(same(value(k), tool_value(k))) << k << ": " << lib[k] << " vs " << tool[k];
  }
}
#else
TEST(Library, InstalledPackageBuildsAProgramThatMatchesTheTool) {
  GTEST_SKIP() << "the library is not built here (ACCSUM_LIBRARY=OFF, e.g. the sanitizer build)";
}
#endif
