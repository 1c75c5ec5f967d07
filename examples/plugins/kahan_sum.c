/* An accsum plugin: Kahan's compensated sum (W. Kahan, "Further remarks on reducing truncation
 * errors", CACM 8(1), 1965). It claims no guarantee: accsum measures its error all the same.
 *   cc -O2 -shared -fPIC -I include examples/plugins/kahan_sum.c -o kahan_sum.so
 *   accsum bench --plugin=./kahan_sum.so --algo=kahan-plugin */
#include <accsum/plugin.h>

static int kahan_sum(const accsum_call* call) {
  double s = 0.0, c = 0.0;
  for (int64_t i = 0; i < call->n; ++i) {
    double y = call->x[i] - c;
    double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  call->result[0] = s;
  return 0;
}

static const accsum_algorithm algorithms[] = {{.name = "kahan-plugin",
                                               .summary = "Kahan compensated summation (a plugin, claims nothing)",
                                               .family = ACCSUM_FAMILY_SUM,
                                               .backend = ACCSUM_BACKEND_CPU,
                                               .claim = ACCSUM_CLAIM_NONE,
                                               .compute = kahan_sum}};

ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "kahan-example", algorithms, 1};
  (void)host_abi_version;
  return &plugin;
}
