#pragma once
// accsum.verify's C++ side: the cases `accsum verify` generates for a family (its verify_cases,
// verify_sizes and seeds), each judged by the family's own oracle (MPFR / exact integers) and
// metrics, its permutation for the reproducibility check, and the subsets a counter-example is
// shrunk through. The loop over cases and the shrinking are in python/accsum/_verify.py.
#include <nanobind/nanobind.h>

namespace accsum::python {

void bind_verify(nanobind::module_& m);

}  // namespace accsum::python
