"""accsum on torch CUDA tensors (run on the GPU machine; skipped without torch, CUDA or the cuda
backend): zero-copy, ordered on a non-default stream, the same bits as NumPy on the host."""

import numpy as np
import pytest
from exact import same_bits

import accsum

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not (torch.cuda.is_available() and accsum.has_cuda()),
                                reason="no CUDA device or no cuda backend in this build")


def host_cases():
    rng = np.random.default_rng(7)
    return {
        "empty": np.zeros(0),
        "one": np.array([-0.0]),
        "odd": rng.standard_normal(1001) * 1e30,
        "wide": rng.standard_normal(1 << 20) * np.power(10.0, rng.uniform(-300, 300, 1 << 20)),
        "cancel": np.array([1e308, 1e308, -1e308, -1e308, 2.0**-1074]),
        "specials": np.array([1.0, np.inf, -np.inf]),
        "inf": np.array([1e308, 1e308, -np.inf]),
        "matrix": rng.standard_normal((64, 33)),
        "3d": rng.standard_normal((4, 5, 6)),
    }


@pytest.mark.parametrize("name", list(host_cases()))
def test_sum_and_dot_on_a_side_stream_have_the_hosts_bits(name):
    x = host_cases()[name]
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        # Queued on the side stream: accsum must wait for these writes (no device-wide sync).
        t = torch.empty(x.shape, dtype=torch.float64, device="cuda")
        t.copy_(torch.from_numpy(x), non_blocking=False)
        t.mul_(1.0)
        s = accsum.sum(t)
        d = accsum.dot(t, t)
        k = accsum.sum_k(t, 2)
    assert isinstance(s, torch.Tensor) and s.device == t.device and s.dim() == 0 and s.dtype == torch.float64
    stream.synchronize()
    assert same_bits(np.float64(s.item()), accsum.sum(x)), name
    assert same_bits(np.float64(d.item()), accsum.dot(x, x)), name
    assert same_bits(np.float64(k.item()), accsum.sum_k(x, 2)), name


def test_views_misaligned_and_transposed():
    x = torch.randn(1001, dtype=torch.float64, device="cuda") * 1e10
    host = x.cpu().numpy()
    assert same_bits(np.float64(accsum.sum(x[1:]).item()), accsum.sum(host[1:]))  # 8 bytes off alignment
    m = torch.randn(30, 40, dtype=torch.float64, device="cuda")
    assert same_bits(np.float64(accsum.sum(m.t()).item()), accsum.sum(m.cpu().numpy()))


def test_gpu_errors_are_clear():
    with pytest.raises(TypeError, match="float16"):
        accsum.sum(torch.ones(4, dtype=torch.float16, device="cuda"))
    with pytest.raises(TypeError, match="int64"):
        accsum.dot(torch.ones(4, dtype=torch.float64, device="cuda"), torch.ones(4, dtype=torch.int64, device="cuda"))
    with pytest.raises(ValueError):
        accsum.dot(torch.ones(4, dtype=torch.float64, device="cuda"), torch.ones(5, dtype=torch.float64, device="cuda"))
    with pytest.raises(NotImplementedError):
        accsum.sum_k(torch.ones((4, 4), dtype=torch.float64, device="cuda"), 2, axis=1)


SHAPES_AND_AXES = [((0,), 0), ((5, 0), 1), ((0, 5), 1), ((1, 1), 1), ((7, 1001), 1), ((7, 1001), 0), ((3, 4, 5), (0, 2)),
                   ((3, 4, 5), -1), ((2, 3, 4, 5), (1, 3)), ((257, 3), 1), ((2, 70000), 1)]


@pytest.mark.parametrize("shape,axis", SHAPES_AND_AXES)
def test_axis_reductions_are_one_segmented_launch_with_the_hosts_bits(shape, axis):
    rng = np.random.default_rng(abs(hash(shape)) % 1000)
    x = rng.standard_normal(shape) * np.power(10.0, rng.uniform(-250, 250, shape))
    y = rng.standard_normal(shape)
    if x.size > 3:
        x.flat[1], x.flat[2] = 1e308, 1e308  # an intermediate overflow the exact sum does not have
        x.flat[3] = -1e308
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        t = torch.from_numpy(x).to("cuda", non_blocking=True)
        u = torch.from_numpy(y).to("cuda", non_blocking=True)
        s = accsum.sum(t, axis=axis)
        d = accsum.dot(t, u, axis=axis)
        k = accsum.sum(t, axis=axis, keepdims=True)
    stream.synchronize()
    assert isinstance(s, torch.Tensor) and s.device == t.device
    assert same_bits(s.cpu().numpy(), np.asarray(accsum.sum(x, axis=axis))), (shape, axis)
    assert same_bits(d.cpu().numpy(), np.asarray(accsum.dot(x, y, axis=axis))), (shape, axis)
    assert tuple(k.shape) == np.sum(x, axis=axis, keepdims=True).shape


def test_axis_special_values_and_signed_zeros():
    x = np.array([[np.nan, 1.0], [np.inf, -np.inf], [np.inf, 1e308], [-0.0, -0.0], [0.0, -0.0], [-np.inf, 1e308]])
    got = accsum.sum(torch.from_numpy(x).cuda(), axis=1).cpu().numpy()
    assert same_bits(got, accsum.sum(x, axis=1))


