#include "datasets/gemm_data.hpp"

#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "datasets/npy_input.hpp"
#include "datasets/rng.hpp"

namespace accsum {
namespace {

constexpr uint64_t kStreamA = 10, kStreamB = 11, kStreamC = 12;

// Significand bits of F, the implicit one included.
template <class F>
constexpr int significand() {
  return std::numeric_limits<F>::digits;
}

template <class F>
F u01(const rng::CounterRng& r, uint64_t i) {
  constexpr int kBits = significand<F>();
  return std::ldexp(static_cast<F>(r.u64(i, 0) >> (64 - kBits)), -kBits);
}
template <class F>
F usym(const rng::CounterRng& r, uint64_t i) {
  constexpr int kBits = significand<F>();
  return std::ldexp(static_cast<F>(static_cast<int64_t>(r.u64(i, 0) >> (63 - kBits)) - (int64_t(1) << kBits)), -kBits);
}
// (1 + v) 2^e, v a fraction of the format's bits, e uniform on [lo, lo + span], random sign.
template <class F>
F logu(const rng::CounterRng& r, uint64_t i, int lo, int span) {
  constexpr int kFrac = significand<F>() - 1;
  uint64_t bits = r.u64(i, 0);
  int e = lo + static_cast<int>(r.u64(i, 1) % static_cast<uint64_t>(span + 1));
  F v = std::ldexp(F(1) + std::ldexp(static_cast<F>((bits >> (64 - kFrac)) & ((uint64_t{1} << kFrac) - 1)), -kFrac), e);
  return (bits & 1) ? -v : v;
}

double physical_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * size : 8e9;
}

template <class F, class Fn>
void fill(std::vector<F>& v, int64_t n, Fn fn) {
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

// What each element type is called in .npy files and messages.
template <class F>
struct NpyType {
  static constexpr const char* descr = "<f4";
  static constexpr const char* name = "float32";
  static constexpr const char* family = "gemm";
};
template <>
struct NpyType<double> {
  static constexpr const char* descr = "<f8";
  static constexpr const char* name = "float64";
  static constexpr const char* family = "dgemm";
};

// One 2-D matrix of F through the one .npy reader (datasets/npy_input.hpp), returned
// column-major.
template <class F>
std::vector<F> read_matrix(const std::string& path, int64_t& rows, int64_t& cols) {
  using T = NpyType<F>;
  InFile in(path);
  const NpyHeader h = read_npy_header(in);
  const std::string shape = npy_shape_text(h.shape);
  if (h.descr != T::descr)
    npy_fail(path, "dtype '" + h.descr + "' is not " + T::name + " ('" + T::descr + "'); the " + T::family +
                       " family reads " + T::name + " matrices");
  if (h.shape.size() != 2)
    npy_fail(path, "shape " + shape + " is not 2-D; the " + std::string(T::family) + " family reads matrices");
  rows = h.shape[0];
  cols = h.shape[1];
  if (rows < 1 || cols < 1) npy_fail(path, "shape " + shape + " holds no data");
  if (rows > INT_MAX || cols > INT_MAX || static_cast<double>(rows) * cols * sizeof(F) > physical_bytes() / 4)
    npy_fail(path, "shape " + shape + " is too large");
  require_npy_data(in, h);
  const size_t n = static_cast<size_t>(rows * cols);
  std::vector<F> raw(n);
  in.read(raw.data(), n * sizeof(F));
  if (h.fortran_order) return raw;
  std::vector<F> cm(n);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) cm[i + j * rows] = raw[i * cols + j];
  return cm;
}

}  // namespace

std::string float_hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

const std::vector<std::string>& gemm_dist_names() {
  static const std::vector<std::string> names{"uniform", "uniform-sym", "loguniform", "illcond"};
  return names;
}

// A, B, C, a result, and the oracle's about 40 bytes per entry.
template <class F>
double gemm_bytes(int64_t m, int64_t n, int64_t k) {
  return double(sizeof(F)) * (double(m) * k + double(k) * n) + (40.0 + 2 * sizeof(F)) * double(m) * n;
}

template <class F>
void check_gemm_size(int64_t m, int64_t n, int64_t k) {
  if (m < 1 || n < 1 || k < 1)
    throw UsageError("gemm shapes must be at least 1 (M, N, K = " + std::to_string(m) + ", " + std::to_string(n) +
                     ", " + std::to_string(k) + ")");
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) throw UsageError("gemm dimensions must be below 2^31 (BLAS indices)");
  if (gemm_bytes<F>(m, n, k) > physical_bytes() / 2)
    throw UsageError("gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                     " is too large for this machine's memory");
}

