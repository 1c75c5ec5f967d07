#include "python/src/verify_support.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/frame/family.hpp"
#include "core/frame/verify_corpus.hpp"

namespace nb = nanobind;

namespace accsum::python {
namespace {

template <class T>
using Numpy = nb::ndarray<nb::numpy, T>;

// A NumPy array owning a copy of v, of the given shape (C order).
template <class T>
Numpy<T> to_numpy(std::vector<T> v, std::initializer_list<size_t> shape) {
  auto* held = new std::vector<T>(std::move(v));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return Numpy<T>(held->data(), shape, owner);
}

// A column-major (rows x cols) matrix as a C-ordered NumPy array.
template <class T>
Numpy<T> matrix_to_numpy(const std::vector<T>& colmajor, int64_t rows, int64_t cols) {
  std::vector<T> c(colmajor.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      c[static_cast<size_t>(i * cols + j)] = colmajor[static_cast<size_t>(i + j * rows)];
  return to_numpy(std::move(c), {static_cast<size_t>(rows), static_cast<size_t>(cols)});
}

bool is_gemm(const FamilyDescriptor& f) { return f.name == "gemm" || f.name == "dgemm"; }

// One dataset of a family with its exact reference (computed on first use, then kept).
class Case {
 public:
  Case(const FamilyDescriptor& f, Dataset d, std::string label) : f_(&f), d_(std::move(d)), label_(std::move(label)) {}

  const std::string& label() const { return label_; }
  int64_t n() const { return is_gemm(*f_) ? d_.rows * d_.cols * d_.inner : d_.n; }
  // A product the callable can compute: alpha = 1, beta = 0 (cases with BLAS scalars are not).
  bool plain() const {
    return !is_gemm(*f_) || (data_double(d_.data, "alpha", 1.0) == 1.0 && data_double(d_.data, "beta", 0.0) == 0.0);
  }

  // What the callable receives: (x,), (x, y), or (A, B) as C-ordered matrices.
  nb::tuple inputs() const {
    if (f_->name == "dgemm")
      return nb::make_tuple(matrix_to_numpy(d_.a64, d_.rows, d_.inner), matrix_to_numpy(d_.b64, d_.inner, d_.cols));
    if (f_->name == "gemm")
      return nb::make_tuple(matrix_to_numpy(d_.a, d_.rows, d_.inner), matrix_to_numpy(d_.b, d_.inner, d_.cols));
    auto x = to_numpy(d_.x, {static_cast<size_t>(d_.n)});
    if (!f_->has_y) return nb::make_tuple(x);
    return nb::make_tuple(x, to_numpy(d_.y, {static_cast<size_t>(d_.n)}));
  }

  // The family's metrics of `answer` (a float, or a (rows x cols) float64 array for gemm) against
  // the exact value; bound < 0: none.
  nb::dict judge(nb::handle answer, double bound) {
    Result r;
    if (is_gemm(*f_)) {
      auto m = nb::cast<nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>>(answer);
      if (static_cast<int64_t>(m.shape(0)) != d_.rows || static_cast<int64_t>(m.shape(1)) != d_.cols)
        throw nb::value_error(fmt::format("the callable returned a {}x{} matrix for a {}x{} product", m.shape(0),
                                          m.shape(1), d_.rows, d_.cols)
                                  .c_str());
      r.values.resize(static_cast<size_t>(d_.rows * d_.cols));
      for (int64_t i = 0; i < d_.rows; ++i)
        for (int64_t j = 0; j < d_.cols; ++j) r.values[static_cast<size_t>(i + j * d_.rows)] = m(i, j);
    } else {
      r = Result::scalar(nb::cast<double>(answer));
    }
    const ExactValue& ref = reference();
    const Metrics m = f_->measure(r, ref, ref.special ? -1.0 : bound);
    nb::dict out;
    out["correctly_rounded"] = m.correctly_rounded;
    out["faithful"] = m.faithful;
    out["ulps"] = m.ulps;
    out["abs_err"] = m.abs_err;
    out["digits"] = m.digits;
    out["within_bound"] = m.within_bound;
    out["special"] = ref.special;
    out["got"] = m.hex;
    out["expected"] = ref.hex;
    return out;
  }

  // The same data in another order (the family's permutation, as `accsum verify` uses).
  Case permuted() const {
    if (!f_->permute) throw nb::value_error(("the " + f_->name + " family has no reordering").c_str());
    Dataset p = f_->permute(d_);
    return Case(*f_, std::move(p), label_ + " (permuted)");
  }

  // The elements at `keep` (vector families), for shrinking a counter-example.
  Case subset(const std::vector<int64_t>& keep) const {
    if (is_gemm(*f_)) throw nb::value_error("gemm cases are not shrunk");
    Dataset s;
    s.family = d_.family;
    s.generator = "subset";
    for (int64_t i : keep) {
      if (i < 0 || i >= d_.n) throw nb::index_error("subset index out of range");
      s.x.push_back(d_.x[static_cast<size_t>(i)]);
      if (f_->has_y) s.y.push_back(d_.y[static_cast<size_t>(i)]);
    }
    s.n = static_cast<int64_t>(keep.size());
    s.id = next_dataset_id();
    return Case(*f_, std::move(s), label_);
  }

 private:
  const ExactValue& reference() {
    if (!ref_) ref_ = std::make_shared<ExactValue>(f_->oracle(d_));
    return *ref_;
  }
  const FamilyDescriptor* f_;
  Dataset d_;
  std::string label_;
  std::shared_ptr<ExactValue> ref_;
};

// The datasets `accsum verify` runs for this family: every case, size and seed (one empty case).
std::vector<Case> corpus(const std::string& name, bool full, int seeds) {
  const FamilyDescriptor& f = family(name);
  std::vector<Case> out;
  bool empty_done = false;
  for (auto& c : f.verify_cases(full))
    for (int64_t n : f.verify_sizes(full))
      for (int seed = 1; seed <= std::max(seeds, c.min_seeds); ++seed) {
        if (n == 0 && std::exchange(empty_done, true)) continue;  // as verify: one empty case
        if (auto d = verify_dataset(f, c, n, seed))
          out.emplace_back(f, std::move(*d), n == 0 ? std::string("empty") : case_label(c, n, seed));
      }
  return out;
}

// A case of the caller's own vectors (x and, for dot, y of the same length).
Case case_of(const std::string& name, const std::vector<double>& x, const std::vector<double>& y) {
  const FamilyDescriptor& f = family(name);
  if (is_gemm(f)) throw nb::value_error("case_of takes vectors (sum or dot)");
  if (f.has_y && y.size() != x.size()) throw nb::value_error("x and y must have the same length");
  Dataset d;
  d.family = f.name;
  d.generator = "given";
  d.x = x;
  if (f.has_y) d.y = y;
  d.n = static_cast<int64_t>(x.size());
  d.id = next_dataset_id();
  return Case(f, std::move(d), "given");
}

}  // namespace

void bind_verify(nb::module_& m) {
  nb::class_<Case>(m, "Case", "A dataset of `accsum verify`'s corpus with its exact reference")
      .def_prop_ro("label", &Case::label)
      .def_prop_ro("n", &Case::n)
      .def_prop_ro("plain", &Case::plain)
      .def("inputs", &Case::inputs)
      .def("judge", &Case::judge, nb::arg("answer"), nb::arg("bound") = -1.0)
      .def("permuted", &Case::permuted)
      .def("subset", &Case::subset, nb::arg("keep"));
  m.def("corpus", &corpus, nb::arg("family"), nb::arg("full") = false, nb::arg("seeds") = 2);
  m.def("case_of", &case_of, nb::arg("family"), nb::arg("x"), nb::arg("y") = std::vector<double>{});
}

}  // namespace accsum::python
