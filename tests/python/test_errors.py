"""Hostile inputs: each is one clear Python exception, and the interpreter survives."""

import numpy as np
import pytest

import accsum
from accsum import _accsum


class FakeCudaArray:
    """Claims to live on a CUDA device (DLPack device type 2)."""

    dtype = "float64"
    shape = (4,)

    def __dlpack_device__(self):
        return (2, 0)


@pytest.mark.parametrize("bad", [np.arange(5), np.ones(3, dtype=np.complex128), np.array(["a"]),
                                 np.array([1.0], dtype=np.float16), [1, 2, 3], np.array([object()])])
def test_wrong_dtype_is_a_type_error(bad):
    with pytest.raises(TypeError, match="dtype"):
        accsum.sum(bad)


def test_python_lists_of_floats_are_float64():
    assert accsum.sum([0.1, 0.2, -0.3]) == np.float64(2.7755575615628914e-17)


@pytest.mark.parametrize("call", [
    lambda: accsum.dot(np.ones(3), np.ones(4)),
    lambda: accsum.dot(np.ones((2, 3)), np.ones((3, 2))),
    lambda: accsum.matmul(np.ones((2, 3)), np.ones((2, 3))),
    lambda: accsum.matmul(np.ones(3), np.ones(3)),
    lambda: accsum.matmul(np.ones((2, 2)), np.ones((2, 2)), accuracy="faithful"),  # float64: cr or dgemm
    lambda: accsum.matmul(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), accuracy="fast"),
    lambda: accsum.sum(np.ones(3), threads=-1),
    lambda: accsum.sum(np.ones((2, 2)), axis=(0, 0)),
    lambda: accsum.sum_k(np.ones(3), K=1),
    lambda: accsum.sum_k(np.ones(3), K=65),
    lambda: accsum.sum(np.ones(3), threads=10**6),
    lambda: accsum.verify(np.sum, claim="exact"),
    lambda: accsum.verify(np.sum, claim=-1.0),
    lambda: accsum.verify(np.sum, family="moddot"),
])
def test_mismatched_or_out_of_range_arguments_are_value_errors(call):
    with pytest.raises(ValueError):
        call()


def test_axis_out_of_range_is_numpys_axis_error():
    with pytest.raises(np.exceptions.AxisError):
        accsum.sum(np.ones((2, 2)), axis=2)


def test_too_much_memory_is_a_memory_error():
    # A zero-stride view of 2^42 elements: making it contiguous would take 32 TiB.
    huge = np.broadcast_to(np.ones(1), (2**21, 2**21))
    with pytest.raises(MemoryError):
        accsum.sum(huge, axis=1)


def test_cuda_arrays_without_a_cuda_backend_raise_runtime_error():
    if accsum.has_cuda():
        pytest.skip("this build has a CUDA device")
    with pytest.raises(RuntimeError, match="CUDA"):
        accsum.sum(FakeCudaArray())


def test_the_module_rejects_malformed_direct_calls():
    out = np.zeros(2)
    with pytest.raises(ValueError):
        _accsum.reduce("superacc", np.ones(4), None, out, 0, 0)  # 1-D, not (rows, n)
    with pytest.raises(ValueError):
        _accsum.reduce("superacc", np.ones((3, 4)), None, out, 0, 0)  # out too short
    with pytest.raises(ValueError):
        _accsum.reduce("naive", np.ones((2, 4)), None, out, 0, 0)
    with pytest.raises(ValueError):
        _accsum.reduce("superacc-dot", np.ones((2, 4)), None, out, 0, 0)
    with pytest.raises(TypeError):
        _accsum.reduce("superacc", np.ones((2, 4), dtype=np.int64), None, np.zeros(2, np.int64), 0, 0)
    with pytest.raises(TypeError):
        _accsum.matmul(np.ones((2, 2)), np.ones((2, 2), np.float32), np.zeros((2, 2)), "cr")
    with pytest.raises(TypeError):
        _accsum.reduce("superacc", "not an array", None, out, 0, 0)
    with pytest.raises(ValueError):
        _accsum.case_of("dot", [1.0, 2.0], [1.0])


def test_a_raising_callable_is_a_reported_violation():
    def broken(x):
        raise ZeroDivisionError("boom")

    result = accsum.verify(broken, seeds=1)
    assert not result.ok and result.errors == result.cases
    assert "ZeroDivisionError: boom" in repr(result)


def test_byte_swapped_floats_are_read_as_their_values():
    x = np.array([1e100, 1.0, -1e100], dtype=">f8")
    assert accsum.sum(x) == 1.0
    assert accsum.sum(np.array([3e38, 1.0, -3e38], dtype=">f4")) == np.float32(1.0)


class FakeOtherDeviceArray(FakeCudaArray):
    def __dlpack_device__(self):
        return (10, 0)  # ROCm


def test_arrays_on_other_devices_are_value_errors():
    with pytest.raises(ValueError, match="device"):
        accsum.sum(FakeOtherDeviceArray())
    with pytest.raises(ValueError, match="same device"):
        accsum.dot(FakeCudaArray(), np.ones(4))
