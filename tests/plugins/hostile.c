/* Test plugins that misbehave, one per HOSTILE_CASE (tests/frame/test_plugins.cpp loads each):
 *   1 no entry point           2 another ABI version      3 an empty algorithm name
 *   4 an unknown family         5 an unknown backend       6 a built-in's name ("kahan")
 *   7 a compute that fails (returns an error with a message)
 *   8 a compute that crashes (SIGSEGV)                    9 the same name as case 10's
 *  10 a valid plugin (the name clash partner of case 9)
 *  11 a float GEMM falsely claiming correct rounding (its counter-example cannot be written)
 *  12 a sum claiming reproducibility whose parameter `order` (forward, backward) changes its bits
 *  13 recursive summation falsely claiming faithful rounding
 *  14 a gemm claiming an error bound (only sum and dot plugins may)
 *  15 a sum stating an error bound while claiming none */
#include <string.h>
#include <stddef.h>

#include <accsum/plugin.h>

#include "recursive_sum.h"

static int failing_sum(const accsum_call* call) {
  const char text[] = "the device is on fire";
  size_t i = 0;
  for (; i + 1 < call->message_size && text[i]; ++i) call->message[i] = text[i];
  call->message[i] = 0;
  return 42;
}

static int float_gemm(const accsum_call* call) {
  for (int64_t j = 0; j < call->cols; ++j)
    for (int64_t i = 0; i < call->rows; ++i) {
      float s = 0.0f;
      for (int64_t l = 0; l < call->inner; ++l) s += call->a[i + l * call->rows] * call->b[l + j * call->inner];
      call->c_out[i + j * call->rows] = call->alpha * s + (call->c ? call->beta * call->c[i + j * call->rows] : 0.0f);
    }
  return 0;
}

static int ordered_sum(const accsum_call* call) {
  const int backward = strcmp(call->param_values[0], "backward") == 0;
  double s = 0.0;
  for (int64_t i = 0; i < call->n; ++i) s += call->x[backward ? call->n - 1 - i : i];
  call->result[0] = s;
  return 0;
}
static const char* const orders[] = {"forward", "backward", NULL};
static const accsum_param order_param[] = {
    {.name = "order", .help = "summation order", .choices = orders, .default_value = "forward"}};

static double any_bound(const accsum_facts* facts, const char* const* param_values) {
  (void)param_values;
  return facts->sum_abs;
}

static volatile double* volatile nowhere = NULL;
static int crashing_sum(const accsum_call* call) {
  call->result[0] = *nowhere; /* reads address 0: SIGSEGV */
  return 0;
}

#if HOSTILE_CASE == 3
#define NAME ""
#elif HOSTILE_CASE == 6
#define NAME "kahan"
#elif HOSTILE_CASE == 9 || HOSTILE_CASE == 10
#define NAME "clash-sum"
#else
#define NAME "hostile-sum"
#endif

#if HOSTILE_CASE == 4
#define FAMILY 77
#elif HOSTILE_CASE == 11 || HOSTILE_CASE == 14
#define FAMILY ACCSUM_FAMILY_GEMM
#else
#define FAMILY ACCSUM_FAMILY_SUM
#endif

#if HOSTILE_CASE == 5
#define BACKEND 99
#else
#define BACKEND ACCSUM_BACKEND_CPU
#endif

#if HOSTILE_CASE == 7
#define COMPUTE failing_sum
#elif HOSTILE_CASE == 8
#define COMPUTE crashing_sum
#elif HOSTILE_CASE == 11 || HOSTILE_CASE == 14
#define COMPUTE float_gemm
#elif HOSTILE_CASE == 12
#define COMPUTE ordered_sum
#else
#define COMPUTE recursive_sum
#endif

#if HOSTILE_CASE == 11
#define CLAIM ACCSUM_CLAIM_CORRECTLY_ROUNDED
#elif HOSTILE_CASE == 13
#define CLAIM ACCSUM_CLAIM_FAITHFUL
#elif HOSTILE_CASE == 14
#define CLAIM ACCSUM_CLAIM_BOUND
#else
#define CLAIM ACCSUM_CLAIM_NONE
#endif

#if HOSTILE_CASE == 14 || HOSTILE_CASE == 15
#define BOUND any_bound
#else
#define BOUND NULL
#endif

#if HOSTILE_CASE == 12
static const accsum_algorithm algorithms[] = {{.name = NAME,
                                               .summary = "a test plugin",
                                               .family = FAMILY,
                                               .backend = BACKEND,
                                               .claim = CLAIM,
                                               .reproducible = 1,
                                               .params = order_param,
                                               .param_count = 1,
                                               .compute = COMPUTE}};
#else
static const accsum_algorithm algorithms[] = {{.name = NAME,
                                               .summary = "a test plugin",
                                               .family = FAMILY,
                                               .backend = BACKEND,
                                               .claim = CLAIM,
                                               .bound = BOUND,
                                               .compute = COMPUTE}};
#endif

#if HOSTILE_CASE != 1
ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
#if HOSTILE_CASE == 2
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION + 1, "hostile", algorithms, 1};
#else
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "hostile", algorithms, 1};
#endif
  (void)host_abi_version;
  (void)recursive_sum;
  (void)failing_sum;
  (void)crashing_sum;
  (void)float_gemm;
  (void)ordered_sum;
  (void)order_param;
  (void)any_bound;
  return &plugin;
}
#else
ACCSUM_PLUGIN_EXPORT int not_the_entry_point(void) { return recursive_sum == NULL; }
#endif
