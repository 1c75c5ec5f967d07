"""accsum.verify: any Python reduction held to a claim on the corpus of ``accsum verify``.

Each case is a dataset the tool's verify generates (every generator, size and seed of the family),
the callable's answer is judged by the family's exact oracle (MPFR, or exact integers for GEMM), and
the first input that breaks the claim is shrunk (halves, then quarters, ... then single elements,
while the claim still fails; Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing
Input", IEEE TSE 28(2), 2002) to a small counter-example.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from . import _accsum

_CLAIMS = ("cr", "faithful", "none")
# Shrinking stops after this many evaluations of the callable (each also runs the oracle).
_MAX_SHRINK_CALLS = 4000


@dataclass
class VerifyResult:
    """What accsum.verify found; true when no case broke the claim."""

    name: str
    family: str
    claim: str
    reproducible: bool
    cases: int = 0
    violations: int = 0
    errors: int = 0
    skipped: int = 0
    worst_ulps: float = 0.0
    min_digits: float = 16.0
    first_violation: str = ""
    declined: int = 0  # cases on which fn raised one of the exceptions it declares (declines=)
    # The shrunk input of the first broken claim: x (sum) or (x, y) (dot), NumPy arrays.
    counterexample: object = field(default=None, repr=False)
    counterexample_from: int = 0  # elements of the case it was shrunk from

    @property
    def ok(self) -> bool:
        return self.cases > 0 and self.violations == 0

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        claim = self.claim + ("+repro" if self.reproducible else "")
        ulps = "inf" if math.isinf(self.worst_ulps) else f"{self.worst_ulps:.3g}"
        first = self.first_violation or ("UNTESTED: no case ran" if self.cases == 0 else "")
        line = (f"{self.name:<14} {'python':<8} {claim:<26} {self.cases:>7} {self.violations:>10} {ulps:>11} "
                f"{self.min_digits:>10.1f}  {first}")
        if self.declined:
            line += f"\n{self.declined} case(s) declined (fn raised an exception it declares)"
        if self.counterexample is not None:
            arrays = self.counterexample if isinstance(self.counterexample, tuple) else (self.counterexample,)
            line += (f"\ncounter-example: {self.name} breaks its claim on {arrays[0].size} element(s) "
                     f"(shrunk from {self.counterexample_from}): {', '.join(repr(a.tolist()) for a in arrays)}")
        return line


def _name_of(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _answer(fn, inputs, family):
    """The callable's answer as the oracle reads it: a float, or a float64 matrix for GEMM."""
    with np.errstate(all="ignore"):  # overflow and invalid operations are what the corpus probes
        got = fn(*inputs)
    if family in ("gemm", "dgemm"):
        return np.ascontiguousarray(np.asarray(got, dtype=np.float64))
    return float(got)


def _same_bits(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all((a.view(np.uint64) == b.view(np.uint64)) | both_nan))


def _broken(metrics, claim, bounded):
    """Why the judged answer breaks the claim ("" when it does not); special values follow IEEE 754."""
    if metrics["special"]:
        if not metrics["correctly_rounded"]:
            return f"special values: expected {metrics['expected']}, got {metrics['got']}"
        return ""
    if claim == "cr" and not metrics["correctly_rounded"]:
        return f"not correctly_rounded ({metrics['got']} vs {metrics['expected']})"
    if claim == "faithful" and not metrics["faithful"]:
        return "not faithful"
    if bounded and not metrics["within_bound"]:
        return f"error above the claimed bound (abs error {metrics['abs_err']:.3g})"
    return ""


