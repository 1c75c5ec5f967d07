// The one reader of input files (datasets/npy_input.hpp) as every family meets it: sum/dot
// (read_dataset), gemm (read_gemm_npy) and moddot (read_residues) get the same refusals for the
// same hostile file, with one-line messages whose numbers are right; plus the oracle's ulps at
// the overflow threshold and every family's memory declaration.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "core/oracle/oracle.hpp"
#include "datasets/dataset.hpp"
#include "datasets/gemm_data.hpp"
#include "datasets/npy_input.hpp"
#include "datasets/residues.hpp"
#include "tests/expect_usage_error.hpp"
#include "tests/npy_bytes.hpp"

namespace {

using accsum::test::expect_usage_error;

std::string dir() {
  static std::string d = [] {
    char tmpl[] = "/tmp/accsum-reader-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return d;
}

std::string put(const std::string& name, const std::string& bytes) {
  const std::string p = dir() + "/" + name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

using accsum::test::npy_file;

std::string f4_matrix_dict(const std::string& shape) { return accsum::test::npy_dict("<f4", shape); }

// Each family's reader of one file (gemm: the file as A, a good 1x1 matrix as B).
struct Reader {
  const char* family;
  std::function<void(const std::string&)> read;
};

std::vector<Reader> readers() {
  const std::string good_b = put("good_b.npy", npy_file(f4_matrix_dict("(1, 1)"), std::string(4, '\0')));
  return {{"sum", [](const std::string& p) { accsum::read_dataset(p, "sum", false); }},
          {"dot", [](const std::string& p) { accsum::read_dataset(p, "dot", true); }},
          {"gemm", [good_b](const std::string& p) { accsum::read_gemm_npy(p + "," + good_b); }},
          {"moddot", [](const std::string& p) { accsum::read_residues(p); }}};
}

// The same hostile .npy input refused by every family's reader with the same words.
void every_family_refuses(const std::string& name, const std::string& bytes, const std::string& words) {
  const std::string p = put(name, bytes);
  for (auto& r : readers()) {
    SCOPED_TRACE(std::string(r.family) + " reading " + name);
    expect_usage_error([&] { r.read(p); }, words);
  }
}

TEST(OneReader, RefusesTheSameHostileNpyForEveryFamily) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  every_family_refuses("magic.npy", "\x93NUMPX" + npy_file(dict).substr(6), "bad magic");
  // Cut right after 'descr': (once an internal error in the gemm reader).
  std::string cut = "\x93NUMPY\x01";
  const std::string cut_dict = "{'descr':";
  cut += '\0';
  cut += static_cast<char>(cut_dict.size());
  cut += '\0';
  every_family_refuses("cut.npy", cut + cut_dict, "malformed");
  every_family_refuses("short_header.npy", npy_file(dict).substr(0, 30), "truncated npy header");
  // numpy's header limit, judged from the length field before the header is read.
  every_family_refuses("long_header.npy", npy_file(dict, "", 60000), "longer than numpy's limit of 10000 bytes");
  every_family_refuses("version9.npy", "\x93NUMPY\x09" + npy_file(dict).substr(7), "not supported");
}

TEST(OneReader, RefusesFifosAndDirectoriesWithoutHanging) {
  const std::string fifo = dir() + "/fifo.npy", sub = dir() + "/sub.npy";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(mkdir(sub.c_str(), 0700), 0);
  for (auto& r : readers()) {
    SCOPED_TRACE(r.family);
    expect_usage_error([&] { r.read(fifo); }, "FIFO");
    expect_usage_error([&] { r.read(sub); }, "directory");
  }
}

TEST(OneReader, ShapeArithmeticNeverWraps) {
  // 2^62 elements of 8 bytes: 2^65 bytes, once printed as "needs 0 bytes".
  const std::string p =
      put("huge.npy", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }"));
  expect_usage_error([&] { accsum::read_dataset(p, "sum", false); }, "needs more than 2^64 bytes");
  const std::string q =
      put("huge2.npy", npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (4611686018427387904, 2), }"));
  expect_usage_error([&] { accsum::read_residues(q); }, "too large");
  const std::string g = put("huge3.npy", npy_file(f4_matrix_dict("(4294967296, 4294967296)")));
  expect_usage_error([&] { accsum::read_gemm_npy(g + "," + g); }, "below 2^31");
  const std::string r =
      put("big.npy", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }"));
  expect_usage_error([&] { accsum::read_dataset(r, "sum", false); }, "needs 8796093022208 bytes");
  EXPECT_EQ(accsum::sat_mul(uint64_t(1) << 62, 8), UINT64_MAX);
  EXPECT_EQ(accsum::byte_count_text(UINT64_MAX), "more than 2^64 bytes");
  // The memory pre-check reads the header only.
  EXPECT_EQ(accsum::input_memory_bytes(r), 8.0 * 1099511627776.0);
}

TEST(OneReader, EachFamilyDecidesItsDtypeAndShape) {
  const std::string f8 =
      put("f8.npy", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", std::string(32, '\0')));
  EXPECT_EQ(accsum::read_dataset(f8, "dot", true).n, 2);
  const std::string good_b = put("good_b.npy", npy_file(f4_matrix_dict("(1, 1)"), std::string(4, '\0')));
  expect_usage_error([&] { accsum::read_gemm_npy(f8 + "," + good_b); }, "is not float32");
  expect_usage_error([&] { accsum::read_residues(f8); }, "not supported for residues");
  const std::string m = put("m.npy", npy_file(f4_matrix_dict("(1, 1)"), std::string(4, '\0')));
  auto d = accsum::read_gemm_npy(m + "," + good_b);
  EXPECT_EQ(d.rows, 1);
  // The gemm list is the shared input list: three files, or one, are refused.
  expect_usage_error([&] { accsum::read_gemm_npy(m + "," + m + "," + m); }, "A.npy,B.npy");
  EXPECT_EQ(accsum::input_paths(m + "," + good_b), (std::vector<std::string>{m, good_b}));
  const std::string comma = put("a,b.npy", "x");
  EXPECT_EQ(accsum::input_paths(comma), (std::vector<std::string>{comma}));  // an existing name with a comma
}

TEST(OneReader, ResiduesAreExactIntegersOnly) {
  // strtold reads this as exactly 1125899906842596: it is not an integer and must be refused.
  expect_usage_error([&] { accsum::read_residues(put("frac.txt", "1125899906842596.0000000000000000001 1\n")); },
                     "not an integer");
  expect_usage_error([&] { accsum::read_residues(put("exp.txt", "1e3 1\n")); }, "not an integer");
  expect_usage_error([&] { accsum::read_residues(put("dot0.txt", "7.0 1\n")); }, "not an integer");
  expect_usage_error([&] { accsum::read_residues(put("neg.txt", "-3 1\n")); }, "negative");
  expect_usage_error([&] { accsum::read_residues(put("huge.txt", "99999999999999999999999 1\n")); }, ">= p");
  auto d = accsum::read_residues(put("ok.txt", "1125899906842596 +5\n"));
  EXPECT_EQ(d.x[0], 1125899906842596.0);
  EXPECT_EQ(d.y[0], 5.0);
}

TEST(OracleUlps, ExactBeyondTheRangeButResultFinite) {
  // DBL_MAX + 2^970 is half an ulp of DBL_MAX above it: it rounds to +inf (ties to even), while
  // DBL_MAX is a finite result 0.5 ulp(DBL_MAX) = 2^970 away.
  std::vector<double> v{DBL_MAX, 0x1p969, 0x1p969};
  auto r = accsum::exact_sum(v.data(), 3);
  ASSERT_TRUE(std::isinf(r.rounded));
  auto m = accsum::measure(DBL_MAX, r);
  EXPECT_FALSE(m.correctly_rounded);
  EXPECT_EQ(m.abs_err, 0x1p970);
  EXPECT_EQ(m.ulps, 0.5);
}

TEST(FamilyMemory, EveryGeneratingFamilyDeclaresItsBytes) {
  for (auto& f : accsum::families()) {
    SCOPED_TRACE(f.name);
    ASSERT_TRUE(static_cast<bool>(f.input_bytes)) << "the memory pre-check needs input_bytes";
    // n = 512: also a square matrix size that fits (gemm's n is the side of its matrices).
    accsum::GenSpec s{f.dists.front(), f.name, 512, 1, 1e16, 1e16, {}};
    EXPECT_GT(f.input_bytes(s), 0.0);
  }
}

}  // namespace

TEST(OneReader, TheFileReadIsTheFileWhoseMemoryWasChecked) {
  // The pre-check judges the opened file, which stays open: a larger file swapped in under the
  // name afterwards (here through a symbolic link) is never read, and one that grew is refused.
  const std::string small = put(
      "judged_small.npy", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", std::string(32, '\0')));
  const std::string big = put("judged_big.npy", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }",
                                                         std::string(8000, '\0')));
  const std::string link = dir() + "/judged_link.npy";
  ASSERT_EQ(symlink(small.c_str(), link.c_str()), 0);
  EXPECT_EQ(accsum::input_memory_bytes(link), 32.0);
  ASSERT_EQ(unlink(link.c_str()), 0);
  ASSERT_EQ(symlink(big.c_str(), link.c_str()), 0);
  EXPECT_EQ(accsum::read_dataset(link, "sum", false).n, 4) << "the swapped-in file was read";
  EXPECT_EQ(accsum::read_dataset(link, "sum", false).n, 4) << "every read of the name";

  const std::string grows = put(
      "judged_grows.npy", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", std::string(32, '\0')));
  EXPECT_EQ(accsum::input_memory_bytes(grows), 32.0);
  std::ofstream(grows, std::ios::binary | std::ios::app) << std::string(8, '\0');
  expect_usage_error([&] { accsum::read_dataset(grows, "sum", false); }, "changed size since its memory was checked");
}
