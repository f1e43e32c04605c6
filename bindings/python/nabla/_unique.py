"""unique (flattened or along a dim) and unique_consecutive, as PyTorch's: the
values, then the inverse indices and counts when asked for."""
from __future__ import annotations

import operator

from ._lib import error, ffi, lib
from ._tensor import Tensor, _from_handle

_NULL = ffi.NULL


def _results(call, return_inverse: bool, return_counts: bool):
    """call(values, inverse, counts) fills the out-slots asked for; PyTorch's tuple or the values."""
    outs = ffi.new("nb_tensor*[3]")
    status = call(outs, outs + 1 if return_inverse else _NULL, outs + 2 if return_counts else _NULL)
    if status:
        raise error(status)
    values = _from_handle(outs[0])
    if not (return_inverse or return_counts):
        return values
    result = [values]
    if return_inverse:
        result.append(_from_handle(outs[1]))
    if return_counts:
        result.append(_from_handle(outs[2]))
    return tuple(result)


def _checked_dim(fname: str, input, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        return None
    try:
        return operator.index(dim)
    except TypeError:
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(dim).__name__}") from None


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
           dim=None):
    """The sorted distinct values of the flattened input (dim=None) or its distinct slices along dim, with the
    inverse mapping and counts on request."""
    d = _checked_dim("unique", input, dim)
    s = int(bool(sorted))
    if d is None:
        return _results(lambda v, i, c: lib.nb_unique(input._h, s, v, i, c), return_inverse, return_counts)
    return _results(lambda v, i, c: lib.nb_unique_dim(input._h, d, s, v, i, c), return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """input with every run of equal consecutive elements (of the flattened input, or slices along dim) kept
    once, with the inverse mapping and the run lengths on request."""
    d = _checked_dim("unique_consecutive", input, dim)
    return _results(lambda v, i, c: lib.nb_unique_consecutive(input._h, 0 if d is None else d, d is not None, v, i, c),
                    return_inverse, return_counts)


__all__ = ["unique", "unique_consecutive"]
