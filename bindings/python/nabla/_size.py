"""nabla.Size: the tuple subclass returned by Tensor.shape and Tensor.size()."""
from __future__ import annotations

import operator


class Size(tuple):
    """A tensor shape; a tuple of ints."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"nabla.Size({list(self)!r})"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


def size_args(args: tuple, fname: str) -> tuple:
    """Normalises f(2, 3) and f((2, 3)) / f([2, 3]) / f(Size) into a tuple of ints."""
    if len(args) == 1 and not hasattr(args[0], "__index__"):
        args = args[0]
        if not isinstance(args, (tuple, list)):
            try:
                args = tuple(args)
            except TypeError:
                raise TypeError(f"{fname}(): argument 'size' must be tuple of ints, "
                                f"but found {type(args).__name__}") from None
    for s in args:  # fast path: plain ints pass through untouched
        if s.__class__ is not int:
            break
    else:
        return tuple(args)
    try:
        return tuple(operator.index(s) for s in args)
    except TypeError:
        bad = next(i for i, s in enumerate(args) if not hasattr(s, "__index__"))
        raise TypeError(f"{fname}(): argument 'size' must be tuple of ints, but found element of "
                        f"type {type(args[bad]).__name__} at pos {bad}") from None
