// The cpu backend's moddot algorithms: the lambda- and (alpha, beta, gamma, delta)-algorithms of
// Jean, Graillat (SYNASC 2010) in round-toward-zero as published (moddot_rz.cpp) and in our
// round-to-nearest variants (core/moddot.hpp), and the baselines: the paper's serial GMP loop,
// a 64x64->128-bit integer loop with delayed reduction, and FLINT's _nmod_vec_dot.
#include <gmp.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/moddot_rz.hpp"
#include "core/moddot.hpp"
#include "core/registry.hpp"
#include "datasets/residues.hpp"

#ifdef ACCSUM_HAVE_FLINT
#include <dlfcn.h>
#include <flint/nmod_vec.h>
#endif

namespace accsum {
namespace moddot {

// The paper's serial multi-precision reference loop: mpz products, one reduction at the end.
uint64_t gmp_loop(const double* x, const double* y, int64_t n, uint64_t p) {
  mpz_t acc, t;
  mpz_init(acc);
  mpz_init(t);
  for (int64_t i = 0; i < n; ++i) {
    mpz_set_ui(t, static_cast<unsigned long>(x[i]));
    mpz_mul_ui(t, t, static_cast<unsigned long>(y[i]));
    mpz_add(acc, acc, t);
  }
  uint64_t r = mpz_fdiv_ui(acc, p);
  mpz_clear(acc);
  mpz_clear(t);
  return r;
}

// 64x64->128-bit products, reduced once every 2^22 terms (2^22 products below 2^104 and a
// residue stay below 2^127).
uint64_t int128_loop(const double* x, const double* y, int64_t n, uint64_t p) {
  constexpr int64_t kChunk = int64_t(1) << 22;
  unsigned __int128 acc = 0;
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t e = std::min(n, c + kChunk);
    for (int64_t i = c; i < e; ++i)
      acc += static_cast<unsigned __int128>(static_cast<uint64_t>(x[i])) * static_cast<uint64_t>(y[i]);
    acc %= p;
  }
  return static_cast<uint64_t>(acc);
}

using ModFn = uint64_t (*)(const double*, const double*, int64_t, uint64_t);

// The kernel for `algo` ("lambda", "abgd") and rounding ("rz", "rn").
ModFn kernel_of(const std::string& algo, const std::string& rounding) {
  if (algo == "lambda") return rounding == "rz" ? lambda_rz : lambda_rn;
  return rounding == "rz" ? abgd_rz : abgd_rn;
}

}  // namespace moddot

namespace {

class ModKernel : public ScalarKernel {
 public:
  ModKernel(std::function<uint64_t()> fn) : fn_(std::move(fn)) {}
  double run() override { return static_cast<double>(fn_()); }

 private:
  std::function<uint64_t()> fn_;
};

MakeFn make_mod(moddot::ModFn f) {
  return [f](const Problem& pr, const Params&) -> std::unique_ptr<Kernel> {
    const uint64_t p = prime_of(pr.data);
    const double *x = pr.x, *y = pr.y;
    const int64_t n = pr.n;
    return std::make_unique<ModKernel>([=] { return f(x, y, n, p); });
  };
}

MakeFn make_paper(const std::string& algo) {
  return [algo](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
    return make_mod(moddot::kernel_of(algo, param_str(prm, "rounding")))(pr, prm);
  };
}

ParamSpec rounding_param() {
  return ParamSpec{"rounding",
                   "rz: the paper's round-toward-zero EFTs (mode set around the kernel only); rn: our "
                   "round-to-nearest variant (re-derived bounds, core/moddot.hpp)",
                   false, 0, 0, {"rz", "rn"}, "rz", true};
}

const std::string kJG = "Jean, Graillat, A parallel algorithm for dot product over word-size finite field using "
                        "floating-point arithmetic, SYNASC 2010";

Registrar reg_gmp(AlgoEntry("moddot", "moddot-gmp", "cpu",
    "the paper's serial GMP loop: mpz products, one reduction mod p at the end (baseline)")
    .promises(Guarantee::exact).promises_reproducible().baseline()
    .maker(make_mod(moddot::gmp_loop)));

Registrar reg_int128(AlgoEntry("moddot", "moddot-int128", "cpu",
    "64x64->128-bit integer products, one reduction per 2^22 terms")
    .promises(Guarantee::exact).promises_reproducible()
    .maker(make_mod(moddot::int128_loop)));

Registrar reg_lambda(AlgoEntry("moddot", "moddot-lambda", "cpu",
    "lambda-algorithm (" + kJG + ", Thm. 3): one reduction per lambda terms, lambda (p-1) < 2^52")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rounding_param()})
    .maker(make_paper("lambda")));

