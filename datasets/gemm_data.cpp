#include "datasets/gemm_data.hpp"

#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "datasets/npy_input.hpp"
#include "datasets/rng.hpp"

namespace accsum {
namespace {

constexpr uint64_t kStreamA = 10, kStreamB = 11, kStreamC = 12;

float u01(const rng::CounterRng& r, uint64_t i) { return static_cast<float>(r.u64(i, 0) >> 40) * 0x1p-24f; }
float usym(const rng::CounterRng& r, uint64_t i) {
  return static_cast<float>(static_cast<int64_t>(r.u64(i, 0) >> 39) - (int64_t(1) << 24)) * 0x1p-24f;
}
// (1 + v) 2^e, v a 23-bit fraction, e uniform on [lo, lo + span], random sign.
float logu(const rng::CounterRng& r, uint64_t i, int lo, int span) {
  uint64_t bits = r.u64(i, 0);
  int e = lo + static_cast<int>(r.u64(i, 1) % static_cast<uint64_t>(span + 1));
  float v = std::ldexp(1.0f + static_cast<float>((bits >> 41) & 0x7FFFFF) * 0x1p-23f, e);
  return (bits & 1) ? -v : v;
}

double physical_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * size : 8e9;
}

template <class Fn>
void fill(std::vector<float>& v, int64_t n, Fn fn) {
  v.resize(static_cast<size_t>(n));
  unsigned hw = std::thread::hardware_concurrency();
  int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(hw ? hw : 1, n >> 16)));
  std::vector<std::thread> pool;
  auto work = [&](int t) {
    for (int64_t i = n * t / threads; i < n * (t + 1) / threads; ++i) v[i] = fn(i);
  };
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
}

[[noreturn]] void npy_fail(const std::string& path, const std::string& why) {
  throw UsageError("'" + path + "': " + why);
}

// One 2-D float32 matrix through the one .npy reader (datasets/npy_input.hpp), returned
// column-major.
std::vector<float> read_matrix(const std::string& path, int64_t& rows, int64_t& cols) {
  InFile in(path);
  const NpyHeader h = read_npy_header(in);
  const std::string shape = npy_shape_text(h.shape);
  if (h.descr != "<f4")
    npy_fail(path, "dtype '" + h.descr + "' is not float32 ('<f4'); the gemm family reads float32 matrices");
  if (h.shape.size() != 2) npy_fail(path, "shape " + shape + " is not 2-D; the gemm family reads matrices");
  rows = h.shape[0];
  cols = h.shape[1];
  if (rows < 1 || cols < 1) npy_fail(path, "shape " + shape + " holds no data");
  if (rows > INT_MAX || cols > INT_MAX || static_cast<double>(rows) * cols * 4 > physical_bytes() / 4)
    npy_fail(path, "shape " + shape + " is too large");
  require_npy_data(in, h);
  const size_t n = static_cast<size_t>(rows * cols);
  std::vector<float> raw(n);
  in.read(raw.data(), n * 4);
  if (h.fortran_order) return raw;
  std::vector<float> cm(n);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) cm[i + j * rows] = raw[i * cols + j];
  return cm;
}

}  // namespace

std::string float_hex(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", static_cast<double>(v));
  return buf;
}

const std::vector<std::string>& gemm_dist_names() {
  static const std::vector<std::string> names{"uniform", "uniform-sym", "loguniform", "illcond"};
  return names;
}

// A, B, C, a result, and the oracle's about 40 bytes per entry.
double gemm_bytes(int64_t m, int64_t n, int64_t k) {
  return 4.0 * (double(m) * k + double(k) * n) + 48.0 * double(m) * n;
}

void check_gemm_size(int64_t m, int64_t n, int64_t k) {
  if (m < 1 || n < 1 || k < 1)
    throw UsageError("gemm shapes must be at least 1 (M, N, K = " + std::to_string(m) + ", " + std::to_string(n) +
                     ", " + std::to_string(k) + ")");
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) throw UsageError("gemm dimensions must be below 2^31 (BLAS indices)");
  if (gemm_bytes(m, n, k) > physical_bytes() / 2)
    throw UsageError("gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                     " is too large for this machine's memory");
}

