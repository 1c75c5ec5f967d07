#pragma once
// The int8 x int8 -> int32 products of the Ozaki scheme (C (+)= A^T B, column-major) through cuBLASLt,
// with the algorithm chosen by timing: cuBLAS's own pick for these shapes runs about 17 % below the
// fastest of its heuristic candidates on an H100 (int8 8192^3: 0.79 against 0.66 ms). The products are
// exact integers whatever the algorithm, so the choice changes the time, never the bits.
#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/cuda_common.cuh"

namespace accsum::cuda {

// One shape of product: C (m x n, leading dimension ldc) = A^T B (+ C with accumulate), where A is
// stored k x m (leading dimension lda) and B k x n (leading dimension ldb); with batch > 1, `batch`
// such products, the b-th on A + b stride_a, B + b stride_b, C + b stride_c (one launch pays the waves'
// tail once: on an H100 about 10 % faster at N = 4096, within the run-to-run spread at 8192; tune() times
// it against `batch` single launches).
struct Int8GemmShape {
  int m, n, k, lda, ldb, ldc;
  bool accumulate;
  int batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  bool operator<(const Int8GemmShape& o) const;
};

class Int8Gemm {
 public:
  // A shape's choice: the algorithm, its workspace, the time of one call, and for a batch whether it
  // runs as `batch` single products (split) with the single shape's algorithm.
  struct Choice {
    cublasLtMatmulAlgo_t algo;
    size_t workspace;
    float ms;
    bool split;
  };

  Int8Gemm();
  ~Int8Gemm();
  Int8Gemm(const Int8Gemm&) = delete;
  Int8Gemm& operator=(const Int8Gemm&) = delete;

  // Chooses the algorithm of a shape (once per shape and device in this process: later calls reuse
  // it) by timing cuBLASLt's candidates on a, b and c, which it overwrites; a batch also times its
  // products as single launches and keeps the faster form. Returns the seconds spent.
  double tune(const Int8GemmShape& s, const int8_t* a, const int8_t* b, int32_t* c);
  // Whether tune() has chosen this shape's algorithm on this device.
  bool tuned(const Int8GemmShape& s) const;
  // The launches run() makes for a tuned shape: 1, or `batch` where single launches were faster.
  int launches(const Int8GemmShape& s) const;
  // The product with the tuned algorithm (tune() first).
  void run(const Int8GemmShape& s, const int8_t* a, const int8_t* b, int32_t* c);

 private:
  Choice fastest(const Int8GemmShape& s, const int8_t* a, const int8_t* b, int32_t* c);

  cublasLtHandle_t lt_{};
  DeviceBuffer<char> workspace_;
};

}  // namespace accsum::cuda
