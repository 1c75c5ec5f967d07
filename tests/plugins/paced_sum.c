/* A plugin for measuring compare's speed gate (scripts/speed_gate_rates.py): recursive summation
 * that, built with -DSLOWDOWN_PERCENT=P, adds the first P % of the elements a second time into a
 * discarded sum, so the build with P = 10 is about 10 % slower than the one with P = 0 while the
 * row (name, family, parameters) stays the same. */
#include <accsum/plugin.h>

#ifndef SLOWDOWN_PERCENT
#define SLOWDOWN_PERCENT 0
#endif

static volatile double sink;

static int paced_sum(const accsum_call* call) {
  double s = 0.0;
  for (int64_t i = 0; i < call->n; ++i) s += call->x[i];
  double extra = 0.0;
  for (int64_t i = 0; i < call->n / 100 * SLOWDOWN_PERCENT; ++i) extra += call->x[i];
  sink = extra;
  call->result[0] = s;
  return 0;
}

static const accsum_algorithm algorithms[] = {{.name = "paced-sum",
                                               .summary = "recursive summation, slowed by SLOWDOWN_PERCENT at build",
                                               .family = ACCSUM_FAMILY_SUM,
                                               .backend = ACCSUM_BACKEND_CPU,
                                               .claim = ACCSUM_CLAIM_NONE,
                                               .compute = paced_sum}};

ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "paced-sum", algorithms, 1};
  (void)host_abi_version;
  return &plugin;
}
