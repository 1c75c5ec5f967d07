"""accsum on NumPy arrays: where numpy.sum and math.fsum stand beside the correctly rounded sum.

Run: python examples/python/numpy_sums.py (after `pip install .` in the repository root).
"""

import math

import numpy as np

import accsum

# Cancellation: numpy.sum loses the 1.0; accsum.sum and math.fsum give the exact sum rounded once.
x = np.array([1e100, 1.0, -1e100, 1e-16])
print(f"numpy.sum {np.sum(x)!r:>24}  math.fsum {math.fsum(x)!r:>22}  accsum.sum {accsum.sum(x)!r}")

# Rows of an ill-conditioned matrix, one correctly rounded sum per row (all cores, same bits as one).
rng = np.random.default_rng(1)
a = rng.standard_normal((4, 100_000)) * np.logspace(-100, 100, 100_000)
a[:, -1] = -a[:, :-1].sum(axis=1)  # nearly cancels each row
print("accsum row sums:", accsum.sum(a, axis=1))
print("numpy  row sums:", a.sum(axis=1))

# float32: the exact sum rounded once to float32 (not through float64).
f = np.array([1.0, 2.0**-24, 2.0**-60], dtype=np.float32)  # a tie in float32 broken by 2^-60
print(f"float32: accsum {accsum.sum(f)!r}, numpy {np.sum(f)!r}, numpy via float64 {np.float32(np.sum(f, dtype=np.float64))!r}")

# Dot products and a correctly rounded matrix product (sgemm-ozaki).
print("dot:", accsum.dot(a[0], a[1]), "dot_k K=2:", accsum.dot_k(a[0], a[1], K=2))
m = rng.standard_normal((64, 64)).astype(np.float32)
print("matmul cr differs from float32 a @ b in", int(np.sum(accsum.matmul(m, m) != m @ m)), "of 4096 entries")
