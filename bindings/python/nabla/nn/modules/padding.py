"""The padding modules (Zero/Constant/Reflection/Replication/CircularPad 1d, 2d, 3d) over F.pad."""
from __future__ import annotations

import numbers

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [f"{kind}Pad{n}d" for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular")
           for n in (1, 2, 3)]


class _PadNd(Module):
    """Pads the last n dims by `padding` (an int for every side, or PyTorch's (left, right, top, ...) tuple)."""

    mode = "constant"
    n = 1

    def __init__(self, padding, value: float = 0.0) -> None:
        super().__init__()
        if isinstance(padding, numbers.Integral):
            padding = (padding,) * (2 * self.n)
        if len(padding) != 2 * self.n:
            raise ValueError(f"{type(self).__name__}: expected {2 * self.n} padding values, got {len(padding)}")
        self.padding = tuple(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        if type(self).__name__.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _make(kind: str, mode: str, n: int):
    def init(self, padding, value: float = 0.0) -> None:
        _PadNd.__init__(self, padding, value)

    def init_no_value(self, padding) -> None:
        _PadNd.__init__(self, padding)

    namespace = {"mode": mode, "n": n, "__init__": init if kind == "Constant" else init_no_value,
                 "__doc__": f"Pads the last {n} dim(s) with {mode} padding."}
    return type(f"{kind}Pad{n}d", (_PadNd,), namespace)


for _kind, _mode in (("Zero", "constant"), ("Constant", "constant"), ("Reflection", "reflect"),
                     ("Replication", "replicate"), ("Circular", "circular")):
    for _n in (1, 2, 3):
        _cls = _make(_kind, _mode, _n)
        _cls.__module__ = __name__
        globals()[_cls.__name__] = _cls
