"""accsum.sum and accsum.dot against exact rational arithmetic (fractions.Fraction) and math.fsum:
ties, ties +- 2^-1074, cancellation, subnormals, near-overflow, signed zeros, NaN/inf, strides,
axis reductions and float32 inputs."""

import math

import numpy as np
import pytest
from exact import exact_dot, exact_sum, same_bits

pytest.importorskip("hypothesis")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import accsum  # noqa: E402

TINY = 2.0**-1074
DBL_MAX = np.finfo(np.float64).max
finite64 = st.floats(allow_nan=False, allow_infinity=False)
finite32 = st.floats(allow_nan=False, allow_infinity=False, width=32)
any64 = st.floats(allow_nan=True, allow_infinity=True)


def check_sum(values, dtype=np.float64, threads=0):
    x = np.array(values, dtype=dtype)
    got = accsum.sum(x, threads=threads)
    assert got.dtype == dtype
    assert same_bits(got, exact_sum(x, dtype)), (values, got, exact_sum(x, dtype))
    return got


@given(st.lists(finite64, max_size=40))
def test_sum_is_the_exact_sum_rounded_once(values):
    got = check_sum(values)
    try:
        assert got == math.fsum(values) or (got == 0 and math.fsum(values) == 0)
    except OverflowError:  # fsum gives up on an intermediate overflow; Fraction decided above
        pass


@given(st.integers(-1000, 960), st.sampled_from([-1, 1]), st.sampled_from([-TINY, 0.0, TINY]),
       st.integers(0, 1), st.randoms(use_true_random=False))
def test_ties_and_ties_plus_minus_the_smallest_subnormal(k, sign, nudge, odd, rnd):
    big = sign * 2.0**k * (1 + odd * 2.0**-52)  # an even or odd last significand bit
    values = [big, sign * 2.0 ** (k - 53)]  # exactly half an ulp of big: a tie
    if nudge:
        values.append(nudge)
    rnd.shuffle(values)
    check_sum(values)


@given(st.lists(finite64, min_size=1, max_size=20), st.lists(st.floats(-1e-300, 1e-300), max_size=5),
       st.randoms(use_true_random=False))
def test_cancellation(values, small, rnd):
    terms = values + [-v for v in values] + small
    rnd.shuffle(terms)
    check_sum(terms)


@given(st.lists(st.floats(-2.0**-1000, 2.0**-1000), max_size=30))
def test_subnormals(values):
    check_sum(values)


@given(st.lists(st.sampled_from([DBL_MAX, -DBL_MAX, DBL_MAX / 2, 2.0**970, -(2.0**970), 1.0]), max_size=12))
def test_near_overflow_with_intermediate_overflow(values):
    check_sum(values)  # the exact sum decides: a finite result or +-inf once, never NaN


@given(st.lists(st.sampled_from([0.0, -0.0]), max_size=6))
def test_signed_zeros(values):
    got = check_sum(values)
    assert math.copysign(1, got) == (-1 if values and all(math.copysign(1, v) < 0 for v in values) else 1)


@given(st.lists(st.one_of(any64, st.sampled_from([math.inf, -math.inf, math.nan, DBL_MAX])), max_size=10))
def test_nan_and_infinities_follow_ieee(values):
    check_sum(values)


@given(st.lists(finite32, max_size=40))
def test_float32_rounded_once_from_the_exact_value(values):
    check_sum(values, np.float32)


@given(st.lists(st.floats(width=32), max_size=10))
def test_float32_specials(values):
    check_sum(values, np.float32)


@given(st.lists(st.tuples(finite64, finite64), max_size=30))
def test_dot_is_the_exact_dot_rounded_once(pairs):
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    assert same_bits(accsum.dot(x, y), exact_dot(x, y))


@given(st.lists(st.tuples(any64, any64), max_size=8))
def test_dot_special_values(pairs):
    x = np.array([p[0] for p in pairs], dtype=np.float64)
    y = np.array([p[1] for p in pairs], dtype=np.float64)
    assert same_bits(accsum.dot(x, y), exact_dot(x, y))


