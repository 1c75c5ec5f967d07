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


def _check_dtype(x, name, lib):
    dtype = _dtype_name(x)
    if dtype not in ("float64", "float32"):
        raise TypeError(f"{name} has dtype {dtype}; CUDA arrays must be float64 or float32")
    if dtype == "float32" and lib == "dlpack":
        raise TypeError(f"{name} is a float32 CUDA array of neither torch nor CuPy; pass a float64 one")


def _widened(x, lib):
    """x as float64: x itself, or a device copy of a float32 x (exact)."""
    if _dtype_name(x) == "float64":
        return x
    return x.double() if lib == "torch" else x.astype("float64")


def reduce(algo, x, y, axis, K):
    _require_cuda()
    lib = _library(x)
    _check_dtype(x, "x", lib)
    if y is not None:
        if _library(y) != lib or tuple(y.shape) != tuple(x.shape):
            raise ValueError(f"x is {tuple(x.shape)} and y {tuple(y.shape)} of {_library(y)}: a dot product needs equal shapes")
        _check_dtype(y, "y", lib)
        if lib != "dlpack" and _device_index(y, lib) != _device_index(x, lib):
            raise ValueError("x and y are on different devices")
        if _dtype_name(x) != _dtype_name(y):  # float32 with float64: computed in float64
            x, y = _widened(x, lib), _widened(y, lib)
    single = _dtype_name(x) == "float32"
    ndim = len(x.shape)
    axes = _axes(axis, ndim)
    if axes != tuple(range(ndim)):
        return _reduce_rows(algo, x, y, axes, lib)
    if _numel(x, lib) == 0:
        return _wrap(0.0, x, lib)  # an empty sum is +0.0
    stream = _stream(x, lib)
    if single and algo in ("superacc", "superacc-dot"):
        return _float32_whole(algo, x, y, lib, stream)
    xc = _contiguous(_widened(x, lib), lib)
    yc = None if y is None else _contiguous(_widened(y, lib), lib)
    if algo in ("superacc", "superacc-dot") and lib != "dlpack":
        # Queued on the stream, the result written on the device: no wait, no copy.
        out = _empty(x, lib)
        _accsum.enqueue_cuda(algo, _pointer(xc, lib), 0 if yc is None else _pointer(yc, lib), _numel(x, lib),
                             _device_index(x, lib), _pointer(out, lib), stream)
        return out
    value = _accsum.reduce_cuda(algo, xc, yc, stream, K)
    return _wrap(value, x, lib)  # float32: the float64 result rounded (as on the host)


# float32 sums and dots on the device: the terms widened to float64 (exactly; products of two floats are
# exact in float64 too), r = the exact sum rounded to float64, then rem = the exact sum of the terms and -r
# rounded to float64, which has the sign of the exact remainder (or is zero when r is exact). From r and
# that sign, the exact sum rounded to odd in float64, which rounds correctly to float32 (Boldo and
# Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
# IEEE Trans. Computers 57(4), 2008, Theorem 1 for 53 >= 24 + 2 bits): the same bits as the host.


def _float64_empty(like, lib, shape):
    if lib == "torch":
        import torch

        return torch.empty(shape, dtype=torch.float64, device=like.device)
    import cupy

    with cupy.cuda.Device(like.device.id):
        return cupy.empty(shape, dtype=cupy.float64)


def _extended(a, lib, rows, n, last):
    """The (rows, n + 1) float64 matrix of a's rows (a: rows x n, any float dtype) with `last` as column n."""
    e = _float64_empty(a, lib, (rows, n + 1))
    e[:, :n] = a.reshape(rows, n)
    e[:, n] = last
    return e


def _rounded_to_float32(r, rem, lib):
    """float32 from r (float64 nearest values) and rem (the remainders' signs): r rounded to odd, then to float32."""
    if lib == "torch":
        import torch

        bits = r.view(torch.int64)
        # An even r with a non-zero remainder moves one unit towards the exact value; r and rem are finite
        # unless the data held NaN or inf (then r is the IEEE rule's result and stays).
        nudge = (rem != 0) & torch.isfinite(rem) & torch.isfinite(r) & ((bits & 1) == 0)
        step = torch.where((rem > 0) == (r > 0), 1, -1)  # away from zero where rem has r's sign
        return (bits + nudge * step).view(torch.float64).to(torch.float32)
    import cupy

    bits = r.view(cupy.int64)
    nudge = (rem != 0) & cupy.isfinite(rem) & cupy.isfinite(r) & ((bits & 1) == 0)
    step = cupy.where((rem > 0) == (r > 0), 1, -1)
    return (bits + nudge * step).view(cupy.float64).astype(cupy.float32)


