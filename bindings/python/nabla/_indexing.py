"""Basic indexing: ints, slices with positive steps, None, ... (all views)."""
from __future__ import annotations

import operator

from ._lib import lib
from ._tensor import Tensor, _call

_INT64_MAX = (1 << 63) - 1
_FULL = slice(None)


def _is_int(x) -> bool:
    return not isinstance(x, bool) and hasattr(x, "__index__") and not isinstance(x, Tensor)


def getitem(t: Tensor, index) -> Tensor:
    """t[index] for basic indices; tensor and list indices arrive with the op library."""
    items = index if index.__class__ is tuple else (index,)
    consumed, ellipses = 0, 0
    for item in items:
        if item is Ellipsis:
            ellipses += 1
        elif item is not None:
            consumed += 1
    ndim = lib.nb_tensor_ndim(t._h)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    result = t
    dim = 0
    for item in items:
        if item.__class__ is int:
            result = _call(lib.nbpy_tensor_select, result._h, dim, item)
        elif item.__class__ is slice:
            if item == _FULL:  # ':' keeps the dim as it is
                dim += 1
                continue
            step = 1 if item.step is None else operator.index(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = 0 if item.start is None else operator.index(item.start)
            stop = _INT64_MAX if item.stop is None else operator.index(item.stop)
            result = _call(lib.nbpy_tensor_slice, result._h, dim, start, stop, step)
            dim += 1
        elif item is None:
            result = _call(lib.nbpy_tensor_unsqueeze, result._h, dim)
            dim += 1
        elif item is Ellipsis:
            dim += ndim - consumed
        elif _is_int(item):
            result = _call(lib.nbpy_tensor_select, result._h, dim, operator.index(item))
        elif isinstance(item, (Tensor, list)) or hasattr(item, "__array__"):
            raise NotImplementedError(
                f"indexing with a {type(item).__name__} (advanced indexing) is not supported yet: only integers, "
                "slices (`:`), ellipsis (`...`) and None are valid indices")
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(item).__name__})")
    if result is t:  # t[...], t[()], t[:]: a new view of the whole tensor
        shape = t.shape
        result = _call(lib.nbpy_tensor_view, t._h, shape, len(shape))
    return result
