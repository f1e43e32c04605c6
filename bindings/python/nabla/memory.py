"""Allocator statistics of the CPU caching allocator (nabla.memory.stats())."""
from __future__ import annotations

from ._lib import error, ffi, lib

_FIELDS = ("allocated_bytes", "peak_allocated_bytes", "cached_bytes", "alloc_count", "free_count",
           "system_alloc_count", "system_free_count", "live_tensors", "live_storages")


def stats(device: str = "cpu") -> dict[str, int]:
    """Counters of a device's allocator: bytes in use, peak, cached, call counts, live objects."""
    from ._device import resolve
    dev_type, dev_index = resolve(device)
    s = ffi.new("nb_memory_stats*")
    s.struct_size = ffi.sizeof("nb_memory_stats")
    status = lib.nb_memory_stats_get(dev_type, dev_index, s)
    if status:
        raise error(status)
    return {name: getattr(s, name) for name in _FIELDS}


def reset_peak(device: str = "cpu") -> None:
    from ._device import resolve
    status = lib.nb_memory_reset_peak(*resolve(device))
    if status:
        raise error(status)


def empty_cache(device: str = "cpu") -> None:
    """Returns every cached free block to the system."""
    from ._device import resolve
    status = lib.nb_memory_empty_cache(*resolve(device))
    if status:
        raise error(status)
