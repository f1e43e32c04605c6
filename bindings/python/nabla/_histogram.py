"""torch.histogram and torch.histogramdd as compositions of nabla ops: each coordinate finds its bin by a
binary search of that dim's edges (nb_searchsorted; PyTorch's kernel settles on the same bin), the
flattened bin numbers are counted by index_add, and density divides as PyTorch does (by the total, then
by the bin widths dim by dim). Edges are linspace over range (the data's range by default, [0, 1] for no
data; an empty range widens by 0.5 each way) or the given 1-d tensors."""
from __future__ import annotations

import math
import numbers
from collections import namedtuple

from ._build_extra import _torch_name, searchsorted
from ._tensor import Tensor

__all__ = ["histogram", "histogramdd"]

_histogram = namedtuple("histogram", ["hist", "bin_edges"])
_histogramdd = namedtuple("histogramdd", ["hist", "bin_edges"])
_PREFIX = "torch.histogramdd: "


def _nb():
    import nabla
    return nabla


def _meta_name(dtype) -> str:
    """The C type name PyTorch prints for a dtype in these messages (float, double, c10::Half, ...)."""
    name = _torch_name(dtype)
    return name.lower() if name in ("Float", "Double") else f"c10::{name}"


def _checked_tensor_bins(bins: list, dtype) -> list:
    for d, b in enumerate(bins):
        if b.dim() != 1:
            raise RuntimeError(_PREFIX + f"bins tensor should have one dimension, but got {b.dim()} dimensions in "
                               f"the bins tensor for dimension {d}")
        if b.dtype != dtype:
            raise RuntimeError(_PREFIX + "input tensor and bins tensors should have the same dtype, but got input "
                               f"with dtype {_meta_name(dtype)} and bins for dimension {d} with dtype "
                               f"{_meta_name(b.dtype)}")
    return bins


def _linear_edges(points: Tensor, counts: list[int], range) -> list:  # noqa: A002 - PyTorch's name
    """counts[d] + 1 evenly spaced edges per dim d over range (pairs, flattened) or the data's range."""
    nb = _nb()
    dims = len(counts)
    for d, n in enumerate(counts):
        if n <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for dimension {d}")
    if range is not None:
        if len(range) != 2 * dims:
            raise RuntimeError(_PREFIX + f"for a {dims}-dimensional histogram range should have {2 * dims} "
                               f"elements, but got {len(range)}")
        bounds = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins_range(dims)]
    elif points.shape[0] == 0:
        bounds = [(0.0, 1.0)] * dims
    else:
        lo, hi = points.amin(0).tolist(), points.amax(0).tolist()
        bounds = list(zip(lo, hi))
    edges = []
    for d, ((lo, hi), n) in enumerate(zip(bounds, counts)):
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(_PREFIX + f"dimension {d}'s range [{lo:g}, {hi:g}] is not finite")
        if lo > hi:
            raise RuntimeError(_PREFIX + f"min should not exceed max, but got min {lo:g} max {hi:g} for dimension {d}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(nb.linspace(lo, hi, n + 1, dtype=points.dtype, device=points.device))
    return edges


builtins_range = range


def _bin_numbers(points: Tensor, edges: list) -> tuple[Tensor, int]:
    """(the flattened bin number of each point [N, D] (row-major over the bins) or the number of bins for a
    point outside some dim's edges, the number of bins)."""
    nb = _nb()
    flat = nb.zeros(points.shape[0], dtype=nb.int64, device=points.device)
    outside = nb.zeros(points.shape[0], dtype=nb.bool, device=points.device)
    total = 1
    for d, e in enumerate(edges):
        x, n = points[:, d].contiguous(), e.shape[0] - 1
        outside = outside | (x < e[0]) | (x > e[-1]) | (n < 1)
        pos = searchsorted(e[1:-1].contiguous(), x, right=True) if n > 1 else nb.zeros_like(x, dtype=nb.int64)
        flat = flat * max(n, 1) + pos
        total *= max(n, 0)
    return nb.where(outside, nb.full_like(flat, total), flat), total


def histogramdd(input: Tensor, bins, *, range=None, weight: Tensor | None = None,  # noqa: A002 - PyTorch's name
                density: bool = False, out=None):
    """(hist, bin_edges) of the points input [..., D]: hist has one dim per coordinate with the counts (or the
    summed weight [...]) of the points in each box; bins is a count, a count per dim or the edges per dim.
    Points outside the edges are dropped; a dim's last edge belongs to its last bin."""
    nb = _nb()
    if input.dim() < 2:
        raise RuntimeError(_PREFIX + "input tensor should have at least 2 dimensions")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_torch_name(input.dtype)}'")
    dims = input.shape[-1]
    points = input.detach().reshape(-1, dims)
    bins = [bins] * dims if isinstance(bins, numbers.Integral) else list(bins)
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if bins and isinstance(bins[0], Tensor):
        edges = _checked_tensor_bins(bins, input.dtype)
    else:
        edges = _linear_edges(points, [int(b) for b in bins], range)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError(_PREFIX + "if weight tensor is provided it should have the same shape as the input "
                               "tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(_PREFIX + "if weight tensor is provided, input tensor and weight tensor should have "
                               f"the same dtype, but got input({_meta_name(input.dtype)}), and "
                               f"weight({_meta_name(weight.dtype)})")
    flat, total = _bin_numbers(points, edges)
    w = nb.ones(points.shape[0], dtype=input.dtype, device=input.device) if weight is None else weight.reshape(-1)
    hist = nb.zeros(total + 1, dtype=input.dtype, device=input.device).index_add(0, flat, w.detach())[:total]
    hist = hist.reshape([max(e.shape[0] - 1, 0) for e in edges])
    if density:
        hist = hist / hist.sum().item()
        for d, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = -1
            hist = hist / e.diff().reshape(shape)
    return _histogramdd(hist, tuple(edges))


def histogram(input: Tensor, bins, *, range=None, weight: Tensor | None = None,  # noqa: A002 - PyTorch's name
              density: bool = False, out=None):
    """(hist, bin_edges): the counts (or summed weight) of input's elements in bins equal bins over range or
    between the increasing edges of a 1-d tensor; histogramdd of the elements as 1-d points."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_torch_name(input.dtype)}'")
    w = None if weight is None else weight.reshape(-1)
    hist, edges = histogramdd(input.reshape(-1, 1), [bins], range=range, weight=w, density=density)
    return _histogram(hist, edges[0])
