"""torch functions that scan or select along a dim, written as compositions of nabla ops:
logcumsumexp, cummax and cummin (log2(n) doubling steps of logaddexp / an ordered max, so
early small values are not lost to the global max), kthvalue / median / nanmedian (through
sort), mode (a sort and two searches), aminmax, std_mean / var_mean, and the scatter family's value forms index_copy /
index_fill / index_reduce, masked_scatter, take / put and the select / slice / diagonal
scatters. Gradients come from the ops (cummax's through a gather at its indices, as PyTorch)."""
from __future__ import annotations

from collections import namedtuple

from ._tensor import Tensor

__all__ = ["logcumsumexp", "cummax", "cummin", "kthvalue", "median", "nanmedian", "mode", "aminmax", "std_mean", "var_mean",
           "index_copy", "index_fill", "index_reduce", "masked_scatter", "take", "put", "select_scatter",
           "slice_scatter", "diagonal_scatter"]

_cummax = namedtuple("cummax", ["values", "indices"])
_cummin = namedtuple("cummin", ["values", "indices"])
_kthvalue = namedtuple("kthvalue", ["values", "indices"])
_median = namedtuple("median", ["values", "indices"])
_nanmedian = namedtuple("nanmedian", ["values", "indices"])
_mode = namedtuple("mode", ["values", "indices"])
_aminmax = namedtuple("aminmax", ["min", "max"])


def _nb():
    import nabla
    return nabla


def _dim(dim: int, nd: int) -> int:
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _shifted(x: Tensor, dim: int, step: int, fill) -> Tensor:
    """x moved step places forward along dim, the first step places filled with fill."""
    nb = _nb()
    n = x.shape[dim]
    pad_shape = list(x.shape)
    pad_shape[dim] = min(step, n)
    pad = nb.full(pad_shape, fill, dtype=x.dtype, device=x.device)
    return nb.cat([pad, x.narrow(dim, 0, n - pad_shape[dim])], dim)


def logcumsumexp(input: Tensor, dim: int, *, out=None) -> Tensor:
    """log(cumsum(exp(input))) along dim, computed as a scan of logaddexp."""
    nb = _nb()
    if input.dim() == 0:
        result = input.clone()
    else:
        d = _dim(dim, input.dim())
        result = input if input.dtype.is_floating_point else input.to(nb.get_default_dtype())
        step = 1
        while step < input.shape[d]:
            result = nb.logaddexp(result, _shifted(result, d, step, -float("inf")))
            step *= 2
    return result if out is None else out.copy_(result)


def _cum_extreme(input: Tensor, dim: int, larger: bool, name: str):
    """(values, indices) of the running max (or min) along dim: ties and NaNs take the later index (PyTorch's
    rule), so the scan of (value, index) pairs with 'the later one unless the earlier is strictly better' is
    associative and runs in log2(n) doubling steps."""
    nb = _nb()
    if input.dim() == 0:
        return input.clone(), nb.zeros((), dtype=nb.int64, device=input.device)
    d = _dim(dim, input.dim())
    n = input.shape[d]
    with nb.no_grad():
        shape = [1] * input.dim()
        shape[d] = n
        idx = nb.arange(n, device=input.device).reshape(shape).expand(input.shape).contiguous()
        val = input.detach()
        step = 1
        while step < n:
            prev_v, prev_i = _shifted(val, d, step, 0), _shifted(idx, d, step, -1)
            floating = val.dtype.is_floating_point
            better = (prev_v > val) if larger else (prev_v < val)
            if floating:
                better = better & ~nb.isnan(val) | (nb.isnan(prev_v) & ~nb.isnan(val))
            take_prev = better & (prev_i >= 0)
            val, idx = nb.where(take_prev, prev_v, val), nb.where(take_prev, prev_i, idx)
            step *= 2
    values = input.gather(d, idx)
    return (_cummax if larger else _cummin)(values, idx)


def cummax(input: Tensor, dim: int):
    """The running maximum along dim and the index where each was reached (NaN propagates)."""
    return _cum_extreme(input, dim, True, "cummax")


def cummin(input: Tensor, dim: int):
    """The running minimum along dim and the index where each was reached (NaN propagates)."""
    return _cum_extreme(input, dim, False, "cummin")


