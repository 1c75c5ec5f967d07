/* Test plugins that reach outside their call, one per ESCAPING_CASE (tests/test_plugin_guards.cpp):
 *   1 writes result[1..64], past its one output      2 writes into its const input x
 *   3 crashes in a library constructor (at dlopen)    4 crashes in its entry point
 *   5 calls exit(0) in compute                        6 calls exit(0) in a library constructor
 *   7 calls exit(0) in its entry point                8 calls quick_exit(0) in compute
 *   9 sets a decimal-comma locale (de_DE.UTF-8) and prints to stdout, in its entry point and compute
 *  10 a gemm that writes one float past c_out       11 writes result[-1], just before its output
 *  12 an honest sum whose integer parameter `blocks` (1 .. 10^9) is swept */
#define _ISOC11_SOURCE
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accsum/plugin.h>

#include "recursive_sum.h"

static volatile double* volatile nowhere = NULL;

static int escaping_sum(const accsum_call* call) {
  recursive_sum(call);
#if ESCAPING_CASE == 1
  for (int i = 1; i <= 64; ++i) call->result[i] = 1.0;
#elif ESCAPING_CASE == 2
  if (call->n > 0) ((double*)call->x)[0] = 0.0;
#elif ESCAPING_CASE == 5
  exit(0);
#elif ESCAPING_CASE == 8
  quick_exit(0);
#elif ESCAPING_CASE == 9
  setlocale(LC_ALL, "de_DE.UTF-8");
  printf("noise from compute %g\n", 2.5);
#elif ESCAPING_CASE == 11
  call->result[-1] = 1.0;
#endif
  return 0;
}

static int escaping_gemm(const accsum_call* call) {
  for (int64_t j = 0; j < call->cols; ++j)
    for (int64_t i = 0; i < call->rows; ++i) {
      double s = 0.0;
      for (int64_t l = 0; l < call->inner; ++l)
        s += (double)call->a[i + l * call->rows] * (double)call->b[l + j * call->inner];
      call->c_out[i + j * call->rows] =
          (float)(call->alpha * s + (call->c ? call->beta * call->c[i + j * call->rows] : 0.0));
    }
  call->c_out[call->rows * call->cols] = 1.0f; /* one past the end */
  return 0;
}

#if ESCAPING_CASE == 3 || ESCAPING_CASE == 6
__attribute__((constructor)) static void on_load(void) {
#if ESCAPING_CASE == 3
  (void)*nowhere;
#else
  exit(0);
#endif
}
#endif

static const accsum_param blocks_param[] = {
    {.name = "blocks", .help = "a swept integer", .choices = NULL, .min = 1, .max = 1000000000, .default_value = "64"}};

static const accsum_algorithm algorithms[] = {{.name = "escaping-algo",
                                               .summary = "a plugin that reaches outside its call",
#if ESCAPING_CASE == 10
                                               .family = ACCSUM_FAMILY_GEMM,
                                               .compute = escaping_gemm,
#else
                                               .family = ACCSUM_FAMILY_SUM,
                                               .compute = escaping_sum,
#endif
#if ESCAPING_CASE == 12
                                               .params = blocks_param,
                                               .param_count = 1,
                                               .claim = ACCSUM_CLAIM_NONE,
#endif
                                               .backend = ACCSUM_BACKEND_CPU}};

ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "escaping", algorithms, 1};
  (void)host_abi_version;
  (void)escaping_gemm;
  (void)blocks_param;
#if ESCAPING_CASE == 4
  (void)*nowhere;
#elif ESCAPING_CASE == 7
  exit(0);
#elif ESCAPING_CASE == 9
  setlocale(LC_ALL, "de_DE.UTF-8");
  printf("noise from the entry point\n");
#endif
  return &plugin;
}