@given(st.lists(st.tuples(finite32, finite32), max_size=30))
def test_dot_float32(pairs):
    x = np.array([p[0] for p in pairs], dtype=np.float32)
    y = np.array([p[1] for p in pairs], dtype=np.float32)
    assert same_bits(accsum.dot(x, y), exact_dot(x, y, np.float32))


arrays = hnp.arrays(st.sampled_from([np.float64, np.float32]), hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                    elements=st.floats(-(2.0**100), 2.0**100, width=32))


@given(arrays, st.data())
def test_axis_strides_and_order_like_numpy(a, data):
    # Any view: transposed, reversed and stepped.
    if a.ndim:
        a = a.transpose(data.draw(st.permutations(range(a.ndim))))
        a = a[tuple(slice(None, None, data.draw(st.sampled_from([1, -1, 2]))) for _ in range(a.ndim))]
    axes = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1) if a.ndim else st.none(),
                               st.lists(st.integers(0, max(a.ndim - 1, 0)), unique=True).map(tuple)
                               if a.ndim else st.just(())))
    keepdims = data.draw(st.booleans())
    got = accsum.sum(a, axis=axes, keepdims=keepdims)
    want_shape = np.sum(a, axis=axes, keepdims=keepdims).shape
    assert np.shape(got) == want_shape and np.asarray(got).dtype == a.dtype
    # Each output entry against the exact sum of its slice.
    norm = tuple(range(a.ndim)) if axes is None else tuple(sorted(ax % a.ndim for ax in np.atleast_1d(axes)))
    kept = [d for d in range(a.ndim) if d not in norm]
    moved = np.moveaxis(a, kept, range(len(kept))).reshape([a.shape[d] for d in kept] + [-1])
    flat_got = np.asarray(got).reshape(moved.shape[:-1])
    for idx in np.ndindex(*moved.shape[:-1]):
        assert same_bits(flat_got[idx], exact_sum(moved[idx], a.dtype.type))


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=finite64), st.data())
def test_dot_along_an_axis(x, data):
    y = data.draw(hnp.arrays(np.float64, x.shape, elements=finite64))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    got = accsum.dot(x, y, axis=axis)
    xm, ym = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    for idx in np.ndindex(*xm.shape[:-1]):
        assert same_bits(got[idx], exact_dot(xm[idx], ym[idx]))


def test_threads_do_not_change_the_bits():
    x = np.random.default_rng(3).standard_normal(300_001) * np.logspace(-200, 200, 300_001)
    want = accsum.sum(x, threads=1)
    assert same_bits(want, exact_sum(x))
    for t in (0, 2, 3, 7):
        assert same_bits(accsum.sum(x, threads=t), want)
    x32 = (np.random.default_rng(5).standard_normal(300_001) * np.logspace(-30, 30, 300_001)).astype(np.float32)
    assert same_bits(accsum.sum(x32, threads=3), accsum.sum(x32, threads=1))
    assert same_bits(accsum.sum(x32, threads=1), exact_sum(x32, np.float32))


def test_many_rows_run_on_threads_with_the_same_bits():
    x = np.random.default_rng(4).standard_normal((2000, 50)) * 1e20
    a, b = accsum.sum(x, axis=1, threads=1), accsum.sum(x, axis=1)
    assert same_bits(a, b)
    for i in (0, 999, 1999):
        assert same_bits(a[i], exact_sum(x[i]))


def test_sum_k_and_dot_k_are_dpsumk():
    # Ill-conditioned: K = 2 loses digits that K = 4 keeps; each is at least as accurate as K-fold precision allows.
    x = np.array([1e20, 1.0, -1e20, 3e-20, 2.0**-60])
    exact = exact_sum(x)
    assert accsum.sum_k(x, K=4) == exact
    assert accsum.dot_k(x, np.ones_like(x), K=4) == exact
    assert accsum.sum_k(x, 2, axis=0) == accsum.sum_k(x, 2)
