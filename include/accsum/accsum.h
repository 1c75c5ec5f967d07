/* accsum as a library: accsum's accurate sums and dot products, called from C or C++.
 *
 * Each function runs the algorithm the accsum tool registers and measures under that name on
 * that backend (the same kernels, not copies):
 *   accsum_sum, accsum_dot             superacc / superacc-dot on cpu: correctly rounded,
 *                                      reproducible (the exact sum, rounded once to nearest)
 *   accsum_sum_mt, accsum_dot_mt       the same on cpu-mt (threads; same bits for any count)
 *   accsum_dpsumk, accsum_dpdotk       DPSumK / DPDotK on cpu: as accurate as if computed in K-fold
 *                                      working precision, then rounded (Ogita, Rump, Oishi, "Accurate
 *                                      sum and dot product", SIAM J. Sci. Comput. 26(6), 2005)
 *   accsum_*_cuda                      the same algorithms on CUDA device pointers
 * IEEE 754 special values: a NaN in the input gives NaN, +inf and -inf together give NaN.
 *
 * Every function returns ACCSUM_OK or an error code; accsum_last_error() then says why (for
 * the calling thread). Link with accsum::accsum (CMake: find_package(accsum)) or
 * `pkg-config --cflags --libs accsum`. */
#ifndef ACCSUM_ACCSUM_H
#define ACCSUM_ACCSUM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum accsum_status {
  ACCSUM_OK = 0,
  ACCSUM_EINVAL = 1,       /* an argument is invalid (NULL pointer, n < 0, K out of range, ...)    */
  ACCSUM_EUNAVAILABLE = 2, /* the backend is not built in or not present (no GPU)                */
  ACCSUM_EFAILED = 3       /* the computation failed (out of memory, a CUDA error)                 */
};

/* The library's version, e.g. "0.1.0". */
const char* accsum_version(void);
/* Why the calling thread's last call failed ("" after a success). */
const char* accsum_last_error(void);

/* Correctly rounded sum of x[0..n) and dot product of x and y, on one thread. */
int accsum_sum(const double* x, int64_t n, double* result);
int accsum_dot(const double* x, const double* y, int64_t n, double* result);
/* The same on `threads` threads (0: $ACCSUM_THREADS, else every hardware thread). */
int accsum_sum_mt(const double* x, int64_t n, int threads, double* result);
int accsum_dot_mt(const double* x, const double* y, int64_t n, int threads, double* result);

/* DPSumK and DPDotK, K = 2 .. 64 (K = 2: as if summed in twice the working precision). */
int accsum_dpsumk(const double* x, int64_t n, int K, double* result);
int accsum_dpdotk(const double* x, const double* y, int64_t n, int K, double* result);

/* 1 when this library was built with CUDA and a device is present, else 0. */
int accsum_has_cuda(void);
/* CUDA: x and y are device pointers of the current device; stream is a cudaStream_t (NULL: the
 * default stream). The call waits for the work already queued on `stream`, computes, and returns
 * with the result in host memory (*result). */
int accsum_sum_cuda(const double* x, int64_t n, void* stream, double* result);
int accsum_dot_cuda(const double* x, const double* y, int64_t n, void* stream, double* result);
int accsum_dpsumk_cuda(const double* x, int64_t n, int K, void* stream, double* result);
int accsum_dpdotk_cuda(const double* x, const double* y, int64_t n, int K, void* stream, double* result);

#ifdef __cplusplus
}
#endif
#endif /* ACCSUM_ACCSUM_H */
