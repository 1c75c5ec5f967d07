"""accsum on CUDA arrays (torch.Tensor, cupy.ndarray, any DLPack CUDA array).

The array is passed to the CUDA backend without a copy; the work is ordered after what is queued
on the array library's current stream (no device-wide synchronisation), and the result comes back
as a 0-d array of the same library on the same device.
"""

from __future__ import annotations

from . import _accsum


def _library(x):
    mod = type(x).__module__.split(".")[0]
    return mod if mod in ("torch", "cupy") else "dlpack"


def _stream(x, lib):
    """The cudaStream_t (as an integer) the caller's library queues work on for x's device."""
    if lib == "torch":
        import torch

        return torch.cuda.current_stream(x.device).cuda_stream
    if lib == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


# The cuda kernels load pairs of doubles: the data must start on a 16-byte boundary.
_ALIGNMENT = 16


def _contiguous(x, lib):
    """x contiguous and 16-byte aligned: as is when it already is, else a device copy (on the current stream)."""
    if lib == "torch":
        return _aligned(x.contiguous(), lib)
    if lib == "cupy":
        import cupy

        return _aligned(cupy.ascontiguousarray(x), lib)
    return x


def _empty(like, lib, shape=()):
    """An uninitialised float64 array of like's library and device (for a kernel to write)."""
    if lib == "torch":
        import torch

        return torch.empty(shape, dtype=like.dtype, device=like.device)
    import cupy

    with cupy.cuda.Device(like.device.id):
        return cupy.empty(shape, dtype=like.dtype)


def _pointer(x, lib):
    """The device address of a torch or CuPy array's first element."""
    return x.data_ptr() if lib == "torch" else x.data.ptr


def _device_index(x, lib):
    return x.device.index if lib == "torch" else x.device.id


def _aligned(x, lib):
    """x (contiguous) as is when it starts on a 16-byte boundary, else a device copy."""
    return x if _pointer(x, lib) % _ALIGNMENT == 0 else x.clone() if lib == "torch" else x.copy()


def _wrap(value, like, lib):
    """value as a 0-d array of like's library, dtype and device."""
    if lib == "torch":
        import torch

        return torch.tensor(value, dtype=like.dtype, device=like.device)
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.asarray(value, dtype=like.dtype)
    return value


_cuda_present = False  # set once a call found the backend and a device


def _require_cuda():
    global _cuda_present
    if not _cuda_present and not _accsum.has_cuda():
        raise RuntimeError("this accsum has no CUDA backend or no CUDA device; pass a NumPy array or a CPU tensor")
    _cuda_present = True


def _check_dtype(x, name):
    dtype = str(x.dtype).split(".")[-1]
    if dtype != "float64":
        raise TypeError(f"{name} has dtype {dtype}; CUDA arrays must be float64 (convert with .double() / .astype)")


def reduce(algo, x, y, axis, K):
    _require_cuda()
    lib = _library(x)
    _check_dtype(x, "x")
    if y is not None:
        if _library(y) != lib or tuple(y.shape) != tuple(x.shape):
            raise ValueError(f"x is {tuple(x.shape)} and y {tuple(y.shape)} of {_library(y)}: a dot product needs equal shapes")
        _check_dtype(y, "y")
        if lib != "dlpack" and _device_index(y, lib) != _device_index(x, lib):
            raise ValueError("x and y are on different devices")
    ndim = len(x.shape)
    axes = _axes(axis, ndim)
    if axes != tuple(range(ndim)):
        return _reduce_rows(algo, x, y, axes, lib)
    if x.numel() == 0 if lib == "torch" else x.size == 0:
        return _wrap(0.0, x, lib)  # an empty sum is +0.0
    stream = _stream(x, lib)
    xc = _contiguous(x, lib)
    yc = None if y is None else _contiguous(y, lib)
    if algo in ("superacc", "superacc-dot") and lib != "dlpack":
        # Queued on the stream, the result written on the device: no wait, no copy.
        out = _empty(x, lib)
        n = x.numel() if lib == "torch" else x.size
        _accsum.enqueue_cuda(algo, _pointer(xc, lib), 0 if yc is None else _pointer(yc, lib), n,
                             _device_index(x, lib), _pointer(out, lib), stream)
        return out
    value = _accsum.reduce_cuda(algo, xc, yc, stream, K)
    return _wrap(value, x, lib)


def _axes(axis, ndim):
    from . import _axes as host_axes

    return host_axes(axis, ndim)


def _reduce_rows(algo, x, y, axes, lib):
    """A reduction over some axes: the kept axes become rows of a C-ordered matrix (a device copy when
    x is not already laid out so), reduced by one segmented launch on the current stream."""
    if algo not in ("superacc", "superacc-dot"):
        raise NotImplementedError("sum_k and dot_k along an axis are not available for CUDA arrays")
    if lib not in ("torch", "cupy"):
        raise NotImplementedError("axis reductions of CUDA arrays need torch or cupy arrays")
    ndim = len(x.shape)
    kept = tuple(d for d in range(ndim) if d not in axes)
    out_shape = tuple(x.shape[d] for d in kept)
    rows, n = 1, 1
    for d in kept:
        rows *= x.shape[d]
    for d in axes:
        n *= x.shape[d]
    order = kept + axes

    def as_rows(a):
        if lib == "torch":
            return _aligned(a.permute(order).contiguous().reshape(rows, n), lib)
        import cupy

        return _aligned(cupy.ascontiguousarray(a.transpose(order)).reshape(rows, n), lib)

    out = _empty(x, lib, (rows,))
    if rows and n:
        xs, ys = as_rows(x), None if y is None else as_rows(y)  # alive until the launch is queued
        _accsum.reduce_rows_cuda(_pointer(xs, lib), 0 if ys is None else _pointer(ys, lib), rows, n,
                                 _device_index(x, lib), _pointer(out, lib), _stream(x, lib))
    elif lib == "torch":
        out.zero_()  # an empty reduction is +0.0
    else:
        out.fill(0.0)
    return out.reshape(out_shape)


def matmul(a, b, accuracy):
    _require_cuda()
    raise NotImplementedError("matmul of CUDA arrays is not available yet; pass NumPy arrays")
