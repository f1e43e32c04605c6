"""nabla.cuda: CUDA availability (streams, events and memory statistics grow here)."""
from __future__ import annotations

from ._lib import error, ffi, lib, scratch


def device_count() -> int:
    """Number of usable CUDA devices (0 without a driver, a device or the plugin)."""
    out = scratch.i32
    status = lib.nb_device_count(lib.NB_CUDA, out)
    if status:
        raise error(status)
    return out[0]


def is_available() -> bool:
    return device_count() > 0


def unavailable_reason() -> str:
    """Why CUDA cannot be used here ('' when it can)."""
    return ffi.string(lib.nb_device_unavailable_reason(lib.NB_CUDA)).decode()
