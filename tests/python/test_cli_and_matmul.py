"""The same bits as the tool on the same .npy file (superacc, superacc-dot, dpsumk rows of
`accsum bench --input`), and matmul against exact products."""

import json
import os
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from exact import exact_product, same_bits

import accsum

ACCSUM_BIN = os.environ.get("ACCSUM_BIN")
needs_cli = pytest.mark.skipif(not ACCSUM_BIN, reason="ACCSUM_BIN (the accsum tool) not given; ctest sets it")


def bench_rows(tmp_path, data, algos, params=()):
    path = tmp_path / "data.npy"
    np.save(path, data)
    report = tmp_path / "report.json"
    subprocess.run([ACCSUM_BIN, "bench", f"--input={path}", f"--algo={algos}", "--backend=cpu,cpu-mt",
                    f"--json={report}", "--reps=1", *params], check=True, capture_output=True)
    rows = json.loads(report.read_text())["results"]
    return {(r["algo"], r["backend"]): float.fromhex(r["value_hex"]) if "x" in r["value_hex"] else float(r["value_hex"])
            for r in rows}


def corpus():
    rng = np.random.default_rng(11)
    return [rng.standard_normal(10_000) * np.logspace(-150, 150, 10_000),
            np.array([1e308, 1e308, -1e308, 2.0**-1074, -1.0]),
            rng.standard_normal(7)]


@needs_cli
@pytest.mark.parametrize("case", range(3))
def test_sum_and_dot_have_the_tools_bits(tmp_path, case):
    x = corpus()[case]
    rows = bench_rows(tmp_path, x, "superacc")
    for backend in ("cpu", "cpu-mt"):
        assert same_bits(np.float64(rows[("superacc", backend)]), accsum.sum(x))
        assert same_bits(np.float64(rows[("superacc", backend)]), accsum.sum(x, threads=1))
    y = np.cos(np.arange(x.size)) * 3.0
    rows = bench_rows(tmp_path, np.stack([x, y]), "superacc-dot")
    assert same_bits(np.float64(rows[("superacc-dot", "cpu")]), accsum.dot(x, y))


@needs_cli
def test_sum_k_has_the_tools_bits(tmp_path):
    x = corpus()[0]
    rows = bench_rows(tmp_path, x, "dpsumk", ["--K=3"])
    assert same_bits(np.float64(rows[("dpsumk", "cpu")]), accsum.sum_k(x, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_cr_is_every_entry_correctly_rounded(dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((5, 9)) * np.logspace(-8, 8, 9)).astype(dtype)
    b = (rng.standard_normal((9, 4)) * np.logspace(8, -8, 4)).astype(dtype)
    b[:, 1] = -b[:, 1] * 0  # a column of signed zeros: an exact zero entry is +0
    got = accsum.matmul(a, b)
    assert got.dtype == dtype and got.shape == (5, 4)
    want = exact_product(a, b, dtype)
    assert np.array_equal(got, want), (got - want)
    # A Fortran-ordered, transposed view gives the same bits.
    assert same_bits(accsum.matmul(np.asfortranarray(a), b.T.copy().T), got)


def exact_entries(a, b):
    return [[sum((Fraction(float(a[i, k])) * Fraction(float(b[k, j])) for k in range(a.shape[1])), Fraction(0))
             for j in range(b.shape[1])] for i in range(a.shape[0])]


def test_matmul_faithful_and_blas_accuracies():
    rng = np.random.default_rng(6)
    a = (rng.standard_normal((8, 33)) * np.logspace(-12, 12, 33)).astype(np.float32)
    b = (rng.standard_normal((33, 6)) * np.logspace(12, -12, 6)).astype(np.float32)
    exact = exact_entries(a, b)
    got = accsum.matmul(a, b, accuracy="faithful")
    for i in range(8):
        for j in range(6):  # faithful: the exact value lies strictly between the entry's neighbours
            g = got[i, j]
            below, above = np.nextafter(g, np.float32(-np.inf)), np.nextafter(g, np.float32(np.inf))
            assert Fraction(float(below)) < exact[i][j] < Fraction(float(above)), (i, j)
    # sgemm: SGEMM's normwise bound gamma_K |a_i| |b_j| (Cauchy-Schwarz form), per entry.
    got = accsum.matmul(a, b, accuracy="sgemm").astype(np.float64)
    K = a.shape[1]
    bound = K * 2.0**-24 / (1 - K * 2.0**-24) * np.outer(np.linalg.norm(a.astype(np.float64), axis=1),
                                                         np.linalg.norm(b.astype(np.float64), axis=0))
    err = np.array([[abs(Fraction(got[i, j]) - exact[i][j]) for j in range(6)] for i in range(8)], dtype=np.float64)
    assert np.all(err <= bound)
    d = accsum.matmul(a.astype(np.float64), b.astype(np.float64), accuracy="dgemm")
    assert d.dtype == np.float64 and d.shape == (8, 6)


def test_matmul_empty_and_zero_inner():
    a = np.ones((3, 0), dtype=np.float32)
    b = np.ones((0, 2), dtype=np.float32)
    assert np.array_equal(accsum.matmul(a, b), np.zeros((3, 2), dtype=np.float32))
    assert accsum.matmul(np.ones((0, 4)), np.ones((4, 2))).shape == (0, 2)
