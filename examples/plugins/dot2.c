/* An accsum plugin: Dot2, the dot product computed as if in twice the working precision
 * (Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Sec. 5),
 * claiming a bound of the DotK family at K = 2:
 *   |result - x.y| <= (u + 2 g^2) |x.y| + g^2 sum |x_i y_i|,  g = gamma_{4n-2}, gamma_k = k u / (1 - k u),
 * u = 2^-53, for 8 n u <= 1, when no product underflows and nothing overflows; TwoProduct by FMA or by Dekker's Split
 * (--param twoprod=fma,split; Split also needs |x_i|, |y_i| <= 2^996).
 * Error-free transforms need IEEE semantics: build with -ffp-contract=off. */
#include <math.h>
#include <string.h>

#include <accsum/plugin.h>

static void two_sum(double a, double b, double* s, double* e) {
  *s = a + b;
  double z = *s - a;
  *e = (a - (*s - z)) + (b - z);
}

static void split(double a, double* hi, double* lo) {
  double c = 134217729.0 * a; /* 2^27 + 1 */
  *hi = c - (c - a);
  *lo = a - *hi;
}

static void two_product(double a, double b, int use_fma, double* p, double* e) {
  *p = a * b;
  if (use_fma) {
    *e = fma(a, b, -*p);
  } else {
    double ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    *e = al * bl - (((*p - ah * bh) - al * bh) - ah * bl);
  }
}

static int dot2(const accsum_call* call) {
  const int use_fma = strcmp(call->param_values[0], "fma") == 0;
  double s = 0.0, c = 0.0;
  for (int64_t i = 0; i < call->n; ++i) {
    double p, q, e;
    two_product(call->x[i], call->y[i], use_fma, &p, &e);
    two_sum(s, p, &s, &q);
    c += q + e;
  }
  call->result[0] = s + c;
  return 0;
}

static double dot2_bound(const accsum_facts* f, const char* const* params) {
  const double u = 0x1p-53;
  if (f->products_underflow || f->partial_sums_may_overflow) return -1.0;
  if (strcmp(params[0], "split") == 0 && (f->max_abs_x > 0x1p996 || f->max_abs_y > 0x1p996)) return -1.0;
  if (8.0 * (double)f->n * u > 1.0) return -1.0;
  const double ku = (4.0 * (double)f->n - 2.0) * u;
  const double g2 = ku / (1.0 - ku) * (ku / (1.0 - ku));
  /* enlarged by 2^-40 relative, so that the rounding of this evaluation cannot undercut it */
  return ((u + 2.0 * g2) * f->abs_exact + g2 * f->sum_abs) * (1.0 + 0x1p-40);
}

static const char* const twoprod_choices[] = {"fma", "split", NULL};
static const accsum_param params[] = {{.name = "twoprod",
                                       .help = "TwoProduct by one FMA or by Dekker's Split",
                                       .choices = twoprod_choices,
                                       .default_value = "fma"}};

static const accsum_algorithm algorithms[] = {{.name = "dot2-plugin",
                                               .summary = "Dot2 (Ogita-Rump-Oishi 2005), claiming its proven bound",
                                               .family = ACCSUM_FAMILY_DOT,
                                               .backend = ACCSUM_BACKEND_CPU,
                                               .claim = ACCSUM_CLAIM_BOUND,
                                               .bound = dot2_bound,
                                               .params = params,
                                               .param_count = 1,
                                               .compute = dot2}};

ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "dot2-example", algorithms, 1};
  (void)host_abi_version;
  return &plugin;
}
