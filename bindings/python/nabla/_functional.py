"""Module-level forms of Tensor methods (nabla.reshape(t, shape), ...)."""
from __future__ import annotations

from . import _dtype
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


def _combine(higher: _dtype.dtype | None, lower: _dtype.dtype | None) -> _dtype.dtype | None:
    """PyTorch's combine_categories: a lower-priority operand counts only when of a higher category."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher is _dtype.bool_ or lower.is_floating_point:
        return _dtype.promote_types(higher, lower)
    return higher


def result_type(tensor1, tensor2) -> _dtype.dtype:
    """The dtype an arithmetic op on the two (tensors or Python numbers) gives: tensors with dims
    first, then 0-dim tensors, then numbers, each of a later rank counting only if of a higher
    category (bool < integer < floating), as PyTorch's type promotion."""
    ranks: list[_dtype.dtype | None] = [None, None, None]  # dim tensors, 0-dim tensors, Python numbers
    for x in (tensor1, tensor2):
        if isinstance(x, Tensor):
            rank, d = (0 if x.dim() else 1), x.dtype
        elif isinstance(x, bool):
            rank, d = 2, _dtype.bool_
        elif isinstance(x, int):
            rank, d = 2, _dtype.int64
        elif isinstance(x, float):
            rank, d = 2, _dtype.get_default_dtype()
        else:
            raise TypeError(f"result_type(): expected a Tensor or a Python number, got {type(x).__name__}")
        ranks[rank] = d if ranks[rank] is None else _dtype.promote_types(ranks[rank], d)
    return _combine(ranks[0], _combine(ranks[1], ranks[2]))
