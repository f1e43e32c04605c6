"""Module-level forms of Tensor methods (nabla.reshape(t, shape), ...)."""
from __future__ import annotations

from ._tensor import Tensor


def _check(fname: str, t) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
    return t


def reshape(input: Tensor, shape) -> Tensor:
    return _check("reshape", input).reshape(shape)


def permute(input: Tensor, dims) -> Tensor:
    return _check("permute", input).permute(dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _check("transpose", input).transpose(dim0, dim1)


swapaxes = swapdims = transpose


def squeeze(input: Tensor, dim=None) -> Tensor:
    return _check("squeeze", input).squeeze(dim)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return _check("unsqueeze", input).unsqueeze(dim)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return _check("flatten", input).flatten(start_dim, end_dim)


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    return _check("unflatten", input).unflatten(dim, sizes)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return _check("narrow", input).narrow(dim, start, length)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    return _check("select", input).select(dim, index)


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _check("as_strided", input).as_strided(size, stride, storage_offset)


def clone(input: Tensor) -> Tensor:
    return _check("clone", input).clone()


def numel(input: Tensor) -> int:
    return _check("numel", input).numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return _check("is_floating_point", input).is_floating_point()
