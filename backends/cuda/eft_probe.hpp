#pragma once
// The error-free transforms of core/numerics/numerics.h run elementwise on the GPU, for the tests
// (tests/numerics/test_shared_corpus.cpp): the device's TwoSum, FastTwoSum, Split, Dekker's TwoProduct and
// TwoProductFMA on a corpus of pairs, compared bit for bit with the exact MPFR oracle.
#include <vector>

namespace accsum::cuda {

constexpr int kEftProbeOutputs = 10;  // per pair: s, e (TwoSum), s, e (FastTwoSum), hi, lo (Split of a),
                                      // p, e (Dekker), p, e (TwoProductFMA)
// out[kEftProbeOutputs * i + k] for the pair (a[i], b[i]). Needs a CUDA device.
std::vector<double> eft_probe(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace accsum::cuda
