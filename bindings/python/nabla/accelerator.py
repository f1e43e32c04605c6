"""nabla.accelerator: torch.accelerator, the device-neutral way PyTorch's examples pick
their device (`torch.accelerator.current_accelerator() if torch.accelerator.is_available()
else "cpu"`). nabla's one accelerator is CUDA; without a usable GPU, is_available() is
False, current_accelerator() None, and the calls that need one raise RuntimeError."""
from __future__ import annotations

from . import cuda as _cuda
from ._device import device as _device_cls

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count", "device_index",
           "is_available", "set_device_idx", "set_device_index", "synchronize", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "current_stream", "set_stream", "get_memory_info"]


def _require() -> None:
    if not _cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available. (" +
                           _cuda.unavailable_reason() + ")")


def is_available() -> bool:
    """Whether an accelerator (a usable CUDA device) is present."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False):
    """device('cuda') when nabla can use a GPU, else None."""
    return _device_cls("cuda") if _cuda.is_available() else None


def device_count() -> int:
    return _cuda.device_count()


def current_device_index() -> int:
    _require()
    return _cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device) -> None:
    _require()
    _cuda.set_device(device)


set_device_idx = set_device_index


class device_index:
    """Context manager that makes an accelerator device current (None: no change)."""

    def __init__(self, device) -> None:
        self.idx = device
        self.prev = None

    def __enter__(self):
        if self.idx is not None:
            _require()
            self.prev = _cuda.current_device()
            _cuda.set_device(self.idx)
        return self

    def __exit__(self, *exc) -> bool:
        if self.prev is not None:
            _cuda.set_device(self.prev)
        return False


def synchronize(device=None) -> None:
    """Waits for the accelerator's queued work to finish."""
    _require()
    _cuda.synchronize(device)


def current_stream(device=None):
    _require()
    return _cuda.current_stream(device)


def set_stream(stream) -> None:
    _require()
    _cuda.set_stream(stream)


def empty_cache() -> None:
    _cuda.empty_cache()


def memory_stats(device=None) -> dict:
    return _cuda.memory_stats(device)


def memory_allocated(device=None) -> int:
    return _cuda.memory_allocated(device)


def max_memory_allocated(device=None) -> int:
    return _cuda.max_memory_allocated(device)


def memory_reserved(device=None) -> int:
    return _cuda.memory_reserved(device)


def max_memory_reserved(device=None) -> int:
    return _cuda.max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    _cuda.reset_peak_memory_stats(device)


def get_memory_info(device=None) -> tuple[int, int]:
    _require()
    return _cuda.mem_get_info(device)
