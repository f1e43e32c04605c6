"""dtype objects (nabla.float32, ...) and the default floating dtype."""
from __future__ import annotations

import numpy as np

from ._lib import ffi, lib


class dtype:
    """An element type; compare with `is` or `==`."""

    __slots__ = ("code", "name", "itemsize", "is_floating_point", "is_signed", "_numpy")

    def __init__(self, code: int, numpy_type) -> None:
        self.code = code
        self.name = ffi.string(lib.nb_dtype_name(code)).decode()
        self.itemsize = lib.nb_dtype_size(code)
        self.is_floating_point = bool(lib.nb_dtype_is_floating(code))
        self.is_signed = self.name not in ("uint8", "bool")
        self._numpy = numpy_type

    def __repr__(self) -> str:
        return f"nabla.{self.name}"

    def __reduce__(self):
        return (_by_code, (self.code,))


float32 = dtype(lib.NB_F32, np.float32)
float64 = dtype(lib.NB_F64, np.float64)
float16 = dtype(lib.NB_F16, np.float16)
bfloat16 = dtype(lib.NB_BF16, None)  # NumPy has no bfloat16
int8 = dtype(lib.NB_I8, np.int8)
int16 = dtype(lib.NB_I16, np.int16)
int32 = dtype(lib.NB_I32, np.int32)
int64 = dtype(lib.NB_I64, np.int64)
uint8 = dtype(lib.NB_U8, np.uint8)
bool_ = dtype(lib.NB_BOOL, np.bool_)

BY_CODE = (float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, bool_)
assert all(d.code == i for i, d in enumerate(BY_CODE))

FROM_NUMPY = {np.dtype(d._numpy): d for d in BY_CODE if d._numpy is not None}

# PyTorch's spellings in its messages: ScalarType names and C++ types (as src/core/dtype.c).
TORCH_NAMES = ("Float", "Double", "Half", "BFloat16", "Char", "Short", "Int", "Long", "Byte", "Bool")
CPP_NAMES = ("float", "double", "c10::Half", "c10::BFloat16", "signed char", "short int", "int", "long int",
             "unsigned char", "bool")

ALIASES = {"float": float32, "double": float64, "half": float16, "short": int16,
           "int": int32, "long": int64, "bool": bool_}


def _by_code(code: int) -> dtype:
    return BY_CODE[code]


_default = [float32]


def get_default_dtype() -> dtype:
    """The dtype of Python floats turned into tensors (float32 unless changed)."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Sets the default floating dtype (float32, float64, float16 or bfloat16)."""
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    lib.nb_set_default_dtype(d.code)  # scalar floats promote to it inside the C library too
    _default[0] = d


def from_numpy_dtype(np_dtype) -> dtype:
    d = FROM_NUMPY.get(np.dtype(np_dtype))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    return d


def check(d) -> dtype:
    if isinstance(d, dtype):
        return d
    raise TypeError(f"expected a nabla.dtype, got {type(d).__name__} {d!r}")


# ---- promotion (torch.promote_types, result_type, can_cast) ----

def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both convert to without losing their kind (PyTorch's table)."""
    return BY_CODE[lib.nb_promote_dtypes(type1.code, type2.code)]


def _category(d: dtype) -> int:
    return 2 if d.is_floating_point else 0 if d is bool_ else 1


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether PyTorch's casting rules allow from_ -> to in an in-place op: not floating to
    integral, not anything but bool to bool."""
    if from_.is_floating_point and not to.is_floating_point and to is not bool_:
        return False
    return not (from_ is not bool_ and to is bool_)
