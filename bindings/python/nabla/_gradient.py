"""torch.gradient: the derivative of a sampled function along some dims by central differences inside and
one-sided differences of first or second order at the edges, with uniform spacings or with the sample
coordinates given per dim. PyTorch's formulas, op for op, so float32 results agree to the bit and the
gradients come from the ops."""
from __future__ import annotations

import numbers

from ._tensor import Tensor

__all__ = ["gradient"]


def _nb():
    import nabla
    return nabla


def _dims(input: Tensor, dim) -> list[int]:
    nd = input.dim()
    if dim is None:
        return list(range(nd))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    if nd == 0 and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    wrapped = [input._wrap_dim(d) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def _spacings(spacing, dims: list[int], given_dim: bool, nd: int) -> list:
    """One spacing per dim: a Python number, or a 1-d tensor of coordinates."""
    if isinstance(spacing, Tensor) and spacing.dim() == 0:
        spacing = spacing.item()
    if isinstance(spacing, numbers.Number):
        return [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if given_dim:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {nd}', since dim argument was not given, but got a list of length "
                           f"{len(spacing)}")
    for s in spacing:
        if isinstance(s, Tensor) and s.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {s.dim()} dimensions!")
    return spacing


def _uniform(x: Tensor, d: int, h, edge_order: int) -> Tensor:
    """Samples h apart along d."""
    s = x.narrow
    n = x.shape[d]
    center = (s(d, 2, n - 2) - s(d, 0, n - 2)) / h
    if edge_order == 1:
        first = (s(d, 1, 1) - s(d, 0, 1)) / h
        last = (s(d, n - 1, 1) - s(d, n - 2, 1)) / h
    else:
        first = (-1.5 * s(d, 0, 1) + 2 * s(d, 1, 1) - 0.5 * s(d, 2, 1)) / h
        last = (0.5 * s(d, n - 3, 1) - 2 * s(d, n - 2, 1) + 1.5 * s(d, n - 1, 1)) / h
    return _nb().cat([first, center / 2, last], d)


def _coordinates(x: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:
    """Samples at coords (1-d, one per entry along d): the second-order formulas for uneven steps."""
    s = x.narrow
    n = x.shape[d]
    shape = [1] * x.dim()
    shape[d] = -1
    dx = coords.diff()
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * s(d, 0, n - 2) + b * s(d, 1, n - 2) + c * s(d, 2, n - 2)
    if edge_order == 1:
        first = (s(d, 1, 1) - s(d, 0, 1)) / dx[0]
        last = (s(d, n - 1, 1) - s(d, n - 2, 1)) / dx[-1]
    else:
        h0, h1, g1, g0 = dx[0], dx[1], dx[-2], dx[-1]
        first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * s(d, 0, 1) + (h0 + h1) / (h0 * h1) * s(d, 1, 1)
                 + (-h0) / (h1 * (h0 + h1)) * s(d, 2, 1))
        last = (g0 / (g1 * (g0 + g1)) * s(d, n - 3, 1) - (g0 + g1) / (g0 * g1) * s(d, n - 2, 1)
                + (2 * g0 + g1) / (g0 * (g0 + g1)) * s(d, n - 1, 1))
    return _nb().cat([first, center, last], d)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """The estimated derivative of input along each dim (all dims by default), one tensor per dim, each of
    input's shape. spacing: a number, one number per dim, or one 1-d coordinate tensor per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    spacings = _spacings(spacing, dims, dim is not None, input.dim())
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return tuple(_coordinates(input, d, h, edge_order) if isinstance(h, Tensor) else _uniform(input, d, h, edge_order)
                 for d, h in zip(dims, spacings))
