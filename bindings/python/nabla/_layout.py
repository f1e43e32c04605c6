"""torch.layout and torch.memory_format: how a tensor's elements lie in memory.

nabla has one layout, strided, so a memory format is only a choice of strides: channels_last
is the NCHW shape with NHWC strides, (H*W*C, 1, W*C, C). The rules are PyTorch's:
`is_contiguous(memory_format=)` ignores size-1 dims; `preserve_format` (the default of
clone, the *_like factories and to) keeps the strides of a dense, non-overlapping tensor
and otherwise takes the format the strides suggest.
"""
from __future__ import annotations

__all__ = ["layout", "strided", "memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "legacy_contiguous_format"]


class layout:
    """A tensor layout; nabla's tensors all have one, strided."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


def check_layout(value, fname: str) -> None:
    if value is not None and value is not strided:
        raise RuntimeError(f"{fname}(): nabla tensors are strided; layout={value!r} is not supported")


class memory_format:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return "torch." + self._name

    def __reduce__(self):
        return self._name  # pickles as the module-level singleton


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = contiguous_format  # the same object in PyTorch

# The dims of an NC... shape from the fastest to the slowest in each channels-last format.
_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}
_RANK = {channels_last: 4, channels_last_3d: 5}


def check(fmt, fname: str) -> memory_format:
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")
    return fmt


def _check_rank(shape, fmt: memory_format) -> None:
    if fmt in _RANK and len(shape) != _RANK[fmt]:
        raise RuntimeError(f"required rank {_RANK[fmt]} tensor to use {fmt._name} format")


def format_strides(shape, fmt: memory_format) -> tuple:
    """The strides of a dense tensor of this shape laid out in fmt (contiguous or channels-last)."""
    _check_rank(shape, fmt)
    order = _ORDER.get(fmt, tuple(range(len(shape) - 1, -1, -1)))
    strides, step = [0] * len(shape), 1
    for d in order:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def is_contiguous_as(t, fmt: memory_format) -> bool:
    """Tensor.is_contiguous(memory_format=fmt): size-1 dims may have any stride."""
    if fmt not in _ORDER:
        return t.is_contiguous()
    shape, strides = t.shape, t.stride()
    if len(shape) != _RANK[fmt]:
        return False
    expected = 1
    for d in _ORDER[fmt]:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _suggests_channels_last(shape, strides, order) -> bool:
    """PyTorch's reading of channels-last strides (ambiguous cases fall back to contiguous)."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest(t) -> memory_format:
    """The format a tensor's strides suggest: channels-last only when they clearly are."""
    for fmt, order in _ORDER.items():
        if t.ndim == len(order) and _suggests_channels_last(t.shape, t.stride(), order):
            return fmt
    return contiguous_format


def is_dense(shape, strides) -> bool:
    """Whether the elements fill a block of memory exactly once (any order of the dims)."""
    dims = sorted((s, n) for s, n in zip(strides, shape) if n != 1)
    if any(n == 0 for n in shape):
        return True
    step = 1
    for s, n in dims:
        if s != step:
            return False
        step *= n
    return True


def like_strides(t, fmt) -> tuple:
    """The strides of a new tensor made like t in fmt (None: preserve_format)."""
    if fmt is None or fmt is preserve_format:
        if is_dense(t.shape, t.stride()):
            return tuple(t.stride())
        fmt = suggest(t)
    return format_strides(t.shape, check(fmt, "empty_like"))


def copy_in(t, fmt: memory_format, fname: str):
    """A copy of t laid out in fmt (differentiable: a copy_ into new storage)."""
    check(fmt, fname)
    if fmt is preserve_format:
        return t.clone()
    return t.new_empty_strided(t.shape, format_strides(t.shape, fmt)).copy_(t)


def to_format(t, fmt: memory_format, fname: str = "contiguous"):
    """t in fmt: t itself when it already is, else a copy."""
    check(fmt, fname)
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    _check_rank(t.shape, fmt)
    return t if is_contiguous_as(t, fmt) else copy_in(t, fmt, fname)
