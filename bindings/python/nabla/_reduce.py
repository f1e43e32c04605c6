"""Reductions, scans and softmax: nabla.sum(...), Tensor.sum, ... with PyTorch's
overloads, defaults and result dtypes.

max / min follow torch: max(t) reduces everything, max(t, dim, keepdim) returns
return_types.max(values, indices), max(a, b) is maximum(a, b).

This module defines sum, max, min, all and any: it uses builtins.<name> for Python's own.
"""
from __future__ import annotations

import builtins
import collections
import numbers
import operator
import threading
import types

from . import _dtype
from ._binary import maximum as _maximum, minimum as _minimum
from ._lib import error, ffi, lib
from ._tensor import Tensor, _new_object, _checked, _out, _write_out

_NULL = ffi.NULL
_UNSET = object()  # "argument not given": torch rejects an explicit dim=None where the overload has no dim


class _Pair(threading.local):
    """Per-thread out-parameters of max(dim) / min(dim)."""

    def __init__(self) -> None:
        self.buf = ffi.new("nb_tensor*[2]")


_pair = _Pair()

return_types = types.ModuleType("nabla.return_types",
                                "Named tuples returned by max(dim) / min(dim), as torch.return_types.")
return_types.max = collections.namedtuple("max", ["values", "indices"])
return_types.min = collections.namedtuple("min", ["values", "indices"])
return_types.max.__module__ = return_types.min.__module__ = "nabla.return_types"




def _check(fname: str, t) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
    return t


def _index(x, fname: str, what: str = "dim") -> int:
    if isinstance(x, bool):
        raise TypeError(f"{fname}(): argument '{what}' must be int, not bool")
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{what}' must be int, not {type(x).__name__}") from None


def _dims(dim, fname: str):
    """(dims, ndims) for the C call: None and () mean every dim."""
    if dim is None:
        return _NULL, 0
    if dim.__class__ is int:
        return [dim], 1
    if isinstance(dim, (tuple, list)):
        if not dim:
            return _NULL, 0
        return [_index(d, fname) for d in dim], len(dim)
    return [_index(dim, fname)], 1


def _dtype_code(dtype) -> int:
    return -1 if dtype is None else _dtype.check(dtype).code


def _out_handle(out, fname: str):
    return _NULL if out is None else _out(out, fname)


def _run(twin, raw, args, out, fname: str) -> Tensor:
    """Calls the C op: the handle-returning twin, or the raw call writing into out."""
    if out is None:
        return _checked(twin(*args, _NULL))
    status = raw(*args, _out_handle(out, fname), _NULL)
    if status:
        raise error(status)
    return out


# ---- sum / mean / prod ----

def _sum_like(name: str, twin, raw):
    def fn(input, dim=None, keepdim=False, *, dtype=None, out=None):
        _check(name, input)
        dims, n = _dims(dim, name)
        return _run(twin, raw, (input._h, dims, n, bool(keepdim), _dtype_code(dtype)), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor: reduces dim "
                  "(an int, a tuple of ints, or None for every dim).")
    return fn


sum = _sum_like("sum", lib.nbpy_sum, lib.nb_sum)  # noqa: A001 - PyTorch's name
mean = _sum_like("mean", lib.nbpy_mean, lib.nb_mean)
_prod_any = _sum_like("prod", lib.nbpy_prod, lib.nb_prod)


def prod(input, dim=_UNSET, keepdim=False, *, dtype=None, out=None):
    """prod(input, *, dtype=None) or prod(input, dim, keepdim=False, *, dtype=None, out=None): dim is one int."""
    if dim is _UNSET:
        if keepdim is not False:
            raise TypeError("prod(): keepdim needs dim")
        return _prod_any(input, None, False, dtype=dtype, out=out)
    return _prod_any(input, _index(dim, "prod"), keepdim, dtype=dtype, out=out)


# ---- amax / amin / max / min ----

def amax(input, dim=(), keepdim=False, *, out=None):
    """The maximum over dim (an int or tuple; () for every dim); NaN propagates."""
    _check("amax", input)
    dims, n = _dims(dim, "amax")
    return _run(lib.nbpy_amax, lib.nb_amax, (input._h, dims, n, bool(keepdim)), out, "amax")


def amin(input, dim=(), keepdim=False, *, out=None):
    """The minimum over dim (an int or tuple; () for every dim); NaN propagates."""
    _check("amin", input)
    dims, n = _dims(dim, "amin")
    return _run(lib.nbpy_amin, lib.nb_amin, (input._h, dims, n, bool(keepdim)), out, "amin")