def test_cpu_tensors_go_through_dlpack_on_the_host():
    t = torch.tensor([1e100, 1.0, -1e100], dtype=torch.float64)
    assert accsum.sum(t) == 1.0


def test_axis_odd_rows_start_off_the_boundary_with_special_values_at_both_ends():
    # n odd: every other row starts 8 bytes past a 16-byte boundary (its first term is added alone)
    # and every other row ends on an odd last term; special values and signed zeros at both ends.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 7)) * 1e20
    x[1, 0], x[2, 6], x[3, 0], x[5, 0], x[7, 6] = np.nan, -np.inf, np.inf, 1e308, 1e308
    x[5, 1:3] = 1e308, -1e308
    x[4] = -0.0
    x[6] = [-0.0, 0.0, -0.0, -0.0, -0.0, -0.0, -0.0]
    y = rng.standard_normal((8, 7))
    y[4] = 1.0
    t, u = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    assert same_bits(accsum.sum(t, axis=1).cpu().numpy(), accsum.sum(x, axis=1))
    assert same_bits(accsum.dot(t, u, axis=1).cpu().numpy(), accsum.dot(x, y, axis=1))


def test_one_array_summed_on_two_streams_keeps_the_bits():
    # A kernel kept for an array is kept per stream: its device counters are reused launch after launch.
    x = np.random.default_rng(5).standard_normal(1 << 20) * np.power(10.0, np.arange(1 << 20) % 40 - 20.0)
    t = torch.from_numpy(x).cuda()
    want = accsum.sum(x)
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    results = []
    for _ in range(4):
        for s in streams:
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                results.append(accsum.sum(t))
    torch.cuda.synchronize()
    assert all(same_bits(np.float64(r.item()), want) for r in results)


@pytest.mark.parametrize("block", [64, 128, 256, 512])
def test_segmented_kernel_gives_the_same_bits_at_every_block_size(block):
    rng = np.random.default_rng(block)
    x = rng.standard_normal((9, 5001)) * np.power(10.0, rng.uniform(-200, 200, (9, 5001)))
    t = torch.from_numpy(x).cuda()
    got = torch.empty(9, dtype=torch.float64, device="cuda")
    accsum._accsum.reduce_rows_cuda(t.data_ptr(), 0, 9, 5001, t.device.index, got.data_ptr(),
                                    torch.cuda.current_stream().cuda_stream, block)
    assert same_bits(got.cpu().numpy(), accsum.sum(x, axis=1))


def float32_cases():
    rng = np.random.default_rng(12)
    wide = (rng.standard_normal(4099) * np.power(10.0, rng.uniform(-30, 30, 4099))).astype(np.float32)
    ties = np.array([1.0, 2.0**-24, 2.0**-70], dtype=np.float32)  # a float64 rounding first would give a tie
    return {"wide": wide, "ties": ties, "near_overflow": np.array([3.4e38, 3.4e38, -3.4e38, 1.0], dtype=np.float32),
            "overflow": np.array([3.4e38, 3.4e38], dtype=np.float32), "subnormal": np.full(5, 1e-45, np.float32),
            "neg_zero": np.array([-0.0, -0.0], dtype=np.float32), "nan": np.array([1.0, np.nan], dtype=np.float32),
            "matrix": wide[:4096].reshape(64, 64), "3d": wide[:60].reshape(3, 4, 5)}


@pytest.mark.parametrize("name", list(float32_cases()))
def test_float32_sums_and_dots_have_the_hosts_bits_on_a_side_stream(name):
    x = float32_cases()[name]
    y = np.cos(np.arange(x.size, dtype=np.float64)).astype(np.float32).reshape(x.shape)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        t = torch.from_numpy(x).to("cuda", non_blocking=True)
        u = torch.from_numpy(y).to("cuda", non_blocking=True)
        got = {"sum": accsum.sum(t), "dot": accsum.dot(t, u), "sum_k": accsum.sum_k(t, 2)}
        rows = {} if x.ndim < 2 else {"sum": accsum.sum(t, axis=-1), "dot": accsum.dot(t, u, axis=(0, x.ndim - 1))}
    stream.synchronize()
    assert all(v.dtype == torch.float32 and v.is_cuda for v in got.values())
    assert same_bits(got["sum"].cpu().numpy(), np.asarray(accsum.sum(x))), name
    assert same_bits(got["dot"].cpu().numpy(), np.asarray(accsum.dot(x, y))), name
    assert same_bits(got["sum_k"].cpu().numpy(), np.asarray(accsum.sum_k(x, 2))), name
    if rows:
        assert same_bits(rows["sum"].cpu().numpy(), accsum.sum(x, axis=-1)), name
        assert same_bits(rows["dot"].cpu().numpy(), accsum.dot(x, y, axis=(0, x.ndim - 1))), name


def test_float32_axis_rows_of_special_values():
    x = np.array([[np.nan, 1.0], [np.inf, -np.inf], [np.inf, 3e38], [-0.0, -0.0], [0.0, -0.0], [3.4e38, 3.4e38],
                  [1.0, 2.0**-24]], dtype=np.float32)
    got = accsum.sum(torch.from_numpy(x).cuda(), axis=1)
    assert got.dtype == torch.float32
    assert same_bits(got.cpu().numpy(), accsum.sum(x, axis=1))
