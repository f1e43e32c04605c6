"""PyTorch's torch.utils.dlpack names: from_dlpack and to_dlpack (a legacy capsule)."""
from __future__ import annotations

from .._dlpack import from_dlpack

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A legacy "dltensor" capsule sharing the tensor's memory (consume it once)."""
    return tensor.__dlpack__()
