"""Elementwise unary ops: nabla.exp(...), Tensor.exp / exp_, clamp, where, and
the unary operators (-t, abs(t), ~t)."""
from __future__ import annotations

import numbers

from . import _dtype
from ._binary import _operand, maximum, minimum
from ._lib import error, ffi, lib
from ._tensor import Tensor, _checked, _out, _write_out

_NULL = ffi.NULL
_INF = float("inf")


_SAME = "{fname}: Found dtype {out} but expected {result}"  # PyTorch's unary_op rule for out=


def _call_into(raw, args: tuple, out: Tensor | None, fname: str):
    """Runs a raw ABI op writing into `out` (no new reference), returning out."""
    status = raw(*args, _out(out, fname), _NULL)
    if status:
        raise error(status)
    return out


TENSOR_METHODS: dict = {}  # Tensor.<name>, <name>_ and the operators; _tensor_methods binds them


def _define(name: str, aliases: tuple = (), dunder: str | None = None, params: tuple = ()):
    """nabla.<name>(input, *params, out=None) and, in TENSOR_METHODS, Tensor.<name>(*params) and <name>_()."""
    twin, raw = getattr(lib, "nbpy_" + name), getattr(lib, "nb_" + name)

    def fn(input, *args, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
        if out is None:
            return _checked(twin(input._h, *args, _NULL))
        return _call_into(raw, (input._h, *args), out, name)

    def method(self, *args):
        return _checked(twin(self._h, *args, _NULL))

    def method_(self, *args):
        return _call_into(raw, (self._h, *args), self, name + "_")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input) -> Tensor, elementwise."
    method.__name__, method_.__name__ = name, name + "_"
    for n in (name, *aliases):
        globals()[n] = fn
        TENSOR_METHODS[n], TENSOR_METHODS[n + "_"] = method, method_
    if dunder:
        TENSOR_METHODS[dunder] = method


for _name, _aliases in (
        ("exp", ()), ("exp2", ()), ("expm1", ()), ("log", ()), ("log2", ()), ("log10", ()), ("log1p", ()),
        ("sqrt", ()), ("rsqrt", ()), ("sin", ()), ("cos", ()), ("tan", ()), ("asin", ("arcsin",)),
        ("acos", ("arccos",)), ("atan", ("arctan",)), ("sinh", ()), ("cosh", ()), ("tanh", ()),
        ("sigmoid", ()), ("erf", ()), ("erfc", ()), ("reciprocal", ()), ("sign", ()), ("relu", ()),
        ("square", ()), ("floor", ()), ("ceil", ()), ("trunc", ("fix",)), ("logical_not", ()),
        ("isnan", ()), ("isinf", ()), ("isfinite", ()), ("silu", ())):
    _define(_name, _aliases)
_define("neg", ("negative",), "__neg__")
_define("abs", ("absolute",), "__abs__")
_define("bitwise_not", (), "__invert__")
_define("round")
_round_half_even = globals()["round"]
del TENSOR_METHODS["round"]  # Tensor.round takes decimals= (_tensor_methods); round_ rounds half to even


def round(input: Tensor, *, decimals: int = 0, out=None) -> Tensor:  # noqa: A001 - PyTorch's name
    """Rounds half to even; with decimals, to that many decimal places (as PyTorch does)."""
    if decimals == 0:
        return _round_half_even(input, out=out)
    scale = 10.0 ** decimals
    result = _round_half_even(input * scale) / scale
    return result if out is None else _write_out(out, result, "round", _SAME)


_FINITE_MAX = {_dtype.float32: 3.4028234663852886e38, _dtype.float64: 1.7976931348623157e308,
               _dtype.float16: 65504.0, _dtype.bfloat16: 3.3895313892515355e38}


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None, *,
               out=None) -> Tensor:
    """Replaces NaN with `nan`, +inf with `posinf` and -inf with `neginf` (defaults: the dtype's extremes)."""
    big = _FINITE_MAX.get(input.dtype, 0.0)
    args = (float(nan), big if posinf is None else float(posinf), -big if neginf is None else float(neginf))
    if out is None:
        return _checked(lib.nbpy_nan_to_num(input._h, *args, _NULL))
    return _call_into(lib.nb_nan_to_num, (input._h, *args), out, "nan_to_num")


def clamp(input: Tensor, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002 - PyTorch's names
    """Limits values to [min, max]; bounds may be numbers or tensors (broadcast)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        result = input
        if min is not None:
            result = maximum(result, min)
        if max is not None:
            result = minimum(result, max)
        return result if out is None else _write_out(out, result, "clamp")
    for bound in (min, max):
        if bound is not None and not isinstance(bound, numbers.Real):
            raise TypeError(f"clamp(): bounds must be numbers or tensors, got {type(bound).__name__}")
    if not input.is_floating_point() and any(isinstance(b, float) for b in (min, max)):
        if out is input:  # clamp_: the float result cannot go back into the integer tensor
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_dtype.CPP_NAMES[input.dtype.code]}")
        input = input.to(_dtype.get_default_dtype())  # a float bound promotes an integer tensor
    args = (input._h, -_INF if min is None else float(min), _INF if max is None else float(max))
    if out is None:
        return _checked(lib.nbpy_clamp(*args, _NULL))
    return _call_into(lib.nb_clamp, args, out, "clamp")


clip = clamp


def where(condition: Tensor, input, other, *, out=None) -> Tensor:
    """Elements of input where condition is True, else of other (all three broadcast)."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not {type(condition).__name__}")
    a, ka = _operand(input, "where")
    b, kb = _operand(other, "where")
    if out is None:
        return _checked(lib.nbpy_where(condition._h, a, b, _NULL))
    return _call_into(lib.nb_where, (condition._h, a, b), out, "where")


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__]
