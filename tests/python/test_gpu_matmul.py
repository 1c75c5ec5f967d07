"""accsum.matmul on torch CUDA tensors (run on the GPU machine; skipped without torch, CUDA or the cuda
backend): every entry correctly rounded against exact rationals (fractions.Fraction, not accsum's
oracle), the same bits as the cpu Ozaki entry on the host (the tool's readable definition) for every
accuracy, ordered on a non-default stream, and hostile inputs."""

import numpy as np
import pytest
from exact import exact_product, same_bits

import accsum

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not (torch.cuda.is_available() and accsum.has_cuda()),
                                reason="no CUDA device or no cuda backend in this build")

ACCURACIES = {np.float32: ("cr", "faithful", "sgemm"), np.float64: ("cr", "dgemm")}


def operands(dtype, m, k, n, seed, decades=4):
    """Wide-ranged rows of a and columns of b, a column of signed zeros, a cancelling pair."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((m, k)) * np.logspace(-decades, decades, k)).astype(dtype)
    b = (rng.standard_normal((k, n)) * np.logspace(decades, -decades, n)[None, :]).astype(dtype)
    if n > 1:
        b[:, 1] = -b[:, 1] * 0  # signed zeros: an exact zero entry is +0
    if k > 1 and m > 0:
        a[0, 0], a[0, 1] = 1e4, 1e4
        b[0, 0], b[1, 0] = 1.0, -1.0  # the first two products of a[0] . b[:, 0] cancel exactly
    return a, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 9, 4), (17, 70, 33), (3, 1, 7)])
def test_cr_entries_are_the_exact_products_rounded_once(dtype, shape):
    m, k, n = shape
    a, b = operands(dtype, m, k, n, seed=sum(shape))
    got = accsum.matmul(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), accuracy="cr")
    assert isinstance(got, torch.Tensor) and got.is_cuda and tuple(got.shape) == (m, n)
    assert got.dtype == (torch.float32 if dtype == np.float32 else torch.float64)
    assert same_bits(got.cpu().numpy(), exact_product(a, b, dtype)), shape


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_accuracy_has_the_cpu_entrys_bits_on_a_side_stream(dtype):
    a, b = operands(dtype, 96, 300, 80, seed=4, decades=12)  # wide: the plans differ by accuracy
    stream = torch.cuda.Stream()
    for accuracy in ACCURACIES[dtype]:
        with torch.cuda.stream(stream):
            # Written on the side stream just before: the product must wait for these copies.
            ta = torch.empty(a.shape, dtype=torch.float32 if dtype == np.float32 else torch.float64, device="cuda")
            tb = torch.empty(b.shape, dtype=ta.dtype, device="cuda")
            ta.copy_(torch.from_numpy(a).pin_memory(), non_blocking=True)
            tb.copy_(torch.from_numpy(b).pin_memory(), non_blocking=True)
            got = accsum.matmul(ta, tb, accuracy=accuracy)
        stream.synchronize()
        assert same_bits(got.cpu().numpy(), accsum.matmul(a, b, accuracy=accuracy)), accuracy


def test_layouts_are_copied_and_keep_the_bits():
    a, b = operands(np.float32, 40, 64, 24, seed=9)
    want = accsum.matmul(a, b)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    assert same_bits(accsum.matmul(ta.t().contiguous().t(), tb).cpu().numpy(), want)  # Fortran order
    assert same_bits(accsum.matmul(ta, tb.t().contiguous().t()).cpu().numpy(), want)
    wide = torch.zeros((40, 65), dtype=torch.float32, device="cuda")
    wide[:, 1:] = ta
    assert same_bits(accsum.matmul(wide[:, 1:], tb).cpu().numpy(), want)  # strided, 4 bytes off a boundary
    # Mixed float32 and float64: computed in float64, as on the host.
    assert same_bits(accsum.matmul(ta, tb.double()).cpu().numpy(), accsum.matmul(a, b.astype(np.float64)))


def test_the_kept_kernel_serves_new_shapes_and_data():
    for seed, shape in enumerate([(8, 16, 8), (8, 16, 8), (33, 5, 2), (8, 16, 8)]):
        a, b = operands(np.float32, *shape, seed=seed)
        got = accsum.matmul(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda())
        assert same_bits(got.cpu().numpy(), exact_product(a, b, np.float32)), (seed, shape)
    accsum.release_cuda_memory()
    a, b = operands(np.float64, 6, 7, 5, seed=1)
    assert same_bits(accsum.matmul(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu().numpy(),
                     exact_product(a, b, np.float64))


def test_empty_and_zero_inner():
    z = accsum.matmul(torch.ones((3, 0), device="cuda"), torch.ones((0, 2), device="cuda"))
    assert z.is_cuda and torch.equal(z, torch.zeros((3, 2), device="cuda"))
    assert tuple(accsum.matmul(torch.ones((0, 4), device="cuda"), torch.ones((4, 2), device="cuda")).shape) == (0, 2)


def test_hostile_inputs_raise_one_clear_exception():
    f = torch.ones((4, 4), dtype=torch.float32, device="cuda")
    with pytest.raises(TypeError, match="float16"):
        accsum.matmul(f.half(), f)
    with pytest.raises(TypeError, match="int32"):
        accsum.matmul(f, f.int())
    with pytest.raises(ValueError, match="columns"):
        accsum.matmul(f, torch.ones((3, 4), device="cuda"))
    with pytest.raises(ValueError, match="2-D"):
        accsum.matmul(f, torch.ones(4, device="cuda"))
    with pytest.raises(ValueError, match="one CUDA device"):
        accsum.matmul(f, torch.ones((4, 4)))  # a CPU tensor beside a CUDA one
    with pytest.raises(ValueError, match="one CUDA device"):
        accsum.matmul(f, np.ones((4, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="accuracy"):
        accsum.matmul(f.double(), f.double(), accuracy="faithful")  # faithful is float32's
    with pytest.raises(ValueError, match="accuracy"):
        accsum.matmul(f, f, accuracy="dgemm")
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="different devices"):
            accsum.matmul(f, f.to("cuda:1"))
