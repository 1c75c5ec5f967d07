// Dataset files: .npy (1.0 written, 1.0 and 2.0 read; f8 and f4), raw float64 and text round
// trips, every malformed-file case as a UsageError, and atomic writes.
#include <dirent.h>
#include <gtest/gtest.h>

#include "tests/same_bits.hpp"
#include "tests/expect_usage_error.hpp"
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

using accsum::Dataset;
using accsum::UsageError;

namespace {

// A fresh directory per test, removed with its files afterwards.
class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "accsum_files_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const auto& name : entries()) std::remove((dir_ + "/" + name).c_str());
    ::rmdir(dir_.c_str());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir_.c_str())) {
      while (dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
      ::closedir(d);
    }
    return names;
  }
  void write_bytes(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  std::string dir_;
};

Dataset make(const std::string& dist, const std::string& family, int64_t n, uint64_t seed = 3) {
  accsum::GenSpec s;
  s.dist = dist;
  s.family = family;
  s.with_y = accsum::family(s.family).has_y;
  s.n = n;
  s.seed = seed;
  s.range = 1e300;
  return accsum::generate(s);
}

using accsum::test::all_same_bits;

// A .npy file by hand: version, header dict (padded to 64 with the '\n'), then payload.
std::string npy_bytes(int major, const std::string& dict, const std::string& payload) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t b = 0; b < (major == 1 ? 2u : 4u); ++b) out += static_cast<char>(len >> (8 * b) & 0xff);
  return out + header + payload;
}

template <class T>
std::string payload_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

using accsum::test::expect_usage_error;

}  // namespace

// ---------------------------------------------------------------- formats

TEST(FilesFormat, ChosenByExtension) {
  EXPECT_EQ(accsum::format_from_path("a/b.npy"), accsum::FileFormat::npy);
  EXPECT_EQ(accsum::format_from_path("B.NPY"), accsum::FileFormat::npy);
  EXPECT_EQ(accsum::format_from_path("x.bin"), accsum::FileFormat::raw);
  EXPECT_EQ(accsum::format_from_path("x.raw"), accsum::FileFormat::raw);
  EXPECT_EQ(accsum::format_from_path("x.txt"), accsum::FileFormat::text);
  EXPECT_EQ(accsum::format_from_path("x.csv"), accsum::FileFormat::text);
  expect_usage_error([] { accsum::format_from_path("x.dat"); }, "unknown file type '.dat'");
  expect_usage_error([] { accsum::format_from_path("dir.npy/file"); }, "no file extension");
}

// ---------------------------------------------------------------- round trips

TEST_F(FilesTest, NpyFloat64RoundTripIsBitExact) {
  for (const char* family : {"sum", "dot"})
    for (const char* dist : {"loguniform", "specials", "subnormal"}) {
      Dataset d = make(dist, family, 1001);
      write_dataset(path("d.npy"), d);
      Dataset r = accsum::read_dataset(path("d.npy"), family, accsum::family(family).has_y);
      EXPECT_TRUE(all_same_bits(r.x, d.x)) << dist << " " << family;
      EXPECT_TRUE(all_same_bits(r.y, d.y)) << dist << " " << family;
      EXPECT_EQ(r.n, d.n);
      EXPECT_EQ(r.family, family);
      EXPECT_EQ(r.generator, "file");
      EXPECT_EQ(r.source, path("d.npy"));
      EXPECT_GT(r.id, d.id);
    }
}

TEST_F(FilesTest, NpyFloat32RoundTripIsFloatRounding) {
  for (const char* family : {"sum", "dot"}) {
    Dataset d = make("loguniform", family, 999);
    d.x[0] = 1e300;          // beyond float: rounds to inf
    d.x[1] = 1.0 + 0x1p-24;  // a tie in float: rounds to even (1.0)
    write_dataset(path("f.npy"), d, "f4");
    Dataset r = accsum::read_dataset(path("f.npy"), family, accsum::family(family).has_y);
    ASSERT_EQ(r.n, d.n);
    for (int64_t i = 0; i < d.n; ++i) {
      ASSERT_EQ(r.x[i], static_cast<double>(static_cast<float>(d.x[i]))) << i;
      if (accsum::family(family).has_y) {
        ASSERT_EQ(r.y[i], static_cast<double>(static_cast<float>(d.y[i]))) << i;
      }
    }
    EXPECT_EQ(r.x[0], INFINITY);
    EXPECT_EQ(r.x[1], 1.0);
  }
}

