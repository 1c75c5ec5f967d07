// The cpu-mt backend's moddot algorithms: static slices per thread, each computed by the cpu
// kernel (backends/cpu/moddot_cpu.cpp; round-toward-zero kernels set the mode of their own
// thread), partial residues merged by addition mod p. Residue arithmetic is exact, so the
// result is bit for bit the cpu one for any thread count.
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/moddot_rz.hpp"
#include "backends/cpu_mt/parallel.hpp"
#include "core/moddot.hpp"
#include "core/registry.hpp"
#include "datasets/residues.hpp"

namespace accsum {
namespace moddot {
uint64_t int128_loop(const double* x, const double* y, int64_t n, uint64_t p);
using ModFn = uint64_t (*)(const double*, const double*, int64_t, uint64_t);
ModFn kernel_of(const std::string& algo, const std::string& rounding);
}  // namespace moddot

namespace {

// sum over threads of f(slice) mod p.
uint64_t parallel_mod(moddot::ModFn f, const double* x, const double* y, int64_t n, uint64_t p, int threads) {
  std::vector<uint64_t> part(std::max(1, threads), 0);
  cpu_mt::parallel_chunks(n, threads, [&](int t, int64_t b, int64_t e) { part[t] = f(x + b, y + b, e - b, p); });
  uint64_t acc = 0;
  for (uint64_t r : part) {
    acc += r;  // both below p < 2^53: no overflow
    if (acc >= p) acc -= p;
  }
  return acc;
}

class MtKernel : public ScalarKernel {
 public:
  MtKernel(moddot::ModFn f, const Problem& pr, int threads)
      : f_(f), x_(pr.x), y_(pr.y), n_(pr.n), p_(prime_of(pr.data)), threads_(threads) {}
  double run() override { return static_cast<double>(parallel_mod(f_, x_, y_, n_, p_, threads_)); }

 private:
  moddot::ModFn f_;
  const double *x_, *y_;
  int64_t n_;
  uint64_t p_;
  int threads_;
};

ParamSpec rounding_param() {
  return ParamSpec{"rounding", "rz: round-toward-zero as published; rn: our round-to-nearest variant", false, 0, 0,
                   {"rz", "rn"}, "rz", true};
}

MakeFn make_paper(const std::string& algo) {
  return [algo](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
    const std::string rounding = param_str(prm, "rounding");
    // abgd in round-toward-zero: the branch-free lane form of Algorithm 3 (same sums, exact).
    // lambda: the AVX2 lane form (core/moddot.hpp lambda_simd; same residues, exact).
    moddot::ModFn f = algo == "abgd" && rounding == "rz" ? moddot::abgd_rz_lanes
                      : algo == "lambda"                 ? (rounding == "rz" ? moddot::lambda_rz_lanes : moddot::lambda_simd)
                                                         : moddot::kernel_of(algo, rounding);
    return std::make_unique<MtKernel>(f, pr, cpu_mt::threads_of(prm));
  };
}

Registrar reg_int128(AlgoEntry("moddot", "moddot-int128", "cpu-mt",
    "64x64->128-bit integer loop per thread, partial residues added mod p (baseline)")
    .promises(Guarantee::exact).promises_reproducible().baseline()
    .with_params({cpu_mt::threads_param()})
    .shapes(cpu_mt::thread_variants)
    .maker([](const Problem& pr, const Params& prm) -> std::unique_ptr<Kernel> {
      return std::make_unique<MtKernel>(moddot::int128_loop, pr, cpu_mt::threads_of(prm));
    }));

Registrar reg_lambda(AlgoEntry("moddot", "moddot-lambda", "cpu-mt",
    "lambda-algorithm per thread (Jean-Graillat Thm. 3), partial residues added mod p")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rounding_param(), cpu_mt::threads_param()})
    .shapes(cpu_mt::thread_variants)
    .maker(make_paper("lambda")));

Registrar reg_abgd(AlgoEntry("moddot", "moddot-abgd", "cpu-mt",
    "(alpha,beta,gamma,delta)-algorithm per thread (Jean-Graillat Alg. 3), partial residues added mod p")
    .promises(Guarantee::exact).promises_reproducible()
    .with_params({rounding_param(), cpu_mt::threads_param()})
    .shapes(cpu_mt::thread_variants)
    .maker(make_paper("abgd")));

}  // namespace
}  // namespace accsum
