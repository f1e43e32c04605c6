"""GradBucket: what a DistributedDataParallel communication hook receives (torch.distributed.GradBucket)."""
from __future__ import annotations

import enum


class BuiltinCommHookType(enum.Enum):
    """The hooks DistributedDataParallel.register_builtin_comm_hook takes."""
    ALLREDUCE = 1
    FP16_COMPRESS = 2


class GradBucket:
    """One bucket of gradients: a flat buffer (the gradients of its parameters, one after the other) that the
    hook reduces, with the parameters it holds and its place in the order DDP reduces buckets."""

    __slots__ = ("_index", "_buffer", "_params", "_offsets", "_last")

    def __init__(self, index: int, buffer, params, offsets, is_last: bool) -> None:
        self._index, self._buffer, self._params, self._offsets, self._last = index, buffer, params, offsets, is_last

    def index(self) -> int:
        """The bucket's index; bucket 0 holds the gradients computed first (the last layers)."""
        return self._index

    def buffer(self):
        """The flattened gradients (1-D)."""
        return self._buffer

    def set_buffer(self, buffer) -> None:
        """Replaces the buffer (a compression wrapper hands the hook it wraps a compressed copy)."""
        self._buffer = buffer

    def gradients(self) -> list:
        """Views of the buffer shaped as each parameter's gradient."""
        return [self._buffer[o:o + p.numel()].view(p.shape) for p, o in zip(self._params, self._offsets)]

    def parameters(self) -> list:
        """The parameters whose gradients the bucket holds, in bucket order."""
        return list(self._params)

    def is_last(self) -> bool:
        """True for the last bucket reduced in an iteration (the first layers of the model)."""
        return self._last

    def __repr__(self) -> str:
        return f"GradBucket(index={self._index}, numel={self._buffer.numel()}, parameters={len(self._params)})"
