#pragma once
// Host SGEMM with selective compensation (families/gemm/gemm_serial.hpp), cache-blocked: a block of IB
// rows times JB columns keeps its running totals in small arrays, and every entry still receives
// its products in the order k = 0..K-1 with exactly the operations of gemm::dot_entry, so the
// result is bit for bit the readable definition's (tests/families/test_gemm.cpp checks it). cpu runs the
// column blocks in order, cpu-mt spreads them over threads.
#include <cstdint>
#include <memory>
#include <string>

#include "core/frame/registry.hpp"

namespace accsum::gemm {

struct HostGemmSpec {
  int comp = 0;  // gemm::Comp
  int tile = 64;
  bool fma = true;
  float alpha = 1.0f, beta = 0.0f;
};

HostGemmSpec host_spec(const Problem& p, int comp, const Params& prm);

// Columns [j0, j1) of C = alpha*A*B + beta*C into out (column-major, ldc = rows).
void host_gemm_columns(const Problem& p, const HostGemmSpec& s, float* out, int64_t j0, int64_t j1);

// The column blocks host_gemm_columns is called on by cpu-mt (whole blocks per thread).
constexpr int64_t kHostColumnBlock = 4;

#if defined(ACCSUM_HAVE_OPENBLAS)
// OpenBLAS cblas_sgemm (cblas_dgemm) on `threads` threads: the vendor baseline of the host backends.
std::unique_ptr<Kernel> make_openblas(const Problem& p, int threads);
std::unique_ptr<Kernel> make_openblas_dgemm(const Problem& p, int threads);
#endif

}  // namespace accsum::gemm
