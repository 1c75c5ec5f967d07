/* The device API: copies a raw float64 file to the GPU and prints the correctly rounded sum and
 * dot product (of the two halves) and DPSumK / DPDotK (K = 2) computed on device pointers, on a
 * stream of its own; the same lines, and the same bits, as sum_file prints for the host API. */
#include <accsum/accsum.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int status, const char* what) {
  if (status != ACCSUM_OK) {
    fprintf(stderr, "%s: %s\n", what, accsum_last_error());
    exit(1);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE (raw float64)\n", argv[0]);
    return 2;
  }
  if (!accsum_has_cuda()) {
    fprintf(stderr, "no CUDA device (or the library was built without CUDA)\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  const size_t n = (size_t)ftell(f) / sizeof(double);
  fseek(f, 0, SEEK_SET);
  double* x = malloc((n ? n : 1) * sizeof *x);
  if (!x || fread(x, sizeof *x, n, f) != n) return 2;
  fclose(f);
  double* dx = NULL;
  cudaStream_t stream;
  if (cudaMalloc((void**)&dx, (n ? n : 1) * sizeof *dx) != cudaSuccess || cudaStreamCreate(&stream) != cudaSuccess)
    return 2;
  cudaMemcpyAsync(dx, x, n * sizeof *dx, cudaMemcpyHostToDevice, stream); /* ordered before the sums */
  const int64_t half = (int64_t)n / 2;
  double r;
  check(accsum_sum_cuda(dx, (int64_t)n, stream, &r), "accsum_sum_cuda");
  printf("sum %a\n", r);
  check(accsum_dot_cuda(dx, dx + half, half, stream, &r), "accsum_dot_cuda");
  printf("dot %a\n", r);
  check(accsum_dpsumk_cuda(dx, (int64_t)n, 2, stream, &r), "accsum_dpsumk_cuda");
  printf("dpsumk K=2 %a\n", r);
  check(accsum_dpdotk_cuda(dx, dx + half, half, 2, stream, &r), "accsum_dpdotk_cuda");
  printf("dpdotk K=2 %a\n", r);
  cudaStreamDestroy(stream);
  cudaFree(dx);
  free(x);
  return 0;
}