def _shrink(case, fn, family, claim, bound):
    """The smallest subset of case's elements found on which fn still breaks the claim."""
    keep = list(range(case.n))
    calls = 0

    def fails(indices):
        nonlocal calls
        calls += 1
        sub = case.subset(indices)
        try:
            return bool(_broken(sub.judge(_answer(fn, sub.inputs(), family), bound), claim, bound >= 0))
        except Exception:
            return False  # an input the callable refuses is not a counter-example of the claim

    chunk = max(1, len(keep) // 2)
    while calls < _MAX_SHRINK_CALLS:
        i, removed = 0, False
        while i < len(keep) and calls < _MAX_SHRINK_CALLS:
            candidate = keep[:i] + keep[i + chunk:]
            if candidate and fails(candidate):
                keep, removed = candidate, True
            else:
                i += chunk
        if chunk == 1 and not removed:
            break
        if not removed:
            chunk //= 2
        chunk = max(1, min(chunk, len(keep) // 2))
    return case.subset(keep)


def _judge_case(fn, case, family, claim, bound, reproducible):
    """The oracle's metrics of fn's answer on case, and why it breaks the claim ("" if it does not)."""
    inputs = case.inputs()
    answer = _answer(fn, inputs, family)
    metrics = case.judge(answer, bound)
    why = _broken(metrics, claim, bound >= 0)
    if reproducible and not why:
        if not _same_bits(answer, _answer(fn, inputs, family)):
            why = "not reproducible: a repeated call gave other bits"
        elif not _same_bits(answer, _answer(fn, case.permuted().inputs(), family)):
            why = "not reproducible: the permuted data gave other bits"
    return metrics, why


def verify(fn, family="sum", claim="cr", reproducible=False, *, declines=(), full=False, seeds=2, shrink=True):
    """Runs fn on every case of ``accsum verify``'s corpus for `family` and judges each answer exactly.

    fn is called as fn(x) for "sum", fn(x, y) for "dot" (1-D float64 NumPy arrays) and fn(a, b) for
    "gemm" (float32 matrices) or "dgemm" (float64). claim: "cr" (correctly rounded), "faithful",
    "none", or a number: an absolute error bound. Whatever the claim, NaN and infinities must follow
    IEEE 754 (as the tool holds its own algorithms to). reproducible=True also asks for the same bits
    from a repeated call and from the data in another order (the family's permutation). full and
    seeds choose the corpus as ``accsum verify --full --seeds``. declines: exception types fn raises
    by design on some inputs (e.g. math.fsum's OverflowError on an intermediate overflow): such a
    case is counted as declined, not judged; any other exception is a violation. Returns a VerifyResult whose
    counterexample is the shrunk input of the first broken claim (vector families).
    """
    if isinstance(claim, numbers.Real) and not isinstance(claim, bool):
        bound = float(claim)
        if not bound >= 0:
            raise ValueError(f"an error bound must be a number >= 0, not {claim}")
        claim_name = f"bound {bound:g}"
        claim = "bound"
    elif claim in _CLAIMS:
        bound, claim_name = -1.0, claim
    else:
        raise ValueError(f"claim must be one of {', '.join(_CLAIMS)} or an error bound, not {claim!r}")
    if family not in ("sum", "dot", "gemm", "dgemm"):
        raise ValueError(f"family must be sum, dot, gemm or dgemm, not {family!r}")
    if not callable(fn):
        raise TypeError("fn must be callable")
    result = VerifyResult(_name_of(fn), family, claim_name, bool(reproducible))
    declines = tuple(declines)
    to_shrink = None
    for case in _accsum.corpus(family, bool(full), int(seeds)):
        if not case.plain:  # a product with BLAS scalars alpha, beta: not what fn computes
            result.skipped += 1
            continue
        result.cases += 1
        try:
            metrics, why = _judge_case(fn, case, family, claim, bound, reproducible)
        except declines:
            result.declined += 1
            continue
        except Exception as exc:  # the callable failed on this case: a violation, reported
            result.errors += 1
            metrics, why = None, f"raised {type(exc).__name__}: {exc}"
        if metrics is not None and not metrics["special"]:
            if not math.isnan(metrics["ulps"]):
                result.worst_ulps = max(result.worst_ulps, metrics["ulps"])
            result.min_digits = min(result.min_digits, metrics["digits"])
        if why:
            result.violations += 1
            if not result.first_violation:
                result.first_violation = f"{case.label}: {why}"
                if metrics is not None and not why.startswith("not reproducible"):
                    to_shrink = case
    if to_shrink is not None and shrink and family in ("sum", "dot"):
        small = _shrink(to_shrink, fn, family, claim, bound)
        arrays = tuple(small.inputs())
        result.counterexample = arrays[0] if family == "sum" else arrays
        result.counterexample_from = to_shrink.n
    return result


def assert_verified(fn, family="sum", claim="cr", reproducible=False, **options):
    """accsum.verify, raising AssertionError with the verify line (and counter-example) when it fails."""
    result = verify(fn, family, claim, reproducible, **options)
    if not result.ok:
        raise AssertionError(repr(result))
    return result