def _sorted_pick(input: Tensor, dim: int, keepdim: bool, pick, name: str):
    """(values, indices) of the sorted position pick(sorted values, count) along dim."""
    nb = _nb()
    if input.dim() == 0:
        return input.clone(), nb.zeros((), dtype=nb.int64, device=input.device)
    d = _dim(dim, input.dim())
    if input.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    svals, sidx = input.detach().sort(d)
    pos = pick(svals, d)  # keepdim index tensor into the sorted order
    indices = sidx.gather(d, pos)
    values = input.gather(d, indices)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return values, indices


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """The k-th smallest element (1-based) along dim and its index."""
    nb = _nb()
    d = _dim(dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")

    def pick(s, d):
        shape = list(s.shape)
        shape[d] = 1
        return nb.full(shape, k - 1, dtype=nb.int64, device=s.device)
    return _kthvalue(*_sorted_pick(input, dim, keepdim, pick, "kthvalue"))


def _median_pick(ignore_nan: bool):
    def pick(s, d):
        nb = _nb()
        nans = nb.isnan(s).sum(d, keepdim=True) if s.dtype.is_floating_point else nb.zeros_like(s.narrow(d, 0, 1),
                                                                                               dtype=nb.int64)
        n = s.shape[d]
        if ignore_nan:  # the lower median of the non-NaN values (an all-NaN slice gives NaN)
            return ((n - nans - 1).clamp(min=0)) // 2
        return nb.where(nans > 0, n - nans, nb.full_like(nans, (n - 1) // 2))  # the first NaN, sorted last
    return pick


def median(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """The lower median (NaN if any element is NaN); over all elements when dim is None (value only)."""
    if dim is None:
        if input.numel() == 0:
            return _nb().full((), float("nan"), dtype=input.dtype, device=input.device)
        return _sorted_pick(input.reshape(-1), 0, False, _median_pick(False), "median")[0]
    return _median(*_sorted_pick(input, dim, keepdim, _median_pick(False), "median"))


def nanmedian(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """The lower median of the non-NaN elements."""
    if dim is None:
        if input.numel() == 0:
            return _nb().full((), float("nan"), dtype=input.dtype, device=input.device)
        return _sorted_pick(input.reshape(-1), 0, False, _median_pick(True), "nanmedian")[0]
    return _nanmedian(*_sorted_pick(input, dim, keepdim, _median_pick(True), "nanmedian"))


def _mode_pick(s: Tensor, d: int) -> Tensor:
    """The sorted position of the last copy of the most frequent value (the smallest on a tie) in s, sorted
    along d: the length of each value's run is its rightmost minus its leftmost insertion place."""
    rows = s.movedim(d, -1).contiguous()
    if rows.dtype == _nb().bool:  # the search has no bool kernel
        rows = rows.to(_nb().uint8)
    right = _nb().searchsorted(rows, rows, right=True)
    first_longest = (right - _nb().searchsorted(rows, rows)).argmax(-1, keepdim=True)
    return (right.gather(-1, first_longest) - 1).movedim(-1, d)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """The most frequent value along dim (the smallest of those that tie) and the index of its last
    occurrence (PyTorch's CPU index for all but NaN inputs); an empty input with a non-empty dim gives empty."""
    nb = _nb()
    d = _dim(dim, input.dim())
    if input.numel() == 0 and input.dim() and input.shape[d]:
        shape = [n for i, n in enumerate(input.shape) if keepdim or i != d]
        if keepdim:
            shape[d] = 1
        return _mode(nb.empty(shape, dtype=input.dtype, device=input.device),
                     nb.empty(shape, dtype=nb.int64, device=input.device))
    values, indices = _sorted_pick(input, d, keepdim, _mode_pick, "mode")
    if out is not None:
        out[0].copy_(values)
        out[1].copy_(indices)
    return _mode(values, indices)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, out=None):
    """(amin, amax) over dim, or over all elements."""
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
        return _aminmax(lo, hi)
    return _aminmax(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


def std_mean(input: Tensor, dim=None, *, correction=None, keepdim: bool = False, unbiased=None, out=None):
    """(std, mean) over dim (all elements when None)."""
    return _moment_mean(input, dim, correction, keepdim, unbiased, "std")


def var_mean(input: Tensor, dim=None, *, correction=None, keepdim: bool = False, unbiased=None, out=None):
    """(var, mean) over dim (all elements when None)."""
    return _moment_mean(input, dim, correction, keepdim, unbiased, "var")


def _moment_mean(input, dim, correction, keepdim, unbiased, which):
    if isinstance(dim, bool):  # the legacy positional unbiased
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = list(range(input.dim())) if dim is None else dim
    spread = getattr(input, which)(dims, correction=correction, keepdim=keepdim)
    return spread, input.mean(dims, keepdim=keepdim)


def _index_along(fname: str, input: Tensor, dim: int, index: Tensor, source_shape) -> Tensor:
    """index [K] expanded to source_shape (whose dim has K entries) for a scatter along dim."""
    if index.dim() > 1:
        raise IndexError(f"{fname}(): Index is supposed to be a vector")
    if index.dtype.name != "int64":
        raise RuntimeError(f"{fname}(): Expected dtype int64 for index")
    d = _dim(dim, input.dim())
    shape = [1] * max(len(source_shape), 1)
    shape[d] = -1
    idx = index.reshape(shape)
    return idx.expand(source_shape) if len(source_shape) else idx.reshape(())


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out=None) -> Tensor:
    """A copy of input with input.select(dim, index[i]) = source.select(dim, i)."""
    if input.dim() and source.dim() != input.dim():
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.dim()}), destination dimensionality "
                         f"({input.dim()})")
    d = _dim(dim, input.dim())
    n = source.shape[d] if source.dim() else 1
    if index.numel() != n:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to "
                         f"source.size(dim) ({n})")
    idx = _index_along("index_copy_", input, dim, index, tuple(source.shape))
    result = input.scatter(d, idx, source) if input.dim() else source.reshape(()).clone()
    return result if out is None else out.copy_(result)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of input with input.select(dim, index[i]) = value for each i."""
    nb = _nb()
    d = _dim(dim, input.dim())
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    shape = list(input.shape)
    if input.dim():
        shape[d] = index.numel()
    fill = value.to(input.dtype).expand(shape) if isinstance(value, Tensor) else \
        nb.full(shape, value, dtype=input.dtype, device=input.device)
    idx = _index_along("index_fill_", input, dim, index.reshape(-1), tuple(shape))
    return input.scatter(d, idx, fill) if input.dim() else fill.clone()


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True, out=None) -> Tensor:
    """input.select(dim, index[i]) reduced with source.select(dim, i) by 'prod', 'mean', 'amax' or 'amin'."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _dim(dim, input.dim())
    idx = _index_along("index_reduce_", input, dim, index, tuple(source.shape))
    result = input.scatter_reduce(d, idx, source, reduce, include_self=include_self)
    return result if out is None else out.copy_(result)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of input whose elements where mask (broadcast) is True take source's elements in order."""
    nb = _nb()
    if mask.dtype != nb.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    shape = nb.broadcast_shapes(input.shape, mask.shape)
    flat_mask = mask.expand(shape).reshape(-1)
    flat_in = input.expand(shape).reshape(-1)
    count = int(flat_mask.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count == 0:
        return flat_in.clone().reshape(shape)
    pos = (flat_mask.long().cumsum(0) - 1).clamp(min=0)
    taken = source.reshape(-1).to(input.dtype).index_select(0, pos)
    return nb.where(flat_mask, taken, flat_in).reshape(shape)


def _flat_index(fname: str, input: Tensor, index: Tensor) -> Tensor:
    n = input.numel()
    idx = index.reshape(-1).long()
    if idx.numel() and (bool((idx >= n).any()) or bool((idx < -n).any())):
        bad = int(idx[(idx >= n) | (idx < -n)][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return _nb().where(idx < 0, idx + n, idx)


def take(input: Tensor, index: Tensor) -> Tensor:
    """input's elements at the flat (row-major) indices of index, shaped as index."""
    return input.reshape(-1).index_select(0, _flat_index("take", input, index)).reshape(index.shape)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with the flat positions index set to (or, accumulate, increased by) source."""
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    idx = _flat_index("put", input, index)
    flat = input.reshape(-1)
    src = source.reshape(-1).to(input.dtype)
    result = flat.index_add(0, idx, src) if accumulate else flat.scatter(0, idx, src)
    return result.reshape(input.shape)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of input with input.select(dim, index) = src."""
    d = _dim(dim, input.dim())
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    expected = list(input.shape[:d]) + list(input.shape[d + 1:])
    if list(src.shape) != expected:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {expected}")
    nb = _nb()
    return index_copy(input, d, nb.tensor([index % n], device=input.device), src.unsqueeze(d))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """A copy of input with input[..., start:end:step (along dim), ...] = src."""
    nb = _nb()
    d = _dim(dim, input.dim())
    positions = range(input.shape[d])[slice(start, end, step)]
    expected = list(input.shape)
    expected[d] = len(positions)
    if list(src.shape) != expected:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {expected}")
    return index_copy(input, d, nb.tensor(list(positions), dtype=nb.int64, device=input.device), src)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of input with input.diagonal(offset, dim1, dim2) = src."""
    nb = _nb()
    view = input.diagonal(offset, dim1, dim2)
    if list(src.shape) != list(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    d1, d2 = _dim(dim1, input.dim()), _dim(dim2, input.dim())
    r, c = input.shape[d1], input.shape[d2]
    k = view.shape[-1]
    rows = nb.arange(k, device=input.device) + max(-offset, 0)
    cols = nb.arange(k, device=input.device) + max(offset, 0)
    # the diagonal as flat positions of the (d1, d2) plane, written through a [.., r * c] view of input
    lead = [i for i in range(input.dim()) if i not in (d1, d2)]
    moved = input.permute(*lead, d1, d2).reshape(*[input.shape[i] for i in lead], r * c)
    placed = index_copy(moved, moved.dim() - 1, rows * c + cols, src.to(input.dtype))
    back = placed.reshape(*[input.shape[i] for i in lead], r, c)
    inverse = [0] * input.dim()
    for pos, i in enumerate(lead + [d1, d2]):
        inverse[i] = pos
    return back.permute(*inverse)