def _with_indices(name: str, raw, pair_type, input, dim, keepdim, out):
    dim = _index(dim, name)
    if out is None:
        buf = _pair.buf
        status = raw(input._h, dim, bool(keepdim), _NULL, _NULL, buf, buf + 1)
        if status:
            raise error(status)
        return pair_type(_checked(buf[0]), _checked(buf[1]))
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and builtins.all(isinstance(o, Tensor) for o in out)):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of two Tensors (values, indices)")
    status = raw(input._h, dim, bool(keepdim), _out(out[0], name), _out(out[1], name), _NULL, _NULL)
    if status:
        raise error(status)
    return pair_type(out[0], out[1])


def _extremum(name: str, all_fn, raw, elementwise, pair_type):
    every = lib.nbpy_amax if name == "max" else lib.nbpy_amin

    def fn(input, dim=_UNSET, keepdim=False, *, out=None, other=None):
        if dim is _UNSET and out is None and other is None and keepdim is False and input.__class__ is Tensor:
            h = every(input._h, _NULL, 0, False, _NULL)  # the fast path of max(t)
            if h:
                t = _new_object(Tensor)
                t._h = h
                t._shape = None
                return t
        _check(name, input)
        if isinstance(dim, Tensor) or other is not None:  # max(a, b): elementwise
            b = dim if other is None else other
            if keepdim is not False:
                raise TypeError(f"{name}(): keepdim is not an argument of {name}(input, other)")
            return elementwise(input, b, out=out)
        if dim is None:
            raise TypeError(f"{name}(): argument 'dim' must be int, not NoneType")
        if dim is _UNSET:
            if keepdim is not False:
                raise TypeError(f"{name}(): keepdim needs dim")
            if input.numel() == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            return all_fn(input, out=out)
        return _with_indices(name, raw, pair_type, input, dim, keepdim, out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input) -> Tensor (every element); {name}(input, dim, keepdim=False) -> "
                  f"return_types.{name}(values, indices); {name}(input, other) -> {name}imum(input, other).")
    return fn


max = _extremum("max", amax, lib.nb_max_dim, _maximum, return_types.max)  # noqa: A001
min = _extremum("min", amin, lib.nb_min_dim, _minimum, return_types.min)  # noqa: A001


def argmax(input, dim=None, keepdim=False, *, out=None):
    """Index of the first maximum along dim, or into the flattened tensor when dim is None (int64)."""
    _check("argmax", input)
    d = _NULL if dim is None else [_index(dim, "argmax")]
    return _run(lib.nbpy_argmax, lib.nb_argmax, (input._h, d, bool(keepdim)), out, "argmax")


def argmin(input, dim=None, keepdim=False, *, out=None):
    """Index of the first minimum along dim, or into the flattened tensor when dim is None (int64)."""
    _check("argmin", input)
    d = _NULL if dim is None else [_index(dim, "argmin")]
    return _run(lib.nbpy_argmin, lib.nb_argmin, (input._h, d, bool(keepdim)), out, "argmin")


# ---- var / std ----

def _var_like(name: str, twin, raw):
    def fn(input, *args, dim=None, unbiased=None, correction=None, keepdim=False, out=None):
        _check(name, input)
        args = list(args)
        if args and isinstance(args[0], bool):  # var(input, unbiased)
            if len(args) > 1:
                raise TypeError(f"{name}(): too many positional arguments")
            unbiased = args.pop(0)
        elif args:  # var(input, dim, unbiased=None, keepdim=False)
            dim = args.pop(0)
            if args:
                unbiased = args.pop(0)
                if not isinstance(unbiased, bool):
                    raise TypeError(f"{name}(): argument 'unbiased' must be bool, not {type(unbiased).__name__}")
            if args:
                keepdim = args.pop(0)
            if args:
                raise TypeError(f"{name}(): too many positional arguments")
        if unbiased is not None and correction is not None:
            raise RuntimeError(f"{name}(): cannot specify both unbiased and correction")
        c = 1.0 if correction is None and unbiased is None else (
            float(correction) if correction is not None else (1.0 if unbiased else 0.0))
        dims, n = _dims(dim, name)
        return _run(twin, raw, (input._h, dims, n, c, bool(keepdim)), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input, dim=None, *, correction=1, keepdim=False, out=None); also the legacy "
                  f"{name}(input, unbiased) and {name}(input, dim, unbiased, keepdim).")
    return fn


var = _var_like("var", lib.nbpy_var, lib.nb_var)
std = _var_like("std", lib.nbpy_std, lib.nb_std)


# ---- norm / logsumexp ----