Dataset generate_gemm(const GemmGenSpec& s) {
  check_gemm_size(s.rows, s.cols, s.inner);
  const auto& names = gemm_dist_names();
  if (std::find(names.begin(), names.end(), s.dist) == names.end())
    throw UsageError("unknown gemm generator '" + s.dist + "' (uniform, uniform-sym, loguniform, illcond)");
  if (!(s.range >= 1 && s.range <= 1e30)) throw UsageError("--range must be in [1, 1e30] for the gemm family");
  if (!(s.cond >= 1 && s.cond <= 1e30)) throw UsageError("--cond must be in [1, 1e30] for the gemm family");
  const int64_t M = s.rows, N = s.cols, K = s.inner;
  rng::CounterRng ra(s.seed, kStreamA), rb(s.seed, kStreamB), rc(s.seed, kStreamC);
  Dataset d;
  d.family = "gemm";
  d.generator = s.dist;
  d.seed = s.seed;
  d.n = K;
  d.rows = M;
  d.cols = N;
  d.inner = K;
  d.data["alpha"] = float_hex(s.alpha);
  d.data["beta"] = float_hex(s.beta);
  if (s.dist == "uniform") {
    fill(d.a, M * K, [&](int64_t i) { return u01(ra, i); });
    fill(d.b, K * N, [&](int64_t i) { return u01(rb, i); });
    fill(d.c, M * N, [&](int64_t i) { return u01(rc, i); });
  } else if (s.dist == "uniform-sym") {
    fill(d.a, M * K, [&](int64_t i) { return usym(ra, i); });
    fill(d.b, K * N, [&](int64_t i) { return usym(rb, i); });
    fill(d.c, M * N, [&](int64_t i) { return usym(rc, i); });
  } else if (s.dist == "loguniform") {
    d.range = s.range;
    int span = static_cast<int>(std::lround(std::log2(s.range)));
    span = span < 1 ? 0 : span - 1;
    int lo = -((span + 1) / 2);
    fill(d.a, M * K, [&](int64_t i) { return logu(ra, i, lo, span); });
    fill(d.b, K * N, [&](int64_t i) { return logu(rb, i, lo, span); });
    fill(d.c, M * N, [&](int64_t i) { return logu(rc, i, lo, span); });
  } else {  // illcond
    d.target_cond = s.cond;
    const int64_t h = (K - 1) / 2;
    const int t = static_cast<int>(std::ceil(std::log2(s.cond) / 2));
    fill(d.a, M * K, [&](int64_t idx) {
      int64_t i = idx % M, k = idx / M;
      if (k < 2 * h) return logu(ra, static_cast<uint64_t>(i + (k % h) * M), -8, 16);
      return logu(ra, static_cast<uint64_t>(idx), -t, 0);
    });
    fill(d.b, K * N, [&](int64_t idx) {
      int64_t k = idx % K, j = idx / K;
      if (k < h) return logu(rb, static_cast<uint64_t>(idx), -8, 16);
      if (k < 2 * h) return -logu(rb, static_cast<uint64_t>(k - h + j * K), -8, 16);
      return logu(rb, static_cast<uint64_t>(idx), -t, 0);
    });
    fill(d.c, M * N, [&](int64_t i) { return usym(rc, i); });
  }
  d.id = next_dataset_id();
  return d;
}

Dataset read_gemm_npy(const std::string& spec) {
  const std::vector<std::string> paths = input_paths(spec);  // datasets/npy_input.hpp
  if (paths.size() != 2)
    throw UsageError("the gemm family reads --input=A.npy,B.npy (two 2-D float32 .npy files), got '" + spec + "'");
  const std::string &pa = paths[0], &pb = paths[1];
  for (auto* p : {&pa, &pb})
    if (file_extension(*p) != ".npy")
      throw UsageError("'" + *p + "': the gemm family reads .npy files (--input=A.npy,B.npy)");
  // Both headers judged before any data is read: the shapes agree and the product fits.
  const NpyHeader ha = peek_npy_header(pa), hb = peek_npy_header(pb);
  if (ha.descr == "<f4" && hb.descr == "<f4" && ha.shape.size() == 2 && hb.shape.size() == 2 && ha.count > 0 &&
      hb.count > 0) {
    if (ha.shape[1] != hb.shape[0])
      throw UsageError("inner dimensions disagree: A is " + std::to_string(ha.shape[0]) + "x" +
                       std::to_string(ha.shape[1]) + ", B is " + std::to_string(hb.shape[0]) + "x" +
                       std::to_string(hb.shape[1]));
    check_gemm_size(ha.shape[0], hb.shape[1], ha.shape[1]);
  }
  Dataset d;
  int64_t m, k, k2, n;
  d.a = read_matrix(pa, m, k);
  d.b = read_matrix(pb, k2, n);
  if (k != k2) throw UsageError("inner dimensions disagree between '" + pa + "' and '" + pb + "'");
  d.family = "gemm";
  d.generator = "file";
  d.source = spec;
  d.rows = m;
  d.cols = n;
  d.inner = k;
  d.n = k;
  d.c.assign(static_cast<size_t>(m * n), 0.0f);
  d.data["alpha"] = float_hex(1.0f);
  d.data["beta"] = float_hex(0.0f);
  d.id = next_dataset_id();
  return d;
}

}  // namespace accsum
