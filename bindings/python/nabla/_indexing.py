"""Basic indexing: ints, slices with positive steps, None, ... (all views)."""
from __future__ import annotations

import operator

from ._lib import lib
from ._tensor import Tensor, _call

_INT64_MAX = (1 << 63) - 1


def _is_int(x) -> bool:
    return not isinstance(x, bool) and hasattr(x, "__index__") and not isinstance(x, Tensor)


def getitem(t: Tensor, index) -> Tensor:
    """t[index] for basic indices; tensor and list indices arrive with the op library."""
    items = index if isinstance(index, tuple) else (index,)
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    ndim = t.ndim
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    h = t._h
    result = None
    dim = 0
    for item in items:
        src = h if result is None else result._h
        if item is None:
            result = _call(lib.nb_tensor_unsqueeze, src, dim)
            dim += 1
        elif item is Ellipsis:
            dim += ndim - consumed
            continue
        elif isinstance(item, slice):
            step = 1 if item.step is None else operator.index(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = 0 if item.start is None else operator.index(item.start)
            stop = _INT64_MAX if item.stop is None else operator.index(item.stop)
            result = _call(lib.nb_tensor_slice, src, dim, start, stop, step)
            dim += 1
        elif _is_int(item):
            result = _call(lib.nb_tensor_select, src, dim, operator.index(item))
        else:
            raise NotImplementedError(
                f"indexing with {type(item).__name__} is not supported yet: only integers, slices (`:`), "
                "ellipsis (`...`) and None are valid indices")
    if result is None:  # t[...] or t[()]: a view of the whole tensor
        result = _call(lib.nb_tensor_view, h, t.shape, ndim)
    return result
