"""The IEEE 754 result of a sum or dot product, computed with fractions.Fraction (exact rationals)
and rounded once to nearest, ties to even: the reference the accsum Python tests hold it to."""

import math
from fractions import Fraction

import numpy as np

# (significand bits, exponent of the smallest subnormal, exponent of the overflow threshold)
FORMATS = {np.float64: (53, -1074, 1024), np.float32: (24, -149, 128)}


def round_exact(value, dtype=np.float64):
    """value (a Fraction) rounded to nearest, ties to even, in dtype; +-inf beyond its range."""
    if value == 0:
        return dtype(0.0)
    bits, min_exp, max_exp = FORMATS[dtype]
    sign = -1 if value < 0 else 1
    m = abs(value)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    if m < Fraction(2) ** e:
        e -= 1
    elif m >= Fraction(2) ** (e + 1):
        e += 1
    q = max(e - bits + 1, min_exp)  # the exponent of the last significand bit kept
    n = round(m / Fraction(2) ** q)  # Fraction rounds half to even
    r = Fraction(n) * Fraction(2) ** q
    if r >= Fraction(2) ** max_exp:
        return dtype(sign * math.inf)
    return dtype(sign * float(r))


def ieee_sum(terms, dtype=np.float64, all_negative_zero=False):
    """The IEEE result of summing `terms` (floats; NaN and infinities decide it when present)."""
    if any(math.isnan(t) for t in terms):
        return dtype(math.nan)
    pos, neg = math.inf in terms, -math.inf in terms
    if pos and neg:
        return dtype(math.nan)
    if pos or neg:
        return dtype(math.inf if pos else -math.inf)
    r = round_exact(sum((Fraction(t) for t in terms), Fraction(0)), dtype)
    if r == 0 and all_negative_zero:
        return dtype(-0.0)
    return r


def exact_sum(x, dtype=np.float64):
    x = [float(v) for v in np.ravel(x)]
    neg_zero = bool(x) and all(v == 0 and math.copysign(1, v) < 0 for v in x)
    return ieee_sum(x, dtype, neg_zero)


def exact_dot(x, y, dtype=np.float64):
    """Products are exact: NaN when a factor is NaN or inf * 0, infinite only when a factor is."""
    terms, products = [], []
    for a, b in zip(np.ravel(x).tolist(), np.ravel(y).tolist()):
        if math.isnan(a) or math.isnan(b) or (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0):
            terms.append(math.nan)
        elif math.isinf(a) or math.isinf(b):
            terms.append(math.copysign(math.inf, a) * math.copysign(1, b))
        else:
            products.append(Fraction(a) * Fraction(b))
    if terms:
        return ieee_sum(terms, dtype)
    r = round_exact(sum(products, Fraction(0)), dtype)
    pairs = list(zip(np.ravel(x).tolist(), np.ravel(y).tolist()))
    if r == 0 and pairs and all(a * b == 0 and math.copysign(1, a) * math.copysign(1, b) < 0 for a, b in pairs):
        return dtype(-0.0)
    return r


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    both_nan = np.isnan(a) & np.isnan(b)
    uint = np.uint64 if a.dtype == np.float64 else np.uint32
    return bool(np.all((a.view(uint) == b.view(uint)) | both_nan))


def exact_product(a, b, dtype):
    """a @ b with every entry the exact sum of exact products rounded once (an exact zero is +0)."""
    out = np.empty((a.shape[0], b.shape[1]), dtype=dtype)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = round_exact(sum((Fraction(float(a[i, k])) * Fraction(float(b[k, j]))
                                         for k in range(a.shape[1])), Fraction(0)), dtype)
    return out
