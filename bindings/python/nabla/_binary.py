"""Elementwise binary ops: nabla.add(...), Tensor.add / add_ and the operators.

Python numbers become "wrapped number" scalars (nb_scalar), which yield to
tensors in type promotion exactly as PyTorch's do: int32_tensor + 2.5 is float32.
"""
from __future__ import annotations

import numbers

import numpy as np

from ._lib import error, ffi, lib
from ._tensor import Tensor, _checked, _out

_NULL = ffi.NULL
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

# Wrapped scalars are immutable inside nabla, so common values are made once.
_scalar_cache: dict = {int: {}, float: {}, bool: {}}


def _make_scalar(value) -> Tensor:
    kind = value.__class__
    if kind is bool or isinstance(value, (bool, np.bool_)):
        h = lib.nbpy_scalar(0.0, int(value), lib.NB_BOOL)
    elif isinstance(value, numbers.Integral):
        value = int(value)
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise RuntimeError(f"value {value} cannot be converted to type int64 without overflow")
        h = lib.nbpy_scalar(0.0, value, lib.NB_I64)
    elif isinstance(value, numbers.Real):
        h = lib.nbpy_scalar(float(value), 0, lib.NB_F64)
    else:
        raise TypeError(f"unsupported operand type: {type(value).__name__}")
    return _checked(h)


def _scalar(value) -> Tensor:
    """A wrapped scalar for a Python number (cached for common values). The caller
    keeps the returned Tensor alive for as long as C uses its handle."""
    kind = value.__class__
    cache = _scalar_cache.get(kind)
    if cache is None or (kind is float and (value == 0.0 or value != value)):  # keep -0.0 and NaN distinct
        return _make_scalar(value)
    t = cache.get(value)
    if t is None:
        if len(cache) >= 1024:
            cache.clear()
        t = cache[value] = _make_scalar(value)
    return t


_NUMBER = (numbers.Number, np.bool_)


def _is_number(x) -> bool:
    return isinstance(x, _NUMBER) and not isinstance(x, complex)


def _operand(x, fname: str):
    """A C handle for a tensor or a Python number; the Tensor keeping it alive goes with it."""
    if isinstance(x, Tensor):
        return x._h, x
    if _is_number(x):
        s = _make_scalar(x)
        return s._h, s
    raise TypeError(f"{fname}(): expected a Tensor or a number, got {type(x).__name__}")



def _rounding(mode) -> int:
    if mode is None:
        return lib.NB_ROUND_NONE
    if mode == "trunc":
        return lib.NB_ROUND_TRUNC
    if mode == "floor":
        return lib.NB_ROUND_FLOOR
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


TENSOR_METHODS: dict = {}  # Tensor.<name>, <name>_ and the operators; _tensor_methods binds them


def _define(name: str, twin, raw, extra=None, aliases=(), dunder=None, rdunder=None, idunder=None):
    """Creates nabla.<name> and, in TENSOR_METHODS, Tensor.<name>, <name>_ and the operators for one C op.
    `extra` = (keyword, default, convert) names an attribute (alpha, rounding_mode)
    passed to C between the operands and the destination."""
    kw, default, convert = extra if extra else (None, None, None)
    plain = (convert(default),) if extra else ()  # the attribute's C value in operator form

    def attribute(kwargs: dict, fname: str) -> tuple:
        value = kwargs.pop(kw) if kw in kwargs else default
        if kwargs:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return (convert(value),) if extra else ()

    def fn(input, other, *, out=None, **kwargs):
        attr = attribute(kwargs, name)
        a, ka = _operand(input, name)
        b, kb = _operand(other, name)
        if out is None:
            return _checked(twin(a, b, *attr, _NULL))
        status = raw(a, b, *attr, _out(out, name), _NULL)
        if status:
            raise error(status)
        return out

    def method_(self, other, **kwargs):
        attr = attribute(kwargs, name + "_")
        b, kb = _operand(other, name + "_")
        status = raw(self._h, b, *attr, self._h, _NULL)
        if status:
            raise error(status)
        return self

    def binary(self, other):  # the operator fast path
        oc = other.__class__
        if oc is Tensor:
            return _checked(twin(self._h, other._h, *plain, _NULL))
        if oc is float or oc is int or oc is bool:
            s = _scalar(other)
            return _checked(twin(self._h, s._h, *plain, _NULL))
        if isinstance(other, Tensor) or _is_number(other):
            b, kb = _operand(other, name)
            return _checked(twin(self._h, b, *plain, _NULL))
        return NotImplemented

    def reflected(self, other):
        if not _is_number(other):
            return NotImplemented
        s = _scalar(other)
        return _checked(twin(s._h, self._h, *plain, _NULL))

    def inplace_operator(self, other):
        if not (isinstance(other, Tensor) or _is_number(other)):
            return NotImplemented
        return method_(self, other)

    def method(self, other, **kwargs):
        return fn(self, other, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, other) -> Tensor: elementwise, broadcast, with PyTorch's type promotion."
    method.__name__, method_.__name__ = name, name + "_"
    for n in (name, *aliases):
        globals()[n] = fn
        TENSOR_METHODS[n], TENSOR_METHODS[n + "_"] = method, method_
    for dname, impl in ((dunder, binary), (rdunder, reflected), (idunder, inplace_operator)):
        if dname:
            TENSOR_METHODS[dname] = impl
    return fn


