"""accsum: correctly rounded, reproducible sums, dot products and matrix products.

Every function runs the algorithm the ``accsum`` tool registers and measures under that name
(``superacc``, ``superacc-dot``, ``dpsumk``, ``dpdotk``, ``sgemm-ozaki``, ``dgemm-ozaki``), so a
float64 result has the same bits as the tool's report on the same data. NumPy arrays run on the
host (all cores unless ``threads=`` says otherwise); CUDA arrays that speak DLPack (torch, CuPy)
run on the CUDA backend without a copy. ``accsum.verify`` judges any Python reduction on the
corpus of ``accsum verify`` with the same exact oracle. See docs/python.md.
"""

from __future__ import annotations

import math
import operator
import os

import numpy as np

from . import _accsum
from ._verify import VerifyResult, assert_verified, verify

__all__ = ["sum", "dot", "sum_k", "dot_k", "matmul", "verify", "assert_verified", "VerifyResult", "has_cuda",
           "release_cuda_memory"]
__version__ = _accsum.version()

_FLOAT_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
_DLPACK_CPU, _DLPACK_CUDA = 1, 2
# What --accuracy each Ozaki entry takes (the CLI's choices): sgemm-ozaki, dgemm-ozaki.
_ACCURACIES = {np.dtype(np.float32): ("cr", "faithful", "sgemm"), np.dtype(np.float64): ("cr", "dgemm")}


def has_cuda() -> bool:
    """Whether this build has the CUDA backend and a CUDA device is present."""
    return _accsum.has_cuda()


def release_cuda_memory() -> None:
    """Frees the device memory accsum keeps between calls on CUDA arrays: the kernels made for arrays
    and the last matrix product's residue planes (gigabytes at 8192^2). A no-op without CUDA."""
    _accsum.release_cuda_memory()


def _device_type(x):
    """The DLPack device type of a non-NumPy array, or None for anything else."""
    probe = getattr(x, "__dlpack_device__", None)
    if probe is None or isinstance(x, np.ndarray):
        return None
    return int(probe()[0])


def _host(x, name):
    """x as a float64 or float32 NumPy array (host DLPack arrays without a copy)."""
    kind = _device_type(x)
    if kind not in (None, _DLPACK_CPU):
        raise ValueError(f"{name} is on a device accsum does not handle here (DLPack device type {kind}); "
                         "pass host arrays or CUDA arrays")
    if isinstance(x, np.ndarray):
        arr = x
    elif _device_type(x) == _DLPACK_CPU:
        arr = np.from_dlpack(x)
    else:
        arr = np.asarray(x)
    if arr.dtype.kind == "f" and not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))  # byte-swapped floats: the same values, native order
    if arr.dtype not in _FLOAT_DTYPES:
        raise TypeError(f"{name} has dtype {arr.dtype}; accsum takes float64 or float32 arrays")
    return arr


def _threads(threads):
    threads = operator.index(threads)
    if threads < 0:
        raise ValueError(f"threads must be 0 (all cores) or positive, not {threads}")
    return threads


def _axes(axis, ndim):
    """axis (None, an int or a tuple of ints, negative allowed) as a sorted tuple, as NumPy reads it."""
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = []
    for a in items:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"axis {axis} repeats an axis")
    return tuple(sorted(out))


def _physical_memory():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _rows(a, rows, n):
    """a as a C-ordered (rows, n) array; a copy larger than the machine's memory is a MemoryError before
    it starts (where the kernel overcommits memory, the copy would be killed part way instead)."""
    if not a.flags.c_contiguous:
        limit = _physical_memory()
        if limit is not None and a.nbytes > limit:
            raise MemoryError(f"a contiguous copy of this array takes {a.nbytes} bytes, more than this machine's "
                              f"{limit} bytes of memory")
    return np.ascontiguousarray(a).reshape(rows, n)


