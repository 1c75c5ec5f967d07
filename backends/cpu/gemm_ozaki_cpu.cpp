// sgemm-ozaki and dgemm-ozaki on the cpu backend: the readable definition (families/gemm/ozaki.hpp). Residues as int8
// arrays, each modulus's integer product as plain loops accumulated in int64 (exact for any K),
// the CRT and one rounding per entry (--accuracy=faithful: an entry its own bound does not prove faithful
// is summed exactly instead). The cuda backend reproduces it bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "families/gemm/gemm_host.hpp"
#include "core/numerics/float_entry.hpp"
#include "families/gemm/ozaki.hpp"
#include "families/gemm/ozaki_run.hpp"

namespace accsum::ozaki {
namespace {

// The symmetric residues of the scaled lines of x modulo p: entry k of line i at
// x[i * line_stride + k * entry_stride], stored at out[i * len + k].
template <class F>
std::vector<int8_t> line_residues(const F* x, const LinesOf<F>& lines, int bits, int p, int64_t len,
                                  int64_t line_stride, int64_t entry_stride) {
  const int64_t count = static_cast<int64_t>(lines.low.size());
  std::vector<int8_t> r(static_cast<size_t>(count * len), 0);
  for (int64_t i = 0; i < count; ++i) {
    const auto mb = lines.max_bits[static_cast<size_t>(i)];
    if (mb == 0 || special_line(mb)) continue;  // zero lines and IEEE-special lines: residues 0
    const int shift = bits - line_top(mb);
    for (int64_t k = 0; k < len; ++k)
      r[static_cast<size_t>(i * len + k)] =
          static_cast<int8_t>(scaled_residue(x[i * line_stride + k * entry_stride], shift, p));
  }
  return r;
}

template <class F>
class OzakiCpuKernel : public Kernel {
 public:
  OzakiCpuKernel(const Problem& p, int moduli, Accuracy accuracy)
      : p_(p),
        a_(p.*MatricesOf<F>::pa),
        b_(p.*MatricesOf<F>::pb),
        c_(p.*MatricesOf<F>::pc),
        moduli_(moduli),
        accuracy_(accuracy),
        out_(static_cast<size_t>(p.rows * p.cols)) {
    alpha_ = data_scalar<F>(p.data, "alpha", F(1));
    beta_ = data_scalar<F>(p.data, "beta", F(0));
  }

  void execute() override {
    const int64_t M = p_.rows, N = p_.cols, K = p_.inner;
    exact_entries_ = 0;
    const LinesOf<F> rows = summarize_lines(a_, M, K, 1, M), cols = summarize_lines(b_, N, K, K, 1);
    plan_ = plan_for(K, rows, cols, moduli_, accuracy_);
    // An inexact plan's bounds (per row; --accuracy=faithful: per entry) from the lines' norms; an exact plan's are 0.
    const LineNorms row_norms = plan_.exact() ? LineNorms{} : norms_of(rows),
                    col_norms = plan_.exact() ? LineNorms{} : norms_of(cols);
    row_bound_.assign(static_cast<size_t>(M), 0.0);
    if (!plan_.exact()) plan_row_bounds(plan_, K, row_norms, col_norms, alpha_, row_bound_);
    const bool checks_faithful = checks_each_entry(accuracy_, plan_);
    const double abs_alpha = std::fabs(static_cast<double>(alpha_));
    const CrtOf<F> crt = make_crt<F>(plan_.moduli);
    // residue[l][i + j*M]: C'_ij mod p_l in [0, p_l)
    std::vector<std::vector<int>> residue(static_cast<size_t>(plan_.moduli), std::vector<int>(out_.size()));
    for (int l = 0; l < plan_.moduli; ++l) {
      const int p = modulus(l);
      const std::vector<int8_t> ra = line_residues(a_, rows, plan_.bits_a, p, K, 1, M);  // row i at i*K
      const std::vector<int8_t> rb = line_residues(b_, cols, plan_.bits_b, p, K, K, 1);  // column j at j*K
      for (int64_t j = 0; j < N; ++j)
        for (int64_t i = 0; i < M; ++i) {
          int64_t t = 0;
          for (int64_t k = 0; k < K; ++k)
            t += int64_t{ra[static_cast<size_t>(i * K + k)]} * rb[static_cast<size_t>(j * K + k)];
          residue[static_cast<size_t>(l)][static_cast<size_t>(i + j * M)] = residue_positive(t, p);
        }
    }
    for (int64_t j = 0; j < N; ++j)
      for (int64_t i = 0; i < M; ++i) {
        const size_t e = static_cast<size_t>(i + j * M);
        const auto ra = rows.max_bits[static_cast<size_t>(i)], cb = cols.max_bits[static_cast<size_t>(j)];
        if (alpha_ != F(0) && (special_line(ra) || special_line(cb))) {
          out_[e] = special_entry(a_ + i, M, b_ + j * K, K, alpha_, beta_, c_ + e);
          continue;
        }
        int r[Format<F>::kMaxModuli];
        for (int l = 0; l < plan_.moduli; ++l) r[l] = residue[static_cast<size_t>(l)][e];
        const int scale = line_top(ra) - plan_.bits_a + line_top(cb) - plan_.bits_b;
        bool negative = false;
        const auto magnitude = crt_magnitude(r, crt, &negative);
        out_[e] = finish_entry_of<F>(negative, magnitude, scale, alpha_, beta_, c_ + e);
        if constexpr (std::is_same_v<F, float>)
          if (checks_faithful) {
            const double bound = entry_bound(line_terms(row_norms, static_cast<size_t>(i), plan_.bits_a),
                                             line_terms(col_norms, static_cast<size_t>(j), plan_.bits_b), K, abs_alpha);
            if (!faithful_within(out_[e], bound)) {
              out_[e] = exact_float_entry(a_ + i, M, b_ + j * K, K, alpha_, beta_, c_ + e);
              ++exact_entries_;
            }
          }
      }
  }

  Result result() override {
    std::vector<double> v(out_.begin(), out_.end());
    v.insert(v.end(), row_bound_.begin(), row_bound_.end());
    return Result{std::move(v), kWithRowBounds, plan_info<F>(plan_, p_.inner, accuracy_, row_bound_, exact_entries_)};
  }

 private:
  Problem p_;
  const F *a_, *b_, *c_;
  int moduli_;
  Accuracy accuracy_;
  std::vector<double> row_bound_;
  F alpha_ = 1, beta_ = 0;
  Plan plan_;
  int64_t exact_entries_ = 0;  // --accuracy=faithful: entries summed exactly
  std::vector<F> out_;
};

Registrar reg_ozaki(ozaki_entry<float, OzakiCpuKernel>(
    "cpu", "float GEMM exact on int8 residue products (Ozaki scheme II), rounded once: the readable definition"));
Registrar reg_dozaki(ozaki_entry<double, OzakiCpuKernel>("cpu",
                                                         "double GEMM exact on int8 residue products (Ozaki scheme II, "
                                                         "up to 26 moduli), rounded once: the readable definition"));

}  // namespace
}  // namespace accsum::ozaki