template <class F>
Dataset generate_gemm(const GemmGenSpec& s) {
  check_gemm_size<F>(s.rows, s.cols, s.inner);
  const auto& names = gemm_dist_names();
  if (std::find(names.begin(), names.end(), s.dist) == names.end())
    throw UsageError("unknown gemm generator '" + s.dist + "' (uniform, uniform-sym, loguniform, illcond)");
  // Within the format's range: float 1e30, double 1e300 (the loguniform window is centred on 2^0).
  constexpr double kMaxSpread = sizeof(F) == 4 ? 1e30 : 1e300;
  const std::string limits =
      std::string(sizeof(F) == 4 ? "[1, 1e30]" : "[1, 1e300]") + " for the " + NpyType<F>::family + " family";
  if (!(s.range >= 1 && s.range <= kMaxSpread)) throw UsageError("--range must be in " + limits);
  if (!(s.cond >= 1 && s.cond <= kMaxSpread)) throw UsageError("--cond must be in " + limits);
  const int64_t M = s.rows, N = s.cols, K = s.inner;
  rng::CounterRng ra(s.seed, kStreamA), rb(s.seed, kStreamB), rc(s.seed, kStreamC);
  Dataset d;
  d.family = NpyType<F>::family;
  d.generator = s.dist;
  std::vector<F>&a = d.*MatricesOf<F>::a, &b = d.*MatricesOf<F>::b, &c = d.*MatricesOf<F>::c;
  d.seed = s.seed;
  d.n = K;
  d.rows = M;
  d.cols = N;
  d.inner = K;
  d.data["alpha"] = float_hex(s.alpha);
  d.data["beta"] = float_hex(s.beta);
  if (s.dist == "uniform") {
    fill(a, M * K, [&](int64_t i) { return u01<F>(ra, i); });
    fill(b, K * N, [&](int64_t i) { return u01<F>(rb, i); });
    fill(c, M * N, [&](int64_t i) { return u01<F>(rc, i); });
  } else if (s.dist == "uniform-sym") {
    fill(a, M * K, [&](int64_t i) { return usym<F>(ra, i); });
    fill(b, K * N, [&](int64_t i) { return usym<F>(rb, i); });
    fill(c, M * N, [&](int64_t i) { return usym<F>(rc, i); });
  } else if (s.dist == "loguniform") {
    d.range = s.range;
    int span = static_cast<int>(std::lround(std::log2(s.range)));
    span = span < 1 ? 0 : span - 1;
    int lo = -((span + 1) / 2);
    fill(a, M * K, [&](int64_t i) { return logu<F>(ra, i, lo, span); });
    fill(b, K * N, [&](int64_t i) { return logu<F>(rb, i, lo, span); });
    fill(c, M * N, [&](int64_t i) { return logu<F>(rc, i, lo, span); });
  } else {  // illcond
    d.target_cond = s.cond;
    const int64_t h = (K - 1) / 2;
    const int t = static_cast<int>(std::ceil(std::log2(s.cond) / 2));
    fill(a, M * K, [&](int64_t idx) {
      int64_t i = idx % M, k = idx / M;
      if (k < 2 * h) return logu<F>(ra, static_cast<uint64_t>(i + (k % h) * M), -8, 16);
      return logu<F>(ra, static_cast<uint64_t>(idx), -t, 0);
    });
    fill(b, K * N, [&](int64_t idx) {
      int64_t k = idx % K, j = idx / K;
      if (k < h) return logu<F>(rb, static_cast<uint64_t>(idx), -8, 16);
      if (k < 2 * h) return -logu<F>(rb, static_cast<uint64_t>(k - h + j * K), -8, 16);
      return logu<F>(rb, static_cast<uint64_t>(idx), -t, 0);
    });
    fill(c, M * N, [&](int64_t i) { return usym<F>(rc, i); });
  }
  d.id = next_dataset_id();
  return d;
}

template <class F>
Dataset read_gemm_npy(const std::string& spec) {
  using T = NpyType<F>;
  const std::vector<std::string> paths = input_paths(spec);  // datasets/npy_input.hpp
  if (paths.size() != 2)
    throw UsageError(std::string("the ") + T::family + " family reads --input=A.npy,B.npy (two 2-D " + T::name +
                     " .npy files), got '" + spec + "'");
  const std::string &pa = paths[0], &pb = paths[1];
  for (auto* p : {&pa, &pb})
    if (file_extension(*p) != ".npy")
      throw UsageError("'" + *p + "': the " + T::family + " family reads .npy files (--input=A.npy,B.npy)");
  // Both headers judged before any data is read: the shapes agree and the product fits.
  const NpyHeader ha = peek_npy_header(pa), hb = peek_npy_header(pb);
  if (ha.descr == T::descr && hb.descr == T::descr && ha.shape.size() == 2 && hb.shape.size() == 2 && ha.count > 0 &&
      hb.count > 0) {
    if (ha.shape[1] != hb.shape[0])
      throw UsageError("inner dimensions disagree: A is " + std::to_string(ha.shape[0]) + "x" +
                       std::to_string(ha.shape[1]) + ", B is " + std::to_string(hb.shape[0]) + "x" +
                       std::to_string(hb.shape[1]));
    check_gemm_size<F>(ha.shape[0], hb.shape[1], ha.shape[1]);
  }
  Dataset d;
  int64_t m, k, k2, n;
  d.*MatricesOf<F>::a = read_matrix<F>(pa, m, k);
  d.*MatricesOf<F>::b = read_matrix<F>(pb, k2, n);
  if (k != k2) throw UsageError("inner dimensions disagree between '" + pa + "' and '" + pb + "'");
  d.family = T::family;
  d.generator = "file";
  d.source = spec;
  d.rows = m;
  d.cols = n;
  d.inner = k;
  d.n = k;
  (d.*MatricesOf<F>::c).assign(static_cast<size_t>(m * n), F(0));
  d.data["alpha"] = float_hex(1.0);
  d.data["beta"] = float_hex(0.0);
  d.id = next_dataset_id();
  return d;
}

template Dataset generate_gemm<float>(const GemmGenSpec&);
template Dataset generate_gemm<double>(const GemmGenSpec&);
template Dataset read_gemm_npy<float>(const std::string&);
template Dataset read_gemm_npy<double>(const std::string&);
template double gemm_bytes<float>(int64_t, int64_t, int64_t);
template double gemm_bytes<double>(int64_t, int64_t, int64_t);
template void check_gemm_size<float>(int64_t, int64_t, int64_t);
template void check_gemm_size<double>(int64_t, int64_t, int64_t);

}  // namespace accsum
