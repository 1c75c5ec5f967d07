// sgemm-ozaki on the cpu backend: the readable definition (core/numerics/ozaki.hpp). Residues as int8
// arrays, each modulus's integer product as plain loops accumulated in int64 (exact for any K),
// the CRT and one rounding per entry. The cuda backend reproduces it bit for bit.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/gemm_host.hpp"
#include "core/numerics/ozaki.hpp"
#include "core/families/ozaki_run.hpp"

namespace accsum::ozaki {
namespace {

// The symmetric residues of the scaled lines of x modulo p: entry k of line i at
// x[i * line_stride + k * entry_stride], stored at out[i * len + k].
std::vector<int8_t> line_residues(const float* x, const Lines& lines, int bits, int p, int64_t len, int64_t line_stride,
                                  int64_t entry_stride) {
  const int64_t count = static_cast<int64_t>(lines.low.size());
  std::vector<int8_t> r(static_cast<size_t>(count * len), 0);
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t mb = lines.max_bits[static_cast<size_t>(i)];
    if (mb == 0 || special_line(mb)) continue;  // zero lines and IEEE-special lines: residues 0
    const int shift = bits - line_top(mb);
    for (int64_t k = 0; k < len; ++k)
      r[static_cast<size_t>(i * len + k)] =
          static_cast<int8_t>(residue_symmetric(scaled_integer(x[i * line_stride + k * entry_stride], shift), p));
  }
  return r;
}

class OzakiCpuKernel : public Kernel {
 public:
  OzakiCpuKernel(const Problem& p, int moduli, Accuracy accuracy)
      : p_(p), moduli_(moduli), accuracy_(accuracy), out_(static_cast<size_t>(p.rows * p.cols)) {
    alpha_ = data_float(p.data, "alpha", 1.0f);
    beta_ = data_float(p.data, "beta", 0.0f);
  }

  void execute() override {
    const int64_t M = p_.rows, N = p_.cols, K = p_.inner;
    const Lines rows = summarize_lines(p_.a, M, K, 1, M), cols = summarize_lines(p_.b, N, K, K, 1);
    plan_ = plan_for(K, rows, cols, moduli_, accuracy_);
    row_bound_ = plan_row_bounds(plan_, K, rows, cols, alpha_);
    const Crt crt = make_crt(plan_.moduli);
    // residue[l][i + j*M]: C'_ij mod p_l in [0, p_l)
    std::vector<std::vector<int>> residue(static_cast<size_t>(plan_.moduli), std::vector<int>(out_.size()));
    for (int l = 0; l < plan_.moduli; ++l) {
      const int p = modulus(l);
      const std::vector<int8_t> ra = line_residues(p_.a, rows, plan_.bits_a, p, K, 1, M);  // row i at i*K
      const std::vector<int8_t> rb = line_residues(p_.b, cols, plan_.bits_b, p, K, K, 1);  // column j at j*K
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
        const uint32_t ra = rows.max_bits[static_cast<size_t>(i)], cb = cols.max_bits[static_cast<size_t>(j)];
        if (alpha_ != 0.0f && (special_line(ra) || special_line(cb))) {
          out_[e] = special_entry(p_.a + i, M, p_.b + j * K, K, alpha_, beta_, p_.c + e);
          continue;
        }
        int r[kMaxModuli];
        for (int l = 0; l < plan_.moduli; ++l) r[l] = residue[static_cast<size_t>(l)][e];
        const int scale = line_top(ra) - plan_.bits_a + line_top(cb) - plan_.bits_b;
        out_[e] = finish_entry(crt_symmetric(r, crt), scale, alpha_, beta_, p_.c + e);
      }
  }

  Result result() override {
    std::vector<double> v(out_.begin(), out_.end());
    v.insert(v.end(), row_bound_.begin(), row_bound_.end());
    return Result{std::move(v), kWithRowBounds, plan_info(plan_, p_.inner, accuracy_, row_bound_)};
  }

 private:
  Problem p_;
  int moduli_;
  Accuracy accuracy_;
  std::vector<double> row_bound_;
  float alpha_ = 1, beta_ = 0;
  Plan plan_;
  std::vector<float> out_;
};

Registrar reg_ozaki(AlgoEntry("gemm", "sgemm-ozaki", "cpu",
                              "float GEMM exact on int8 residue products (Ozaki scheme II), rounded once: the readable "
                              "definition")
                        .promises_reproducible()
                        .with_params({slices_param(), accuracy_param()})
                        .maker([](const Problem& p, const Params& prm) {
                          return std::make_unique<OzakiCpuKernel>(p, static_cast<int>(param_int(prm, "slices")),
                                                                  accuracy_of(param_str(prm, "accuracy")));
                        }));

}  // namespace
}  // namespace accsum::ozaki