Registrar reg_abgd(AlgoEntry("moddot", "moddot-abgd", "cpu",
    "(alpha,beta,gamma,delta)-algorithm (" + kJG + ", Alg. 3): no reduction in the loop, blocks of 2^26")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rounding_param()})
    .maker(make_paper("abgd")));

#ifdef ACCSUM_HAVE_FLINT
// FLINT's _nmod_vec_dot, from libflint loaded at run time (only its header is needed to build):
// machines without the library (the GPU machine) run everything else, without moddot-flint.
struct FlintApi {
  mp_limb_t (*dot)(mp_srcptr, mp_srcptr, slong, nmod_t, int);
  int (*bound_limbs)(slong, nmod_t);
  mp_limb_t (*preinvert)(mp_limb_t);
};
const FlintApi* flint_api() {
  static const FlintApi* api = []() -> const FlintApi* {
    for (const char* name : {"libflint.so.17", "libflint.so.18", "libflint.so.19", "libflint.so"}) {
      void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      static FlintApi a;
      a.dot = reinterpret_cast<decltype(a.dot)>(dlsym(h, "_nmod_vec_dot"));
      a.bound_limbs = reinterpret_cast<decltype(a.bound_limbs)>(dlsym(h, "_nmod_vec_dot_bound_limbs"));
      a.preinvert = reinterpret_cast<decltype(a.preinvert)>(dlsym(h, "n_preinvert_limb"));
      if (a.dot && a.bound_limbs && a.preinvert) return &a;
    }
    return nullptr;
  }();
  return api;
}

// The limb vectors are converted when the kernel is made (not timed).
class FlintKernel : public ScalarKernel {
 public:
  FlintKernel(const Problem& pr, uint64_t p) : api_(*flint_api()), a_(pr.n), b_(pr.n) {
    for (int64_t i = 0; i < pr.n; ++i) {
      a_[i] = static_cast<mp_limb_t>(pr.x[i]);
      b_[i] = static_cast<mp_limb_t>(pr.y[i]);
    }
    mod_.n = p;  // nmod_init, without linking FLINT
    mod_.ninv = api_.preinvert(p);
    mod_.norm = static_cast<mp_limb_t>(__builtin_clzll(p));
    nlimbs_ = api_.bound_limbs(static_cast<slong>(pr.n), mod_);
  }
  double run() override {
    if (a_.empty()) return 0;
    return static_cast<double>(api_.dot(a_.data(), b_.data(), static_cast<slong>(a_.size()), mod_, nlimbs_));
  }

 private:
  const FlintApi& api_;
  std::vector<mp_limb_t> a_, b_;
  nmod_t mod_;
  int nlimbs_ = 0;
};

struct FlintRegistrar {
  FlintRegistrar() {
    if (!flint_api()) return;
    registry().add(AlgoEntry("moddot", "moddot-flint", "cpu",
        "FLINT _nmod_vec_dot (libflint loaded at run time; limb vectors converted before timing)")
        .promises(Guarantee::exact).promises_reproducible()
        .maker([](const Problem& pr, const Params&) -> std::unique_ptr<Kernel> {
          return std::make_unique<FlintKernel>(pr, prime_of(pr.data));
        }));
  }
} reg_flint;
#endif

}  // namespace
}  // namespace accsum
