"""Indexing. Basic indices (ints, slices with positive steps, None, ...) give
views on a fast path; tensors, lists, arrays and bools (advanced indices) go
through nb_index / nb_index_put, after the basic items have been applied as
views, as PyTorch does (so ints never count as advanced indices)."""
from __future__ import annotations

import operator

from ._lib import error, ffi, lib
from ._tensor import Tensor, _call, _checked

_select = lib.nbpy_tensor_select

_INT64_MAX = (1 << 63) - 1
_FULL = slice(None)


def _is_int(x) -> bool:
    if isinstance(x, bool) or not hasattr(x, "__index__") or isinstance(x, Tensor):
        return False
    # NumPy arrays define __index__ too: only 0-dim integer ones are ints
    return getattr(x, "ndim", 0) == 0 and getattr(getattr(x, "dtype", None), "kind", "i") != "b"


def tensor_getitem(self: Tensor, index) -> Tensor:
    """Tensor.__getitem__: t[int] goes straight to select, the rest through getitem."""
    if index.__class__ is int:
        return _checked(_select(self._h, 0, index))
    return getitem(self, index)


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
    if consumed > ndim and not any(_is_advanced(item) for item in items):  # a 0-dim mask consumes no dim
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
        elif _is_advanced(item):
            return _advanced_getitem(t, items)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(item).__name__})")
    if result is t:  # t[...], t[()], t[:]: a new view of the whole tensor
        shape = t.shape
        result = _call(lib.nbpy_tensor_view, t._h, shape, len(shape))
    return result


# ---- advanced indexing ----

def _is_advanced(item) -> bool:
    return isinstance(item, (Tensor, list, tuple, bool)) or (hasattr(item, "__array__") and not _is_int(item))


def _index_tensor(item, device=None) -> Tensor:
    """An index item as a tensor: bool/uint8 masks and int64/int32 indices stay as they are; lists,
    arrays and bools become tensors on `device` (the indexed tensor's)."""
    if isinstance(item, Tensor):
        return item
    t = _host_index_tensor(item)
    return t if device is None or device.type == "cpu" else t.to(device)


def _host_index_tensor(item) -> Tensor:
    from ._factory import tensor
    if isinstance(item, bool):
        return tensor(item)
    import numpy as np
    try:
        arr = np.asarray(item)
    except ValueError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                         "valid indices") from None
    if arr.dtype.kind == "b":
        return tensor(arr)
    if arr.dtype.kind in "iu" or arr.size == 0:
        return tensor(arr.astype(np.int64))
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _is_mask(t: Tensor) -> bool:
    return t.dtype.code in (lib.NB_BOOL, lib.NB_U8)


def _advanced_view(t: Tensor, items: tuple):
    """(view, entries): the basic items applied as views, and one entry per remaining leading dim of the
    view: None for a full slice, else an index tensor (a mask covers as many dims as it has)."""
    norm, consumed, ellipses = [], 0, 0
    for item in items:
        if item is None:
            pass
        elif item is Ellipsis:
            ellipses += 1
        elif item.__class__ is slice:
            consumed += 1
        elif _is_int(item):
            item = operator.index(item)
            consumed += 1
        elif _is_advanced(item):
            item = _index_tensor(item, t.device)
            consumed += item.ndim if _is_mask(item) else 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(item).__name__})")
        norm.append(item)
    ndim = lib.nb_tensor_ndim(t._h)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    view, dim, entries = t, 0, []
    for item in norm:
        if item is Ellipsis:
            entries += [None] * (ndim - consumed)
            dim += ndim - consumed
        elif item is None:
            view = _call(lib.nbpy_tensor_unsqueeze, view._h, dim)
            entries.append(None)
            dim += 1
        elif item.__class__ is int:
            view = _call(lib.nbpy_tensor_select, view._h, dim, item)
        elif item.__class__ is slice:
            if item != _FULL:
                step = 1 if item.step is None else operator.index(item.step)
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                start = 0 if item.start is None else operator.index(item.start)
                stop = _INT64_MAX if item.stop is None else operator.index(item.stop)
                view = _call(lib.nbpy_tensor_slice, view._h, dim, start, stop, step)
            entries.append(None)
            dim += 1
        else:
            entries.append(item)
            dim += item.ndim if _is_mask(item) else 1
    while entries and entries[-1] is None:
        entries.pop()
    return view, entries


def _entries(entries: list):
    return ffi.new("nb_tensor*[]", [ffi.NULL if e is None else e._h for e in entries])


def _leading_mask(view: Tensor, entries: list):
    """The mask, viewed with trailing size-1 dims to broadcast over view, when the index is one bool
    mask over exactly the leading dims of view (PyTorch's masked_select / masked_fill_ shortcut)."""
    if len(entries) != 1 or entries[0].dtype.code != lib.NB_BOOL:
        return None
    mask = entries[0]
    if mask.device != view.device:  # a host mask of a device tensor goes through index / index_put
        return None
    k = mask.ndim
    if k == 0 or tuple(mask.shape) != tuple(view.shape)[:k]:
        return None
    return mask.view(tuple(mask.shape) + (1,) * (view.ndim - k)) if view.ndim > k else mask


def _advanced_getitem(t: Tensor, items: tuple) -> Tensor:
    view, entries = _advanced_view(t, items)
    if not entries:
        return view if view is not t else _call(lib.nbpy_tensor_view, t._h, t.shape, len(t.shape))
    mask = _leading_mask(view, entries)
    if mask is not None:
        r = _call(lib.nbpy_masked_select, view._h, mask._h)
        rest = tuple(view.shape)[entries[0].ndim:]
        return r.view((-1,) + rest) if rest else r
    return _call(lib.nbpy_index, view._h, _entries(entries), len(entries))


def _advanced_setitem(t: Tensor, items: tuple, value) -> None:
    view, entries = _advanced_view(t, items)
    dtype = view.dtype
    if isinstance(value, Tensor):
        v = value if value.dtype is dtype else value.to(dtype)
    else:
        from ._factory import _scalar_or_data
        v = _scalar_or_data(value, dtype)
        if v.ndim and view.device.type != "cpu":
            v = v.to(view.device)
    while v.ndim and v.shape[0] == 1:  # leading size-1 dims of the value never matter (PyTorch drops them)
        v = v.squeeze(0)
    if not entries:
        view.copy_(v)
        return
    if v.ndim == 0:
        mask = _leading_mask(view, entries)
        if mask is not None:  # a fill needs no coordinates
            status = lib.nb_masked_fill(view._h, mask._h, v._h, view._h, ffi.NULL)
            if status:
                raise error(status)
            return
    status = lib.nb_index_put(view._h, _entries(entries), len(entries), v._h, 0, view._h, ffi.NULL)
    if status:
        raise error(status)


def setitem(t: Tensor, index, value) -> None:
    """t[index] = value: a copy into a view for basic indices, index_put for advanced ones."""
    items = index if index.__class__ is tuple else (index,)
    for item in items:
        c = item.__class__
        if c is int or c is slice or item is None or item is Ellipsis or _is_int(item):
            continue
        if _is_advanced(item):
            _advanced_setitem(t, items, value)
            return
    target = t if index is Ellipsis else getitem(t, index)
    target.copy_(value)
