"""nabla.finfo / nabla.iinfo: the numeric limits of a dtype, with PyTorch's fields and repr."""
from __future__ import annotations

import numpy as np

from . import _dtype

# bfloat16 has no NumPy type: its limits follow from 8 exponent and 7 mantissa bits.
_BF16 = dict(bits=16, eps=2.0 ** -7, max=float(np.float32(3.3895313892515355e38)), tiny=2.0 ** -126, resolution=0.01)


class finfo:
    """finfo(dtype=default dtype): bits, eps, max, min, tiny (= smallest_normal) and resolution of a float dtype."""

    def __init__(self, type=None) -> None:  # noqa: A002 - PyTorch's parameter name
        d = _dtype.get_default_dtype() if type is None else _dtype.check(type)
        if not d.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            f"'torch.finfo' (got {d!r})")
        if d is _dtype.bfloat16:
            f = _BF16
            self.bits, self.eps, self.max, self.tiny, self.resolution = (f["bits"], f["eps"], f["max"], f["tiny"],
                                                                         f["resolution"])
        else:
            info = np.finfo(d._numpy)
            self.bits, self.eps, self.max = int(info.bits), float(info.eps), float(info.max)
            self.tiny, self.resolution = float(info.smallest_normal), 10.0 ** -int(info.precision)
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))


class iinfo:
    """iinfo(dtype): bits, min and max of an integer dtype."""

    def __init__(self, type) -> None:  # noqa: A002 - PyTorch's parameter name
        d = _dtype.check(type)
        if d is _dtype.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.is_floating_point:
            raise TypeError(f"torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            f"'torch.iinfo' (got {d!r})")
        info = np.iinfo(d._numpy)
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), int(info.max), d.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))
