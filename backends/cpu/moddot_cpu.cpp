// The cpu backend's moddot algorithms: the lambda- and (alpha, beta, gamma, delta)-algorithms of
// Jean, Graillat (SYNASC 2010) in round-toward-zero as published (moddot_rz.cpp) and in our
// round-to-nearest variants (families/moddot/moddot.hpp), and the baselines: the paper's serial GMP loop,
// a 64x64->128-bit integer loop with delayed reduction, and FLINT's _nmod_vec_dot.
#include <gmp.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cpu/moddot_rz.hpp"
#include "core/frame/mergeable.hpp"
#include "families/moddot/moddot.hpp"
#include "core/frame/registry.hpp"
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

// A kernel over one slice: the residue of sum x_i y_i mod p.
using ModFn = std::function<uint64_t(const double*, const double*, int64_t, uint64_t)>;

// The serial definition of `algo` ("lambda", "abgd") in `rounding` ("rz", "rn"): Algorithm 3
// literally, the lambda-algorithm element by element. abgd: blocks of `block` <= 2^26 terms.
ModFn serial_kernel(const std::string& algo, const std::string& rounding, int64_t block) {
  if (algo == "lambda") return rounding == "rz" ? lambda_rz : lambda_rn;
  if (rounding == "rz")
    return [block](const double* x, const double* y, int64_t n, uint64_t p) { return abgd_rz(x, y, n, p, block); };
  return [block](const double* x, const double* y, int64_t n, uint64_t p) { return abgd_rn(x, y, n, p, block); };
}

// The same residues from the AVX2 lane forms (families/moddot/moddot.hpp; tested bit for bit against the
// serial definitions and GMP): what each thread (cpu-mt) or rank (mpi) runs on its slice.
ModFn lane_kernel(const std::string& algo, const std::string& rounding, int64_t block) {
  if (algo == "lambda") return rounding == "rz" ? lambda_rz_lanes : lambda_simd;
  if (rounding == "rz")
    return
        [block](const double* x, const double* y, int64_t n, uint64_t p) { return abgd_rz_lanes(x, y, n, p, block); };
  return serial_kernel(algo, rounding, block);  // abgd rn is already in lanes
}

}  // namespace moddot

namespace {

class ModKernel : public ScalarKernel {
 public:
  ModKernel(moddot::ModFn f, const Problem& pr)
      : f_(std::move(f)), x_(pr.x), y_(pr.y), n_(pr.n), p_(prime_of(pr.data)) {}
  double run() override { return static_cast<double>(f_(x_, y_, n_, p_)); }

 private:
  moddot::ModFn f_;
  const double *x_, *y_;
  int64_t n_;
  uint64_t p_;
};

// The mergeable state (core/frame/mergeable.hpp): a residue; slices add their residues mod p, so the
// composed cpu-mt and mpi versions give the same residue for any slicing. p is taken from the
// slices (0 until the first one).
struct Residue {
  uint64_t p = 0, r = 0;
};
class ResidueState : public PodState<ResidueState, Residue> {
 public:
  explicit ResidueState(moddot::ModFn f) : f_(std::move(f)) {}
  void accumulate(const Problem& s) override {
    const uint64_t p = checked_prime_of(s.data);
    merge_pod(Residue{p, s.n ? f_(s.x, s.y, s.n, p) : 0});
  }
  Result finalize() const override { return Result::scalar(static_cast<double>(pod_.r)); }

 private:
  void merge_pod(const Residue& o) override {
    if (pod_.p == 0) pod_.p = o.p;
    if (o.p != pod_.p) throw std::logic_error("moddot: merging residues of different moduli");
    pod_.r = (pod_.r + o.r) % pod_.p;  // both below p < 2^53: no overflow
  }
  moddot::ModFn f_;
};

// Algorithm parameters -> the kernel: `whole` for the cpu entry itself, `slice` for the state.
using KernelOf = std::function<moddot::ModFn(const Params&)>;

AlgoEntry& with_kernels(AlgoEntry& e, const KernelOf& whole, const KernelOf& slice) {
  return e
      .maker([whole](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
        return std::make_unique<ModKernel>(whole(prm), pr);
      })
      .mergeable([slice](const Params& prm) -> std::unique_ptr<MergeableState> {
        return std::make_unique<ResidueState>(slice(prm));
      });
}
KernelOf fixed(moddot::ModFn f) {
  return [f](const Params&) { return f; };
}
KernelOf paper(const std::string& algo, bool lanes) {
  return [algo, lanes](const Params& prm) {
    const std::string rounding = param_str(prm, "rounding");
    const int64_t block = algo == "abgd" ? param_int(prm, "block") : moddot::kAbgdBlock;
    return lanes ? moddot::lane_kernel(algo, rounding, block) : moddot::serial_kernel(algo, rounding, block);
  };
}

ParamSpec rounding_param() {
  return ParamSpec{"rounding",
                   "rz: the paper's round-toward-zero EFTs (mode set around the kernel only); rn: our "
                   "round-to-nearest variant (re-derived bounds, families/moddot/moddot.hpp)",
                   false,
                   0,
                   0,
                   {"rz", "rn"},
                   "rz",
                   true};
}

const std::string kJG =
    "Jean, Graillat, A parallel algorithm for dot product over word-size finite field using "
    "floating-point arithmetic, SYNASC 2010";

AlgoEntry gmp_entry() {
  AlgoEntry e("moddot", "moddot-gmp", "cpu",
              "the paper's serial GMP loop: mpz products, one reduction mod p at the end (baseline)");
  e.promises(Guarantee::exact).promises_reproducible().baseline();
  return with_kernels(e, fixed(moddot::gmp_loop), fixed(moddot::gmp_loop));
}
AlgoEntry int128_entry() {
  AlgoEntry e("moddot", "moddot-int128", "cpu", "64x64->128-bit integer products, one reduction per 2^22 terms");
  e.promises(Guarantee::exact).promises_reproducible();
  return with_kernels(e, fixed(moddot::int128_loop), fixed(moddot::int128_loop));
}
AlgoEntry lambda_entry() {
  AlgoEntry e("moddot", "moddot-lambda", "cpu",
              "lambda-algorithm (" + kJG + ", Thm. 3): one reduction per lambda terms, lambda (p-1) < 2^52");
  e.promises(Guarantee::exact).promises_reproducible().with_params({rounding_param()});
  return with_kernels(e, paper("lambda", false), paper("lambda", true));
}
AlgoEntry abgd_entry() {
  AlgoEntry e("moddot", "moddot-abgd", "cpu",
              "(alpha,beta,gamma,delta)-algorithm (" + kJG + ", Alg. 3): no reduction in the loop, blocks of 2^26");
  e.promises(Guarantee::exact).promises_reproducible().with_params({rounding_param(), moddot::block_param()});
  return with_kernels(e, paper("abgd", false), paper("abgd", true));
}

// cpu-mt and mpi versions: composed from the states (backends/cpu_mt/composed_mt.cpp,
// backends/mpi/composed_mpi.cpp), each slice run by the lane kernels.
Registrar reg_gmp(gmp_entry());
Registrar reg_int128(int128_entry());
Registrar reg_lambda(lambda_entry());
Registrar reg_abgd(abgd_entry());

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
                       .promises(Guarantee::exact)
                       .promises_reproducible()
                       .maker([](const Problem& pr, const Params&) -> std::unique_ptr<Kernel> {
                         return std::make_unique<FlintKernel>(pr, prime_of(pr.data));
                       }));
  }
} reg_flint;
#endif

}  // namespace
}  // namespace accsum
