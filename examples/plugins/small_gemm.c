/* An accsum plugin: a small float GEMM, C = alpha*A*B + beta*C (column-major, as BLAS SGEMM),
 * products accumulated in float or in double (--param accumulate=float,double). It claims nothing:
 * accsum judges every entry against the exact product. */
#include <string.h>

#include <accsum/plugin.h>

static int small_gemm(const accsum_call* call) {
  const int wide = strcmp(call->param_values[0], "double") == 0;
  const int64_t m = call->rows, n = call->cols, k = call->inner;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float fs = 0.0f;
      double ds = 0.0;
      for (int64_t l = 0; l < k; ++l) {
        const float a = call->a[i + l * m], b = call->b[l + j * k];
        if (wide)
          ds += (double)a * (double)b; /* a float product is exact in double */
        else
          fs += a * b;
      }
      const double ab = wide ? ds : (double)fs;
      const double c = call->c ? (double)call->beta * call->c[i + j * m] : 0.0;
      call->c_out[i + j * m] = (float)((double)call->alpha * ab + c);
    }
  return 0;
}

static const char* const accumulate_choices[] = {"float", "double", NULL};
static const accsum_param params[] = {{.name = "accumulate",
                                       .help = "precision the products are summed in",
                                       .choices = accumulate_choices,
                                       .default_value = "double"}};

static const accsum_algorithm algorithms[] = {{.name = "gemm-plugin",
                                               .summary = "triple-loop SGEMM, float or double accumulation (a plugin)",
                                               .family = ACCSUM_FAMILY_GEMM,
                                               .backend = ACCSUM_BACKEND_CPU,
                                               .claim = ACCSUM_CLAIM_NONE,
                                               .params = params,
                                               .param_count = 1,
                                               .compute = small_gemm}};

ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "gemm-example", algorithms, 1};
  (void)host_abi_version;
  return &plugin;
}
