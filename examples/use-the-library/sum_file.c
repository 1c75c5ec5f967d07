/* Reads a raw file of little-endian doubles and prints, as exact hex floats, its correctly
 * rounded sum (one thread and three), the correctly rounded dot product of its two halves, and
 * DPSumK / DPDotK for K = 2 and 3: the same numbers `accsum bench --input=FILE` reports for
 * superacc, superacc-dot, dpsumk and dpdotk. */
#include <accsum/accsum.h>
#include <stdio.h>
#include <stdlib.h>

static int check(int status, const char* what) {
  if (status != ACCSUM_OK) {
    fprintf(stderr, "%s: %s\n", what, accsum_last_error());
    exit(1);
  }
  return status;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE (raw float64)\n", argv[0]);
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  size_t cap = 1024, n = 0;
  double* x = malloc(cap * sizeof *x);
  while (x && (n += fread(x + n, sizeof *x, cap - n, f)) == cap) x = realloc(x, (cap *= 2) * sizeof *x);
  fclose(f);
  if (!x) return 2;
  const int64_t half = (int64_t)n / 2;
  double r;
  check(accsum_sum(x, (int64_t)n, &r), "accsum_sum");
  printf("sum %a\n", r);
  check(accsum_sum_mt(x, (int64_t)n, 3, &r), "accsum_sum_mt");
  printf("sum_mt %a\n", r);
  check(accsum_dot(x, x + half, half, &r), "accsum_dot");
  printf("dot %a\n", r);
  check(accsum_dot_mt(x, x + half, half, 3, &r), "accsum_dot_mt");
  printf("dot_mt %a\n", r);
  for (int K = 2; K <= 3; ++K) {
    check(accsum_dpsumk(x, (int64_t)n, K, &r), "accsum_dpsumk");
    printf("dpsumk K=%d %a\n", K, r);
    check(accsum_dpdotk(x, x + half, half, K, &r), "accsum_dpdotk");
    printf("dpdotk K=%d %a\n", K, r);
  }
  printf("version %s, cuda %s\n", accsum_version(), accsum_has_cuda() ? "present" : "absent");
  free(x);
  return 0;
}
