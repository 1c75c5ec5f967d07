/* An accsum plugin that claims too much: plain recursive summation declared correctly rounded.
 * `accsum verify` must catch it (exit 1), shrink a failing input to a few elements and print the
 * `accsum bench --input=...` command that reproduces the failure. */
#include <accsum/plugin.h>

static int naive_sum(const accsum_call* call) {
  double s = 0.0;
  for (int64_t i = 0; i < call->n; ++i) s += call->x[i];
  call->result[0] = s;
  return 0;
}

static const accsum_algorithm algorithms[] = {{.name = "overclaimed-sum",
                                               .summary = "recursive summation, falsely claiming correct rounding",
                                               .family = ACCSUM_FAMILY_SUM,
                                               .backend = ACCSUM_BACKEND_CPU,
                                               .claim = ACCSUM_CLAIM_CORRECTLY_ROUNDED,
                                               .compute = naive_sum}};

ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "false-claim-example", algorithms, 1};
  (void)host_abi_version;
  return &plugin;
}