def _reduce(algo, x, y, axis, threads, K, keepdims):
    """The row-wise reduction `algo` of x (and y) over `axis`, as NumPy's reductions shape it."""
    axes = _axes(axis, x.ndim)
    kept = tuple(d for d in range(x.ndim) if d not in axes)
    out_shape = tuple(x.shape[d] for d in kept)
    rows = math.prod(out_shape)  # exact Python integers (numpy.prod costs microseconds on a tuple)
    n = math.prod(x.shape[d] for d in axes)
    out = np.zeros(rows, dtype=x.dtype)  # an empty reduction is +0.0
    if rows and n:
        order = kept + axes
        xs = _rows(x.transpose(order), rows, n)
        ys = None if y is None else _rows(y.transpose(order), rows, n)
        _accsum.reduce(algo, xs, ys, out, threads, K)
    if keepdims:
        return out.reshape(tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
    if not out_shape:
        return out[0]
    return out.reshape(out_shape)


def _pair(x, y):
    """x and y as host arrays of one dtype (float32 with float64: both float64, exactly) and one shape."""
    x, y = _host(x, "x"), _host(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x has shape {x.shape} and y {y.shape}; a dot product needs equal shapes")
    if x.dtype != y.dtype:
        x, y = x.astype(np.float64), y.astype(np.float64)
    return x, y


def _device_reduce(algo, x, y, axis, K, keepdims):
    from . import _device

    if y is not None and (_device_type(x) != _DLPACK_CUDA or _device_type(y) != _DLPACK_CUDA):
        raise ValueError("one of x and y is a CUDA array and the other is not; pass both on the same device")
    out = _device.reduce(algo, x, y, axis, K)
    if keepdims:
        axes = _axes(axis, len(x.shape))
        out = out.reshape(tuple(1 if d in axes else s for d, s in enumerate(x.shape)))
    return out


def sum(x, axis=None, *, threads=0, keepdims=False):
    """The correctly rounded sum of x's elements (round to nearest, ties to even), reproducibly.

    x: a float64 or float32 array of any shape, strides and order (NumPy, or a CUDA array with
    DLPack). The result has x's dtype and is the exact sum rounded once to it; NaN, +inf and -inf
    follow IEEE 754 (a NaN or both infinities: NaN; one infinity: that infinity), an empty sum is
    +0.0. axis: None (everything), an int or a tuple of ints, as in numpy.sum. threads: 0 for all
    cores, else that many (the bits never depend on it). The same bits as ``accsum bench``'s
    ``superacc`` row for the same float64 data.
    """
    if _device_type(x) == _DLPACK_CUDA:
        return _device_reduce("superacc", x, None, axis, 0, keepdims)
    threads = _threads(threads)
    x = _host(x, "x")
    if axis is None and not keepdims and x.ndim == 1 and x.flags.c_contiguous:
        return x.dtype.type(_accsum.sum_vector(x, threads))
    return _reduce("superacc", x, None, axis, threads, 0, keepdims)


def dot(x, y, axis=None, *, threads=0, keepdims=False):
    """The correctly rounded sum of x * y over axis (all elements by default), reproducibly.

    x and y must have the same shape; float32 with float64 is computed in float64. The products are
    exact, the sum is rounded once to the inputs' dtype. The same bits as ``superacc-dot``.
    """
    if _device_type(x) == _DLPACK_CUDA or _device_type(y) == _DLPACK_CUDA:
        return _device_reduce("superacc-dot", x, y, axis, 0, keepdims)
    threads = _threads(threads)
    x, y = _pair(x, y)
    return _reduce("superacc-dot", x, y, axis, threads, 0, keepdims)


def sum_k(x, K=2, axis=None, *, threads=0, keepdims=False):
    """DPSumK: a sum as accurate as if computed in K-fold working precision (K = 2..64), then rounded.

    Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005. Not
    correctly rounded in general (use accsum.sum); float32 inputs are summed in float64, then rounded.
    """
    if _device_type(x) == _DLPACK_CUDA:
        return _device_reduce("dpsumk", x, None, axis, operator.index(K), keepdims)
    return _reduce("dpsumk", _host(x, "x"), None, axis, _threads(threads), operator.index(K), keepdims)


def dot_k(x, y, K=2, axis=None, *, threads=0, keepdims=False):
    """DPDotK: a dot product as accurate as if computed in K-fold working precision, then rounded."""
    if _device_type(x) == _DLPACK_CUDA or _device_type(y) == _DLPACK_CUDA:
        return _device_reduce("dpdotk", x, y, axis, operator.index(K), keepdims)
    x, y = _pair(x, y)
    return _reduce("dpdotk", x, y, axis, _threads(threads), operator.index(K), keepdims)


def matmul(a, b, accuracy="cr"):
    """a @ b by the Ozaki scheme on int8 residue products: sgemm-ozaki (float32), dgemm-ozaki (float64).

    accuracy, as the CLI's --accuracy: "cr" (every entry correctly rounded), "faithful" (float32:
    every entry one of the two floats around the exact value), "sgemm" (float32) or "dgemm"
    (float64): the fewest moduli whose proven bound is SGEMM's or DGEMM's normwise bound. a is
    (M, K), b (K, N); float32 with float64 is computed in float64. Host arrays run the cpu entry
    (the readable definition, one thread). CUDA arrays (torch, CuPy) run the cuda entry on their device
    memory after the work queued on the current stream, and the call returns once the product (an
    array of their library on their device, C order) is written; other layouts than C order are copied
    on the device first, so the bits never depend on the layout.
    """
    if _device_type(a) == _DLPACK_CUDA or _device_type(b) == _DLPACK_CUDA:
        from . import _device

        return _device.matmul(a, b, accuracy, {str(k): v for k, v in _ACCURACIES.items()})
    a, b = _host(a, "a"), _host(b, "b")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"matmul takes 2-D arrays; a is {a.ndim}-D and b {b.ndim}-D")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a is {a.shape} and b {b.shape}: a's columns must equal b's rows")
    if a.dtype != b.dtype:
        a, b = a.astype(np.float64), b.astype(np.float64)
    allowed = _ACCURACIES[a.dtype]
    if accuracy not in allowed:
        raise ValueError(f"accuracy {accuracy!r} is not one of {', '.join(allowed)} for {a.dtype} matrices")
    out = np.zeros((a.shape[0], b.shape[1]), dtype=a.dtype)
    if out.size and a.shape[1]:
        _accsum.matmul(np.ascontiguousarray(a), np.ascontiguousarray(b), out, accuracy)
    return out
