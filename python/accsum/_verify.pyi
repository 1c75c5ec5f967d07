from typing import Any, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

class VerifyResult:
    name: str
    family: str
    claim: str
    reproducible: bool
    cases: int
    violations: int
    errors: int
    skipped: int
    declined: int
    worst_ulps: float
    min_digits: float
    first_violation: str
    counterexample: Optional[Union[npt.NDArray[np.float64], Tuple[npt.NDArray[Any], ...]]]
    counterexample_from: int
    @property
    def ok(self) -> bool: ...
    def __bool__(self) -> bool: ...