def _float32_whole(algo, x, y, lib, stream):
    """A float32 sum (dot) of the whole array: one widened copy with room for -r, two queued launches."""
    n = _numel(x, lib)
    xe = _extended(x, lib, 1, n, 0.0)
    ye = None if y is None else _extended(y, lib, 1, n, 1.0)
    yp = 0 if ye is None else _pointer(ye, lib)
    r, rem = _float64_empty(x, lib, ()), _float64_empty(x, lib, ())
    device = _device_index(x, lib)
    _accsum.enqueue_cuda(algo, _pointer(xe, lib), yp, n, device, _pointer(r, lib), stream)
    xe[0, n] = -r
    _accsum.enqueue_cuda(algo, _pointer(xe, lib), yp, n + 1, device, _pointer(rem, lib), stream)
    return _rounded_to_float32(r, rem, lib)


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
        xs, ys = as_rows(x), None if y is None else as_rows(y)  # alive until the launches are queued
        if _dtype_name(x) == "float32":
            return _float32_rows(xs, ys, rows, n, lib).reshape(out_shape)
        _accsum.reduce_rows_cuda(_pointer(xs, lib), 0 if ys is None else _pointer(ys, lib), rows, n,
                                 _device_index(x, lib), _pointer(out, lib), _stream(x, lib))
    elif lib == "torch":
        out.zero_()  # an empty reduction is +0.0
    else:
        out.fill(0.0)
    return out.reshape(out_shape)


def _dtype_name(x):
    return str(x.dtype).split(".")[-1]


def _numel(x, lib):
    return x.numel() if lib == "torch" else x.size


def matmul(a, b, accuracy, accuracies):
    """a @ b for CUDA arrays: the cuda sgemm-ozaki (float32) or dgemm-ozaki (float64) entry on the
    arrays' device memory, after the work queued on the current stream; returns when the product is
    written (the plan is chosen on the host from the lines' summaries, mid-call)."""
    _require_cuda()
    lib = _library(a)
    if lib == "dlpack":
        raise ValueError("matmul of CUDA arrays needs torch tensors or CuPy arrays")
    if _library(b) != lib or _device_type_of(b) != _device_type_of(a):
        raise ValueError("a and b must be arrays of one library on one CUDA device")
    for name, m in (("a", a), ("b", b)):
        if _dtype_name(m) not in ("float32", "float64"):
            raise TypeError(f"{name} has dtype {_dtype_name(m)}; matmul takes float32 or float64 arrays")
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise ValueError(f"matmul takes 2-D arrays; a is {len(a.shape)}-D and b {len(b.shape)}-D")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a is {tuple(a.shape)} and b {tuple(b.shape)}: a's columns must equal b's rows")
    if _device_index(a, lib) != _device_index(b, lib):
        raise ValueError("a and b are on different devices")
    if _dtype_name(a) != _dtype_name(b):  # float32 with float64: computed in float64 (a device copy)
        a, b = (a.double(), b.double()) if lib == "torch" else (a.astype("float64"), b.astype("float64"))
    dtype = _dtype_name(a)
    if accuracy not in accuracies[dtype]:
        raise ValueError(f"accuracy {accuracy!r} is not one of {', '.join(accuracies[dtype])} for {dtype} matrices")
    M, K, N = int(a.shape[0]), int(a.shape[1]), int(b.shape[1])
    out = _empty_matrix(a, lib, M, N)
    if M * N == 0:
        return out
    if K == 0:
        return out.zero_() if lib == "torch" else _filled_zero(out)
    # C order on a 16-byte boundary, as the kernels read them: another layout is a device copy (two
    # 8192^2 float32 copies take well under 1 ms on an H100, against about 10 ms for the product),
    # so that the bits never depend on the layout.
    ac, bc = _contiguous(a, lib), _contiguous(b, lib)
    try:
        _accsum.matmul_cuda(_pointer(ac, lib), _pointer(bc, lib), _pointer(out, lib), M, K, N, dtype == "float32",
                            accuracy, _device_index(a, lib), _stream(a, lib))
    except RuntimeError as e:
        if "out of memory" in str(e):
            raise MemoryError(f"the product's device memory does not fit: {e} "
                              "(accsum.release_cuda_memory() frees what accsum keeps)") from None
        raise
    return out


def _device_type_of(x):
    return int(x.__dlpack_device__()[0])


def _empty_matrix(like, lib, M, N):
    """An uninitialised C-ordered (M, N) array of like's dtype, library and device."""
    if lib == "torch":
        import torch

        return torch.empty((M, N), dtype=like.dtype, device=like.device)
    import cupy

    with cupy.cuda.Device(like.device.id):
        return cupy.empty((M, N), dtype=like.dtype)


def _filled_zero(x):
    x.fill(0)
    return x


def _float32_rows(xs, ys, rows, n, lib):
    """float32 row sums (dots) of C-ordered (rows, n) matrices: the rows widened, r by one segmented
    launch, then the rows extended by -r (and 1 in y) for the remainders' signs by another."""
    device, stream = _device_index(xs, lib), _stream(xs, lib)

    def rows_sum(a, b, length):
        out = _float64_empty(xs, lib, (rows,))
        _accsum.reduce_rows_cuda(_pointer(a, lib), 0 if b is None else _pointer(b, lib), rows, length, device,
                                 _pointer(out, lib), stream)
        return out

    xw, yw = _widened(xs, lib), None if ys is None else _widened(ys, lib)
    r = rows_sum(xw, yw, n)
    xe = _extended(xw, lib, rows, n, -r)
    ye = None if yw is None else _extended(yw, lib, rows, n, 1.0)
    return _rounded_to_float32(r, rows_sum(xe, ye, n + 1), lib)
