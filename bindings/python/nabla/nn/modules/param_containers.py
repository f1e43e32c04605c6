"""ParameterList and ParameterDict: parameters held by position or by key, registered as the
module's own parameters (named '0', '1', ... or by key), as PyTorch's containers."""
from __future__ import annotations

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ["ParameterList", "ParameterDict"]


def _as_parameter(value):
    return value if isinstance(value, Parameter) or not isinstance(value, Tensor) else Parameter(value)


class ParameterList(Module):
    """A list of parameters (tensors become Parameters on insertion)."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return getattr(self, str(idx % self._size))

    def __setitem__(self, idx: int, value) -> None:
        setattr(self, str(idx % self._size), _as_parameter(value))

    def __iter__(self):
        return (self[i] for i in range(self._size))

    def __iadd__(self, values):
        for v in values:
            self.append(v)
        return self

    def append(self, value) -> "ParameterList":
        new = self._size
        self._size += 1
        setattr(self, str(new), _as_parameter(value))
        return self

    def extend(self, values) -> "ParameterList":
        return self.__iadd__(values)

    def extra_repr(self) -> str:
        lines = []
        for i, p in enumerate(self):
            if isinstance(p, Tensor):
                size = "x".join(str(s) for s in p.shape)
                lines.append(f"  ({i}): {'Parameter' if isinstance(p, Parameter) else 'Tensor'} containing: "
                             f"[{p.dtype} of size {size}]")
            else:
                lines.append(f"  ({i}): Object of type: {type(p).__name__}")
        return "\n".join(lines)


class ParameterDict(Module):
    """An ordered dict of parameters (tensors become Parameters on insertion)."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def pop(self, key: str):
        v = self[key]
        del self[key]
        return v

    def update(self, parameters) -> None:
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in items:
            self[k] = v
