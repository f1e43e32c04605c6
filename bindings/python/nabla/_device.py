"""nabla.device: where a tensor lives ('cpu', 'cuda', 'cuda:1'), and the default device of
the factories (set_default_device, or `with nabla.device(...)`), per thread as in PyTorch."""
from __future__ import annotations

import threading

from ._lib import lib

_TYPES = {"cpu": lib.NB_CPU, "cuda": lib.NB_CUDA}


class device:
    """A device type and an optional index, like torch.device."""

    __slots__ = ("type", "index", "_code")

    def __init__(self, spec, index: int | None = None) -> None:
        if isinstance(spec, device):
            self.type, self.index, self._code = spec.type, spec.index, spec._code
            return
        if isinstance(spec, int) and not isinstance(spec, bool):  # torch.device(0) means cuda:0
            spec, index = "cuda", spec
        if not isinstance(spec, str):
            raise TypeError(f"device(): expected a string or an int, got {type(spec).__name__}")
        name, _, idx = spec.partition(":")
        if name not in _TYPES:
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {spec}")
        if idx:
            if index is not None:
                raise RuntimeError(f"device(): type (string) {spec!r} must not include an index because index was passed explicitly")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{spec}'")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index, self._code = name, index, _TYPES[name]

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    def __enter__(self) -> "device":
        """Inside the block, factories called without device= make tensors here (as PyTorch's)."""
        stack = getattr(_default, "entered", None)
        if stack is None:
            stack = _default.entered = []
        stack.append(get_default_device())
        set_default_device(self)
        return self

    def __exit__(self, *exc) -> None:
        set_default_device(_default.entered.pop())


CPU = device("cpu")


class _Default(threading.local):
    device: device | None = None  # this thread's default device (None: the CPU)


_default = _Default()


def set_default_device(dev) -> None:
    """Factories called without device= make tensors on dev from now on, on this thread
    (None: the CPU again). Like PyTorch's, it does not move existing tensors."""
    d = None if dev is None else device(dev)
    _default.device = None if d is None or d.type == "cpu" and d.index in (None, 0) else d


def get_default_device() -> device:
    """The device factories use when given none (torch.get_default_device)."""
    d = _default.device
    if d is None:
        return CPU
    if d.index is not None:
        return d
    from ._lib import ffi
    index = ffi.new("int32_t*")
    lib.nb_device_current(d._code, index)
    return device(d.type, index[0])


def resolve(spec) -> tuple[int, int]:
    """(device_type, device_index) for the C ABI; index -1 means the current one. None: the
    default device."""
    if spec is None:
        spec = _default.device
        if spec is None:
            return lib.NB_CPU, 0
    d = spec if isinstance(spec, device) else device(spec)
    return d._code, -1 if d.index is None else d.index


def from_codes(device_type: int, device_index: int) -> device:
    if device_type == lib.NB_CPU:
        return CPU
    return device("cuda", device_index)
