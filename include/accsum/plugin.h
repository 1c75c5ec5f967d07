/* accsum plugin ABI: bring an algorithm, get accsum's verification.
 *
 * A plugin is a shared library that exports one function, accsum_plugin_register, returning a
 * static description of the algorithms it provides. accsum owns every buffer and the exact
 * oracle; a plugin only computes. Plain C99: no C++ type crosses this boundary, so any compiler
 * or language that can build a shared library with C linkage can add an algorithm.
 *
 *   cc -O2 -shared -fPIC -I include my_sum.c -o my_sum.so
 *   accsum verify --plugin=./my_sum.so --algo=my-sum
 *
 * Version ACCSUM_PLUGIN_ABI_VERSION of this header; accsum refuses a plugin built against
 * another version. docs/plugins.md has a complete example. */
#ifndef ACCSUM_PLUGIN_H
#define ACCSUM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACCSUM_PLUGIN_ABI_VERSION 1

#if defined(_WIN32)
#define ACCSUM_PLUGIN_EXPORT __declspec(dllexport)
#else
#define ACCSUM_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* What the algorithm computes. */
enum accsum_family {
  ACCSUM_FAMILY_SUM = 1, /* result[0] = sum of x[0..n) (binary64)                           */
  ACCSUM_FAMILY_DOT = 2, /* result[0] = sum of x[i]*y[i] (binary64)                          */
  ACCSUM_FAMILY_GEMM = 3 /* c_out = alpha*A*B + beta*C, binary32, column-major (BLAS SGEMM)  */
};

/* Where it runs, and so what the pointers of an accsum_call are. */
enum accsum_backend {
  ACCSUM_BACKEND_CPU = 1, /* host pointers; the call returns when the result is written       */
  ACCSUM_BACKEND_CUDA = 2 /* device pointers (inputs and outputs) of the current CUDA device;
                             work goes on `stream` (a cudaStream_t) and may still be running
                             when the call returns: accsum synchronises the stream           */
};

/* The guarantee the algorithm claims; `accsum verify` holds it to it on every dataset. */
enum accsum_claim {
  ACCSUM_CLAIM_NONE = 0,             /* no accuracy claim (the error is still measured)      */
  ACCSUM_CLAIM_BOUND = 1,            /* |error| <= bound(facts), see accsum_bound_fn; sum and
                                        dot only (the facts describe a vector)              */
  ACCSUM_CLAIM_FAITHFUL = 2,         /* the result is one of the two doubles around the exact value */
  ACCSUM_CLAIM_CORRECTLY_ROUNDED = 3 /* the exact value rounded to nearest (sum, dot)       */
};

/* One parameter: a name (an accsum command-line parameter, swept with --param NAME=a,b), and
 * its allowed values: the NULL-terminated list `choices`, or, when choices is NULL, the
 * integers min..max. Values reach the plugin as text, in the order the parameters are given.
 * `accsum verify` holds the claim for every choice, and for an integer range at every value
 * when it has fewer than 16, else at its ends, its default, 0 (when inside) and log-spaced
 * points between; a reproducibility claim is checked over the same values. */
typedef struct accsum_param {
  const char* name;           /* [a-z][a-z0-9_]*                                              */
  const char* help;           /* one line                                                      */
  const char* const* choices; /* NULL-terminated, or NULL for an integer range               */
  long long min, max;         /* the integer range when choices is NULL                       */
  const char* default_value;  /* one of the allowed values                                     */
} accsum_param;

/* One computation. Inputs and outputs are owned by accsum and live for the call. On cpu each
 * buffer ends against an inaccessible page and the inputs are read-only: reading or writing past
 * a buffer, or writing an input, is a crash that ends the run (exit 3, one line naming the
 * plugin), as is calling exit(). During a call the standard output is the standard error, and
 * the locale a plugin sets is reset to "C" when the call returns. */
typedef struct accsum_call {
  /* sum: x[0..n); dot: x[0..n), y[0..n) */
  const double* x;
  const double* y;
  int64_t n;
  /* gemm: A (rows x inner), B (inner x cols), C (rows x cols; NULL when beta == 0),
   * column-major floats */
  const float* a;
  const float* b;
  const float* c;
  int64_t rows, cols, inner;
  float alpha, beta;
  /* outputs: sum and dot write result[0]; gemm writes c_out[0 .. rows*cols) */
  double* result;
  float* c_out;
  /* the values of the algorithm's parameters, in declaration order (param_count of them) */
  const char* const* param_values;
  int param_count;
  /* cuda: the cudaStream_t to run on; NULL on cpu */
  void* stream;
  /* on failure: a message (NUL-terminated, at most message_size bytes) */
  char* message;
  size_t message_size;
} accsum_call;

/* Computes one call; returns 0 on success, anything else on failure (with a message). */
typedef int (*accsum_compute_fn)(const accsum_call* call);

/* Exact facts about the data, computed by accsum's oracle, for stating a bound. */
typedef struct accsum_facts {
  int64_t n;
  double abs_exact;              /* |exact result| (sum or dot), rounded to nearest                       */
  double sum_abs;                /* sum |x_i| (sum) or sum |x_i y_i| (dot), rounded up                    */
  double max_abs_x;              /* max |x_i|                                                             */
  double max_abs_y;              /* max |y_i| (0 for a sum)                                               */
  int products_underflow;        /* dot: some nonzero exact product |x_i*y_i| is below 2^-969,
                                    where its TwoProduct error term need not be a double     */
  int partial_sums_may_overflow; /* sum |x_i| (or |x_i y_i|) exceeds 2^1021                    */
} accsum_facts;

/* ACCSUM_CLAIM_BOUND: the absolute error bound for these data and parameter values; return
 * a negative number where the bound claims nothing (e.g. outside its proof's assumptions). */
typedef double (*accsum_bound_fn)(const accsum_facts* facts, const char* const* param_values);

typedef struct accsum_algorithm {
  const char* name;      /* the --algo name: [a-z0-9][a-z0-9_.-]*, unique among all algorithms   */
  const char* summary;   /* one line, shown under the algorithm by `accsum list`                */
  int family;            /* enum accsum_family                                                  */
  int backend;           /* enum accsum_backend                                                 */
  int claim;             /* enum accsum_claim                                                   */
  int reproducible;      /* nonzero: bitwise identical results across runs, permuted input and
                            every parameter value (accsum checks all three)                    */
  accsum_bound_fn bound; /* ACCSUM_CLAIM_BOUND only                                          */
  const accsum_param* params;
  int param_count;
  accsum_compute_fn compute;
} accsum_algorithm;

typedef struct accsum_plugin {
  int abi_version; /* ACCSUM_PLUGIN_ABI_VERSION: first, so any version can be read           */
  const char* name;
  const accsum_algorithm* algorithms;
  int algorithm_count;
} accsum_plugin;

/* The one exported entry point. host_abi_version is the host's ACCSUM_PLUGIN_ABI_VERSION;
 * return a description that stays valid until the library is unloaded (a static object). */
ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int host_abi_version);
typedef const accsum_plugin* (*accsum_plugin_register_fn)(int host_abi_version);
#define ACCSUM_PLUGIN_ENTRY_POINT "accsum_plugin_register"

#ifdef __cplusplus
}
#endif
#endif /* ACCSUM_PLUGIN_H */
