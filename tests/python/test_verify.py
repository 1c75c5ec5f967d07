"""accsum.verify on NumPy's and Python's own reductions."""

import math

import numpy as np
import pytest
from exact import exact_sum, same_bits

import accsum


def test_catches_numpy_sum_claimed_correctly_rounded_with_a_small_counterexample():
    result = accsum.verify(np.sum, claim="cr")
    assert not result.ok and result.violations > 0
    ce = result.counterexample
    assert isinstance(ce, np.ndarray) and 1 <= ce.size <= 8 and ce.size <= result.counterexample_from
    # The counter-example is real: numpy.sum is not the exact sum rounded once there.
    assert not same_bits(np.sum(ce), exact_sum(ce))
    assert same_bits(accsum.sum(ce), exact_sum(ce))
    text = repr(result)
    assert text.startswith("sum ") and "not correctly_rounded" in text and "counter-example" in text
    with pytest.raises(AssertionError, match="counter-example"):
        accsum.assert_verified(np.sum, claim="cr")


def test_passes_math_fsum_claimed_correctly_rounded():
    # math.fsum raises OverflowError on an intermediate overflow and ValueError on inf - inf: declared.
    result = accsum.assert_verified(math.fsum, claim="cr", declines=(OverflowError, ValueError))
    assert result.cases > 200 and result.worst_ulps <= 0.5 and 0 < result.declined < result.cases // 4
    # Undeclared, those exceptions are violations.
    assert not accsum.verify(math.fsum, claim="cr").ok


def test_passes_accsum_itself_with_reproducibility():
    accsum.assert_verified(accsum.sum, claim="cr", reproducible=True, seeds=1)
    accsum.assert_verified(accsum.dot, family="dot", claim="cr", reproducible=True, seeds=1)


def test_a_bound_claim_and_faithful():
    assert not accsum.verify(np.sum, claim=0.0, seeds=1).ok
    assert not accsum.verify(np.dot, family="dot", claim="faithful", seeds=1).ok


def test_gemm_corpus_judges_matmul():
    # accuracy="faithful" is sgemm-ozaki's guarantee on every input (cr: when the moduli cover every line).
    result = accsum.verify(lambda a, b: accsum.matmul(a, b, "faithful"), family="gemm", claim="faithful", seeds=1)
    assert result.ok and result.cases > 10 and result.skipped > 0, repr(result)
    plain = accsum.verify(lambda a, b: a @ b, family="gemm", claim="cr", seeds=1, shrink=False)
    assert not plain.ok


def test_reproducibility_claims_are_checked():
    rng = np.random.default_rng(0)

    def shuffled_sum(x):  # the same values added in a new order at every call
        return float(sum(rng.permutation(x).tolist()))

    result = accsum.verify(shuffled_sum, claim="none", reproducible=True, seeds=1)
    assert not result.ok and "not reproducible" in result.first_violation and result.counterexample is None