def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The vector p-norm over dim (None: every dim): p a number (inf, -inf, 0 included) or 'fro' (= 2)."""
    _check("norm", input)
    if isinstance(p, str):
        if p == "fro":
            p = 2.0
        elif p == "nuc":  # the sum of the singular values of the matrices in dim (default: the last two dims)
            from .linalg import matrix_norm
            return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype, out=out)
        else:
            raise RuntimeError(f"norm: unknown order p={p!r} (expected a number, 'fro' or 'nuc')")
    elif p is None:
        p = 2.0
    elif isinstance(p, numbers.Real):
        p = float(p)
    else:
        raise TypeError(f"norm(): argument 'p' must be a number or str, not {type(p).__name__}")
    dims, n = _dims(dim, "norm")
    return _run(lib.nbpy_norm, lib.nb_norm, (input._h, p, dims, n, bool(keepdim), _dtype_code(dtype)), out, "norm")


def logsumexp(input, dim, keepdim=False, *, out=None):
    """log(sum(exp(input))) over dim (required; () for every dim), computed stably; integer inputs give the
    default float dtype."""
    _check("logsumexp", input)
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    dims, n = _dims(dim, "logsumexp")
    return _run(lib.nbpy_logsumexp, lib.nb_logsumexp, (input._h, dims, n, bool(keepdim)), out, "logsumexp")


# ---- all / any ----

def _logical(name: str, twin, raw):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check(name, input)
        if isinstance(dim, (tuple, list)) and not dim:  # torch: dim=() reduces nothing
            r = input.to(_dtype.bool_)
            if input.dtype is _dtype.uint8:
                r = r.to(_dtype.uint8)
            return r if out is None else _write_out(out, r, name)
        dims, n = _dims(dim, name)
        return _run(twin, raw, (input._h, dims, n, bool(keepdim)), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input, dim=None, keepdim=False, *, out=None): bool (uint8 for uint8 input); dim is an "
                  "int, a tuple of ints, or None for every dim.")
    return fn


all = _logical("all", lib.nbpy_all, lib.nb_all)  # noqa: A001
any = _logical("any", lib.nbpy_any, lib.nb_any)  # noqa: A001


# ---- cumsum / cumprod / softmax / log_softmax ----

def _along(name: str, twin, raw, dim_required_msg: str):
    def fn(input, dim, *, dtype=None, out=None):
        _check(name, input)
        if dim is None:
            raise TypeError(f"{name}(): argument 'dim' {dim_required_msg}must be int, not NoneType")
        return _run(twin, raw, (input._h, _index(dim, name), _dtype_code(dtype)), out, name)
    fn.__name__ = fn.__qualname__ = name
    return fn


cumsum = _along("cumsum", lib.nbpy_cumsum, lib.nb_cumsum, "")
cumsum.__doc__ = "cumsum(input, dim, *, dtype=None, out=None): integers and bool give int64 unless dtype says."
cumprod = _along("cumprod", lib.nbpy_cumprod, lib.nb_cumprod, "")
cumprod.__doc__ = "cumprod(input, dim, *, dtype=None, out=None): integers and bool give int64 unless dtype says."
_softmax = _along("softmax", lib.nbpy_softmax, lib.nb_softmax, "(position 2) ")
_log_softmax = _along("log_softmax", lib.nbpy_log_softmax, lib.nb_log_softmax, "(position 2) ")


def softmax(input, dim, dtype=None, *, out=None):
    """exp(x) / sum(exp(x)) along dim; dtype casts the input first (float16/bfloat16 compute in float32)."""
    return _softmax(input, dim, dtype=dtype, out=out)


def log_softmax(input, dim, dtype=None, *, out=None):
    """x - log(sum(exp(x))) along dim; dtype casts the input first."""
    return _log_softmax(input, dim, dtype=dtype, out=out)


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """torch._softmax_backward_data: the gradient of softmax from its result, fused."""
    return _checked(lib.nbpy_softmax_backward(_check("_softmax_backward_data", grad_output)._h,
                                          _check("_softmax_backward_data", output)._h,
                                          _index(dim, "_softmax_backward_data"), _NULL)).to(input_dtype)


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """torch._log_softmax_backward_data: the gradient of log_softmax from its result, fused."""
    return _checked(lib.nbpy_log_softmax_backward(_check("_log_softmax_backward_data", grad_output)._h,
                                              _check("_log_softmax_backward_data", output)._h,
                                              _index(dim, "_log_softmax_backward_data"), _NULL)).to(input_dtype)


__all__ = [n for n in list(globals()) if not n.startswith("_") and callable(globals()[n])
           and getattr(globals()[n], "__module__", None) == __name__] + ["return_types"]