_alpha = ("alpha", 1, float)
_define("add", lib.nbpy_add, lib.nb_add, _alpha, (), "__add__", "__radd__", "__iadd__")
_define("sub", lib.nbpy_sub, lib.nb_sub, _alpha, ("subtract",), "__sub__", "__rsub__", "__isub__")
_define("mul", lib.nbpy_mul, lib.nb_mul, None, ("multiply",), "__mul__", "__rmul__", "__imul__")
_define("div", lib.nbpy_div, lib.nb_div, ("rounding_mode", None, _rounding), ("divide", "true_divide"),
        "__truediv__", "__rtruediv__", "__itruediv__")
_define("floor_divide", lib.nbpy_floor_divide, lib.nb_floor_divide, None, (),
        "__floordiv__", "__rfloordiv__", "__ifloordiv__")
_define("remainder", lib.nbpy_remainder, lib.nb_remainder, None, (), "__mod__", "__rmod__", "__imod__")
_define("fmod", lib.nbpy_fmod, lib.nb_fmod)
_define("pow", lib.nbpy_pow, lib.nb_pow, None, (), "__pow__", "__rpow__", "__ipow__")
_define("maximum", lib.nbpy_maximum, lib.nb_maximum)
_define("minimum", lib.nbpy_minimum, lib.nb_minimum)
_define("atan2", lib.nbpy_atan2, lib.nb_atan2, None, ("arctan2",))
_define("igamma", lib.nbpy_igamma, lib.nb_igamma)
_define("igammac", lib.nbpy_igammac, lib.nb_igammac)
_define("nextafter", lib.nbpy_nextafter, lib.nb_nextafter)
_define("eq", lib.nbpy_eq, lib.nb_eq, None, (), "__eq__")
_define("ne", lib.nbpy_ne, lib.nb_ne, None, ("not_equal",), "__ne__")
_define("lt", lib.nbpy_lt, lib.nb_lt, None, ("less",), "__lt__")
_define("le", lib.nbpy_le, lib.nb_le, None, ("less_equal",), "__le__")
_define("gt", lib.nbpy_gt, lib.nb_gt, None, ("greater",), "__gt__")
_define("ge", lib.nbpy_ge, lib.nb_ge, None, ("greater_equal",), "__ge__")
_define("logical_and", lib.nbpy_logical_and, lib.nb_logical_and)
_define("logical_or", lib.nbpy_logical_or, lib.nb_logical_or)
_define("logical_xor", lib.nbpy_logical_xor, lib.nb_logical_xor)
_define("bitwise_and", lib.nbpy_bitwise_and, lib.nb_bitwise_and, None, (), "__and__", "__rand__", "__iand__")
_define("bitwise_or", lib.nbpy_bitwise_or, lib.nb_bitwise_or, None, (), "__or__", "__ror__", "__ior__")
_define("bitwise_xor", lib.nbpy_bitwise_xor, lib.nb_bitwise_xor, None, (), "__xor__", "__rxor__", "__ixor__")
_define("bitwise_left_shift", lib.nbpy_bitwise_left_shift, lib.nb_bitwise_left_shift, None, (),
        "__lshift__", "__rlshift__", "__ilshift__")
_define("bitwise_right_shift", lib.nbpy_bitwise_right_shift, lib.nb_bitwise_right_shift, None, (),
        "__rshift__", "__rrshift__", "__irshift__")

__all__ = [n for n in list(globals()) if not n.startswith("_") and callable(globals()[n])
           and getattr(globals()[n], "__module__", None) == __name__]
