"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits."""
from __future__ import annotations

import numbers

from .._tensor import Tensor


def _nb():
    import nabla
    return nabla


def broadcast_shapes(*shapes) -> tuple:
    """The shape every given shape broadcasts to (RuntimeError when they do not)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n != 1 and out[i] not in (1, n):
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape. "
                                   f"Mismatch is between {list(shapes)}")
            if n != 1:
                out[i] = n
    return tuple(out)


def broadcast_all(*values) -> tuple:
    """Tensors and numbers broadcast to one shape; numbers become tensors of the tensors' (or the default) dtype."""
    nb = _nb()
    tensors = [v for v in values if isinstance(v, Tensor)]
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, nabla.Tensor or objects "
                         "implementing __torch_function__.")
    dtype = tensors[0].dtype if tensors else nb.get_default_dtype()
    device = tensors[0].device if tensors else None
    values = [v if isinstance(v, Tensor) else nb.tensor(float(v), dtype=dtype, device=device) for v in values]
    shape = broadcast_shapes(*(v.shape for v in values))
    return tuple(v.expand(shape) for v in values)


def sum_rightmost(value, dim: int):
    """value summed over its `dim` rightmost dims."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def clamp_probs(probs):
    nb = _nb()
    eps = nb.finfo(probs.dtype).eps
    return probs.clamp(eps, 1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    nb = _nb()
    p = clamp_probs(probs)
    return nb.log(p) - nb.log1p(-p) if is_binary else nb.log(p)


def logits_to_probs(logits, is_binary: bool = False):
    nb = _nb()
    return nb.sigmoid(logits) if is_binary else nb.softmax(logits, -1)


def diagonal_last(m):
    """The diagonals of a batch of square matrices [..., n, n] -> [..., n]."""
    nb = _nb()
    return (m * nb.eye(m.shape[-1], dtype=m.dtype, device=m.device)).sum(-1)


class lazy_property:
    """A property computed once per instance on first access (probs from logits, ...)."""

    def __init__(self, fn) -> None:
        self.fn = fn
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.fn.__name__] = value
        return value
