// The cpu backend's sums and dot products: each kernel calls the serial definition in
// families/sum_dot/sum_serial.hpp / families/sum_dot/dot_serial.hpp, and each entry states its proven bound
// (families/sum_dot/sum_bounds.hpp) and guarantee.
#include <functional>
#include <memory>
#include <string>

#include "families/sum_dot/dot_serial.hpp"
#include "core/frame/registry.hpp"
#include "families/sum_dot/sum_bounds.hpp"
#include "families/sum_dot/sum_serial.hpp"

namespace accsum {
namespace {

using SumFn = double (*)(const double*, int64_t);

std::function<std::unique_ptr<Kernel>(const Problem&, const Params&)> make_sum(SumFn f) {
  return [f](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
    const double* x = p.x;
    int64_t n = p.n;
    return std::make_unique<SerialKernel>([f, x, n] { return f(x, n); });
  };
}

ParamSpec k_param() {
  return ParamSpec{"K", "fold of working precision (K-1 error-free passes)", true, 2, 64, {}, "2"};
}

const std::string kOro = "Ogita, Rump, Oishi, Accurate sum and dot product, SIAM J. Sci. Comput. 26(6), 2005";

Registrar reg_naive(
    AlgoEntry("sum", "naive", "cpu", "recursive summation, left to right (serial baseline)")
        .baseline()
        .promises(Guarantee::bound)
        .maker(make_sum(sum_naive))
        .within_domain(bounds::sum_domain)
        .bounded_by([](const Params&, const ExactFacts& f) { return bounds::naive_sum(f.n, f.sum_abs); },
                    "gamma_{n-1} S: Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed. 2002, eq. (4.4)"));

Registrar reg_pairwise(
    AlgoEntry("sum", "pairwise", "cpu", "pairwise (cascade) summation, halves recursively, runs of <= 8 in order")
        .promises(Guarantee::bound)
        .maker(make_sum(sum_pairwise))
        .within_domain(bounds::sum_domain)
        .bounded_by(
            [](const Params&, const ExactFacts& f) { return bounds::tree_sum(pairwise_depth(f.n), f.sum_abs); },
            "gamma_h S, h = pairwise_depth(n) (most additions per term, about log2(n/8) + 7): Higham 2002 §4.2, "
            "eq. (4.6)"));

Registrar reg_kahan(AlgoEntry("sum", "kahan", "cpu", "Kahan's compensated summation (Higham 2002 Alg. 4.2)")
                        .maker(make_sum(sum_kahan)));

Registrar reg_neumaier(
    AlgoEntry("sum", "neumaier", "cpu", "Neumaier's compensated summation (= ORO's Sum2)")
        .promises(Guarantee::bound)
        .maker(make_sum(sum_neumaier))
        .within_domain(bounds::sum_domain)
        .bounded_by([](const Params&, const ExactFacts& f) { return bounds::sum2(f.n, f.abs_sum, f.sum_abs); },
                    "u|s| + gamma_{n-1}^2 S (Neumaier's algorithm computes ORO's Sum2): " + kOro + ", Prop. 4.5"));

Registrar reg_dcs(AlgoEntry("sum", "dcs", "cpu",
                            "Priest's doubly compensated summation (Priest 1991), unsorted, as in Badin et al., Fig. 1")
                      .maker(make_sum(sum_dcs)));

Registrar reg_sumk(AlgoEntry("sum", "sumk", "cpu",
                             "ORO's SumK: K-1 TwoSum passes then a plain sum (streamed, one read)")
                       .promises(Guarantee::kfold)
                       .with_params({k_param()})
                       .maker([](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
                         const double* x = p.x;
                         int64_t n = p.n;
                         int K = static_cast<int>(param_int(prm, "K"));
                         return std::make_unique<SerialKernel>([x, n, K] { return sum_k(x, n, K); });
                       })
                       .within_domain(bounds::sum_domain)
                       .bounded_by(
                           [](const Params& prm, const ExactFacts& f) {
                             return bounds::sum_k(f.n, static_cast<int>(param_int(prm, "K")), f.abs_sum, f.sum_abs);
                           },
                           "(u + 3 gamma_{n-1}^2)|s| + gamma_{2n-2}^K S: " + kOro + ", Prop. 4.10"));

Registrar reg_dot(AlgoEntry("dot", "dot", "cpu", "recursive dot product, left to right (serial baseline)")
                      .baseline()
                      .promises(Guarantee::bound)
                      .maker([](const Problem& p, const Params&) -> std::unique_ptr<Kernel> {
                        const double *x = p.x, *y = p.y;
                        int64_t n = p.n;
                        return std::make_unique<SerialKernel>([x, y, n] { return dot_naive(x, y, n); });
                      })
                      .within_domain(bounds::dot_domain)
                      .bounded_by([](const Params&, const ExactFacts& f) { return bounds::naive_dot(f.n, f.sum_abs); },
                                  "gamma_n S (Higham 2002, eq. (3.5)) + n eta for products that underflow"));

Registrar reg_dotk(
    AlgoEntry("dot", "dotk", "cpu", "ORO's DotK: TwoProduct + TwoSum cascade, then SumK(K-1) over 2n terms (streamed)")
        .promises(Guarantee::kfold)
        .with_params({k_param(), ParamSpec{"twoprod",
                                           "how TwoProduct is formed: fma (one FMA) or dekker (Veltkamp/Dekker Split)",
                                           false,
                                           0,
                                           0,
                                           {"fma", "dekker"},
                                           "fma",
                                           true}})
        .maker([](const Problem& p, const Params& prm) -> std::unique_ptr<Kernel> {
          const double *x = p.x, *y = p.y;
          int64_t n = p.n;
          int K = static_cast<int>(param_int(prm, "K"));
          TwoProd how = two_prod_from_name(param_str(prm, "twoprod"));
          return std::make_unique<SerialKernel>([x, y, n, K, how] { return dot_k(x, y, n, K, how); });
        })
        .within_domain(bounds::dot_domain)
        .bounded_by(
            [](const Params& prm, const ExactFacts& f) {
              return bounds::dot_k(f.n, static_cast<int>(param_int(prm, "K")), f.abs_sum, f.sum_abs);
            },
            "(u + 2 gamma_{4n-2}^2)|s| + gamma_{4n-2}^K S: " + kOro +
                ", Prop. 5.11 for K >= 3 (no underflow); K = 2 derived in its form (families/sum_dot/sum_bounds.hpp); "
                "+ 8 "
                "n eta for "
                "products that underflow"));

}  // namespace
}  // namespace accsum