TEST_F(FilesTest, NpyHeaderIsVersion1PaddedTo64) {
  Dataset d = make("uniform", "dot", 5);
  write_dataset(path("h.npy"), d);
  std::ifstream in(path("h.npy"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  size_t hlen = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  EXPECT_EQ((10 + hlen) % 64, 0u);
  std::string header = bytes.substr(10, hlen);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_NE(header.find("'descr': '<f8'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(header.find("'shape': (2, 5)"), std::string::npos);
  EXPECT_EQ(bytes.size(), 10 + hlen + 2 * 5 * 8);
}

TEST_F(FilesTest, NpyVersion2AndSumShapes) {
  std::vector<double> v{1.5, -2.25, 0x1p-1074, 3.0};
  write_bytes("v2.npy", npy_bytes(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", payload_of(v)));
  EXPECT_TRUE(all_same_bits(accsum::read_dataset(path("v2.npy"), "sum", false).x, v));
  write_bytes("row.npy", npy_bytes(1, "{'shape': (1, 4), 'fortran_order': False, 'descr': '<f8'}", payload_of(v)));
  EXPECT_TRUE(all_same_bits(accsum::read_dataset(path("row.npy"), "sum", false).x, v));
  write_bytes("col.npy", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 1), }", payload_of(v)));
  EXPECT_TRUE(all_same_bits(accsum::read_dataset(path("col.npy"), "sum", false).x, v));
  std::vector<float> f{0.5f, -1.0f};
  write_bytes("f4.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", payload_of(f)));
  EXPECT_EQ(accsum::read_dataset(path("f4.npy"), "sum", false).x, (std::vector<double>{0.5, -1.0}));
  write_bytes("dot.npy", npy_bytes(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", payload_of(v)));
  Dataset d = accsum::read_dataset(path("dot.npy"), "dot", true);
  EXPECT_EQ(d.x, (std::vector<double>{1.5, -2.25}));
  EXPECT_TRUE(all_same_bits(d.y, {0x1p-1074, 3.0}));
}

TEST_F(FilesTest, RawRoundTripIsBitExact) {
  for (const char* family : {"sum", "dot"})
    for (const char* ext : {"bin", "raw"}) {
      Dataset d = make("specials", family, 777);
      std::string p = path(std::string("d.") + ext);
      write_dataset(p, d);
      struct stat st;
      ASSERT_EQ(::stat(p.c_str(), &st), 0);
      EXPECT_EQ(st.st_size, 777 * 8 * (accsum::family(family).has_y ? 2 : 1));
      Dataset r = accsum::read_dataset(p, family, accsum::family(family).has_y);
      EXPECT_TRUE(all_same_bits(r.x, d.x)) << family;
      EXPECT_TRUE(all_same_bits(r.y, d.y)) << family;
    }
}

TEST_F(FilesTest, TextRoundTripIsExact) {
  for (const char* family : {"sum", "dot"})
    for (const char* ext : {"txt", "csv"}) {
      Dataset d = make("loguniform", family, 500);
      Dataset sub = make("subnormal", family, 100);
      d.x.insert(d.x.end(), sub.x.begin(), sub.x.end());
      d.x.insert(d.x.end(), {INFINITY, -INFINITY, -0.0, 0.0});
      if (accsum::family(family).has_y) {
        d.y.insert(d.y.end(), sub.y.begin(), sub.y.end());
        d.y.insert(d.y.end(), {1.0, 2.0, 3.0, -4.0});
      }
      d.n = static_cast<int64_t>(d.x.size());
      std::string p = path(std::string("d.") + ext);
      write_dataset(p, d);
      Dataset r = accsum::read_dataset(p, family, accsum::family(family).has_y);
      EXPECT_TRUE(all_same_bits(r.x, d.x)) << family << " " << ext;
      EXPECT_TRUE(all_same_bits(r.y, d.y)) << family << " " << ext;
    }
  // NaN survives as a NaN.
  Dataset s = make("uniform", "sum", 3);
  s.x[1] = NAN;
  write_dataset(path("nan.txt"), s);
  EXPECT_TRUE(std::isnan(accsum::read_dataset(path("nan.txt"), "sum", false).x[1]));
}

TEST_F(FilesTest, TextReadsDecimalHexNanInfCommentsAndSeparators) {
  write_bytes("a.txt", "# a comment\n1.5, -2 0x1.8p+1\n\n  nan\tinf,-inf\r\n1e-320\n");
  Dataset d = accsum::read_dataset(path("a.txt"), "sum", false);
  ASSERT_EQ(d.n, 7);
  EXPECT_EQ(d.x[0], 1.5);
  EXPECT_EQ(d.x[1], -2.0);
  EXPECT_EQ(d.x[2], 3.0);
  EXPECT_TRUE(std::isnan(d.x[3]));
  EXPECT_EQ(d.x[4], INFINITY);
  EXPECT_EQ(d.x[5], -INFINITY);
  EXPECT_EQ(d.x[6], 1e-320);
  write_bytes("b.csv", "1,2\n0x1p-3 , -4\n");
  Dataset e = accsum::read_dataset(path("b.csv"), "dot", true);
  EXPECT_EQ(e.x, (std::vector<double>{1, 0.125}));
  EXPECT_EQ(e.y, (std::vector<double>{2, -4}));
}

// ---------------------------------------------------------------- malformed files

TEST_F(FilesTest, MalformedNpyIsRejected) {
  const std::string good = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
  const std::string three = payload_of(std::vector<double>{1, 2, 3});
  struct Case {
    std::string name, bytes, family, needle;
  };
  std::vector<Case> cases = {
      {"magic", "\x93NUMPX" + npy_bytes(1, good, three).substr(6), "sum", "bad magic"},
      {"short", "\x93NUM", "sum", "bad magic"},
      {"v4",
       [&] {
         auto b = npy_bytes(2, good, three);
         b[6] = 4;
         return b;
       }(),
       "sum", "version 4.0"},
      {"bigendian", npy_bytes(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }", three), "sum",
       "big-endian"},
      {"int", npy_bytes(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", three), "sum", "not a float"},
      {"half", npy_bytes(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", three), "sum",
       "float dtype '<f2' is not supported"},
      {"fortran", npy_bytes(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3,), }", three), "sum",
       "fortran_order"},
      {"dotshape", npy_bytes(1, good, three), "dot", "expected (2, n)"},
      {"dot3rows", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", three), "dot",
       "expected (2, n)"},
      {"sumshape", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", three + three), "sum",
       "not a sum dataset"},
      {"3d", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 3), }", three), "sum",
       "not a sum dataset"},
      {"empty", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", ""), "sum", "holds no data"},
      {"truncated", npy_bytes(1, good, three.substr(0, 20)), "sum", "truncated"},
      {"trailing", npy_bytes(1, good, three + "xyz"), "sum", "bytes follow the data"},
      {"header", npy_bytes(1, good, three).substr(0, 40), "sum", "truncated npy header"},
      {"noshape", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False}", three), "sum", "no 'shape'"},
      {"badshape", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (a,), }", three), "sum",
       "not a tuple"},
      {"structured", npy_bytes(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,), }", three), "sum",
       "structured"},
  };
  for (const auto& c : cases) {
    write_bytes(c.name + ".npy", c.bytes);
    expect_usage_error([&] { accsum::read_dataset(path(c.name + ".npy"), c.family, accsum::family(c.family).has_y); },
                       c.needle);
  }
  expect_usage_error([&] { accsum::read_dataset(path("missing.npy"), "sum", false); }, "cannot open");
}

TEST_F(FilesTest, MalformedRawAndTextAreRejected) {
  write_bytes("odd.bin", std::string(12, '\0'));
  expect_usage_error([&] { accsum::read_dataset(path("odd.bin"), "sum", false); }, "not a multiple of 8");
  write_bytes("three.raw", std::string(24, '\0'));
  EXPECT_EQ(accsum::read_dataset(path("three.raw"), "sum", false).n, 3);
  expect_usage_error([&] { accsum::read_dataset(path("three.raw"), "dot", true); }, "even count");
  write_bytes("empty.bin", "");
  expect_usage_error([&] { accsum::read_dataset(path("empty.bin"), "sum", false); }, "holds no data");

  struct Case {
    std::string text, family, needle;
  };
  std::vector<Case> cases = {
      {"1.5\n2.5abc\n", "sum", "line 2: trailing garbage 'abc'"},
      {"1 two 3\n", "sum", "'two' is not a number"},
      {"1,,2\n", "sum", "empty field"},
      {"1,\n", "sum", "empty field"},
      {",1\n", "sum", "empty field"},
      {"1.5-2\n", "sum", "trailing garbage"},
      {"1 2\n3 4 5\n", "dot", "line 2 has 3 numbers"},
      {"1\n", "dot", "two columns"},
      {"# only a comment\n\n", "sum", "holds no numbers"},
  };
  int k = 0;
  for (const auto& c : cases) {
    std::string name = "bad" + std::to_string(k++) + ".txt";
    write_bytes(name, c.text);
    expect_usage_error([&] { accsum::read_dataset(path(name), c.family, accsum::family(c.family).has_y); }, c.needle);
  }
}

// ---------------------------------------------------------------- writing

TEST_F(FilesTest, UnwritablePathGivesUsageErrorAndLeavesNothing) {
  Dataset d = make("uniform", "sum", 10);
  expect_usage_error([&] { write_dataset(path("no/such/dir/d.npy"), d); }, "cannot write");
  ASSERT_EQ(::mkdir(path("taken.npy").c_str(), 0755), 0);  // the target is a directory
  expect_usage_error([&] { write_dataset(path("taken.npy"), d); }, "cannot write");
  ::rmdir(path("taken.npy").c_str());
  EXPECT_TRUE(entries().empty()) << "left behind: " << (entries().empty() ? "" : entries()[0]);
  // Overwriting an existing file replaces it whole.
  write_dataset(path("d.npy"), make("uniform", "sum", 100));
  write_dataset(path("d.npy"), d);
  EXPECT_EQ(accsum::read_dataset(path("d.npy"), "sum", false).n, 10);
  EXPECT_EQ(entries().size(), 1u);
}

TEST_F(FilesTest, BadWriteArgumentsAreUsageErrors) {
  Dataset d = make("uniform", "dot", 10);
  expect_usage_error([&] { write_dataset(path("d.npy"), d, "f16"); }, "unknown dtype");
  expect_usage_error([&] { write_dataset(path("d.bin"), d, "f4"); }, "only available for .npy");
  expect_usage_error([&] { write_dataset(path("d.xyz"), d); }, "unknown file type");
  d.y.pop_back();
  expect_usage_error([&] { write_dataset(path("d.npy"), d); }, "inconsistent");
  EXPECT_TRUE(entries().empty());
}
