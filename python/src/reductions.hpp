#pragma once
// The host computations behind `import accsum` (python/src/module.cpp binds them): each runs the
// registry entry the tool measures under that name (superacc, superacc-dot, dpsumk, dpdotk on cpu or
// cpu-mt; sgemm-ozaki, dgemm-ozaki on cpu), on C-ordered arrays the Python layer prepared.
#include <cstdint>
#include <string>

namespace accsum::python {

// Row-wise reductions of a (rows x n) C-ordered matrix (y: the same shape, or null), one result per
// row into out. `algo`: superacc, superacc-dot, dpsumk or dpdotk; K for the last two.
// threads: 0 = every hardware thread, 1 = the cpu entry.
struct Rows {
  const void* x = nullptr;
  const void* y = nullptr;
  void* out = nullptr;
  int64_t rows = 0, n = 0;
  bool single = false;  // float32 data and result (else float64)
};
void reduce_rows(const std::string& algo, const Rows& r, int threads, int K);

// out (M x N, C order) = a (M x K) times b (K x N), both C ordered, by the Ozaki-scheme entry of
// their format (sgemm-ozaki for float32, dgemm-ozaki for float64) with the CLI's --accuracy.
void matmul(const void* a, const void* b, void* out, int64_t M, int64_t K, int64_t N, bool single,
            const std::string& accuracy);

}  // namespace accsum::python
