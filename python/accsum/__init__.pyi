# The typed interface of the accsum package (PEP 484 interface file for type checkers; docs/python.md).
from typing import Any, Callable, Literal, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._verify import VerifyResult as VerifyResult

__version__: str

_Axis = Union[None, int, Sequence[int]]
_Float = Union[np.float64, np.float32]
_Array = Union[npt.NDArray[np.float64], npt.NDArray[np.float32], Any]  # NumPy, or a DLPack CUDA array

def has_cuda() -> bool: ...
def release_cuda_memory() -> None: ...
def sum(x: _Array, axis: _Axis = None, *, threads: int = 0, keepdims: bool = False) -> Union[_Float, _Array]: ...
def dot(x: _Array, y: _Array, axis: _Axis = None, *, threads: int = 0,
        keepdims: bool = False) -> Union[_Float, _Array]: ...
def sum_k(x: _Array, K: int = 2, axis: _Axis = None, *, threads: int = 0,
          keepdims: bool = False) -> Union[_Float, _Array]: ...
def dot_k(x: _Array, y: _Array, K: int = 2, axis: _Axis = None, *, threads: int = 0,
          keepdims: bool = False) -> Union[_Float, _Array]: ...
def matmul(a: _Array, b: _Array, accuracy: Literal["cr", "faithful", "sgemm", "dgemm"] = "cr") -> _Array: ...
def verify(fn: Callable[..., Any], family: Literal["sum", "dot", "gemm", "dgemm"] = "sum",
           claim: Union[Literal["cr", "faithful", "none"], float] = "cr", reproducible: bool = False, *,
           declines: Sequence[type] = (), full: bool = False, seeds: int = 2, shrink: bool = True) -> VerifyResult: ...
def assert_verified(fn: Callable[..., Any], family: Literal["sum", "dot", "gemm", "dgemm"] = "sum",
                    claim: Union[Literal["cr", "faithful", "none"], float] = "cr", reproducible: bool = False,
                    **options: Any) -> VerifyResult: ...
