"""torch.cuda's allocator controls and statistics beyond the basic counters (in cuda.py):
nested statistics, accumulated-counter resets, the deprecated *_cached names, raw blocks
from the caching allocator, the memory fraction, and the pinned host memory pool's counters.

Without a usable GPU each call returns what PyTorch's does ({} or an empty OrderedDict) or,
where PyTorch raises, raises DeviceUnavailableError (an AssertionError, as PyTorch's CPU build
raises, and a RuntimeError, as its CUDA build on a machine without a GPU does).
Two controls are recorded, not acted on: caching_allocator_enable (nabla's cache stays on) and
set_per_process_memory_fraction (the allocator has no limit to set)."""
from __future__ import annotations

import collections
import contextlib
import warnings

from ._cuda_names import SUBJECT_NAMES
from ._lib import lib
from .cuda import (_accumulated, _check_status, _reset_accumulated, _device_index, _raw_stats,
                   _require, _stats_key, current_device, current_stream, max_memory_reserved,
                   memory_reserved, memory_stats, reset_peak_memory_stats)

__all__ = list(SUBJECT_NAMES["_cuda_memory"])


def _nest(flat: dict) -> dict:
    """{'a.b.c': 1} -> {'a': {'b': {'c': 1}}}: the nested form of PyTorch's flat statistics."""
    out: dict = {}
    for key, value in flat.items():
        *path, last = key.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def memory_stats_as_nested_dict(device=None) -> dict:
    """memory_stats() as nested dicts ({} without CUDA)."""
    return _nest(memory_stats(device))


def reset_accumulated_memory_stats(device=None) -> None:
    """Zeroes the counters that only grow: allocations and frees, device allocations and frees, retries, OOMs."""
    _reset_accumulated(_raw_stats(device), _stats_key(device))


def memory_cached(device=None) -> int:
    """Deprecated; see memory_reserved()."""
    warnings.warn("`nabla.cuda.memory_cached` has been renamed to `nabla.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """Deprecated; see max_memory_reserved()."""
    warnings.warn("`nabla.cuda.max_memory_cached` has been renamed to `nabla.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_max_memory_cached(device=None) -> None:
    """Deprecated; resets every peak counter, as reset_peak_memory_stats()."""
    warnings.warn("nabla.cuda.reset_max_memory_cached now calls nabla.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


# ---- raw blocks: a uint8 tensor per block keeps it allocated until caching_allocator_delete ----

_raw_blocks: dict = {}


def caching_allocator_alloc(size, device=None, stream=None) -> int:
    """The address of size bytes of device memory from nabla's caching allocator, allocated for stream
    (a Stream or a cudaStream_t as an int; None: the device's current stream). 0 for size 0."""
    from . import cuda, empty, uint8
    idx = current_device() if device is None else _device_index(device)
    if stream is None:
        stream = current_stream(idx)
    elif isinstance(stream, int) and not isinstance(stream, bool):
        stream = cuda.ExternalStream(stream, idx)
    elif not isinstance(stream, cuda.Stream):
        raise TypeError("Invalid type for stream argument, must be `torch.cuda.Stream` or `int` representing a "
                        "pointer to an existing stream")
    if size == 0:
        return 0
    with cuda.device(idx), cuda.stream(stream):
        block = empty(int(size), dtype=uint8, device=f"cuda:{idx}")
    ptr = block.data_ptr()
    _raw_blocks[ptr] = block
    return ptr


def caching_allocator_delete(mem_ptr: int) -> None:
    """Gives back a block caching_allocator_alloc handed out (0 is ignored); the allocator reuses it once the
    work queued on its stream is done."""
    _require()
    if mem_ptr and _raw_blocks.pop(mem_ptr, None) is None:
        raise RuntimeError(f"caching_allocator_delete: invalid device pointer: {mem_ptr:#x}")


_allocator = {"enabled": True, "fraction": {}}  # what the two recorded-only controls were last set to


def caching_allocator_enable(value: bool = True) -> None:
    """Records whether the caching allocator should be on. nabla's stays on: it has no uncached mode."""
    _allocator["enabled"] = bool(value)


@contextlib.contextmanager
def caching_allocator_disabled():
    """caching_allocator_enable(False) for the block (recorded only, as caching_allocator_enable); needs CUDA."""
    _require()
    previous = _allocator["enabled"]
    caching_allocator_enable(False)
    try:
        yield
    finally:
        caching_allocator_enable(previous)


def get_allocator_backend() -> str:
    """'native': nabla's own caching allocator (there is no cudaMallocAsync backend)."""
    _require()
    return "native"


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Records a cap on this process's share of a device's memory (0 to 1). nabla's allocator does not
    enforce it; get_per_process_memory_fraction reads it back."""
    _require()
    idx = current_device() if device is None else _device_index(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _allocator["fraction"][idx] = fraction


def get_per_process_memory_fraction(device=None) -> float:
    """The fraction set_per_process_memory_fraction recorded for a device (1.0 by default)."""
    _require()
    idx = current_device() if device is None else _device_index(device)
    return _allocator["fraction"].get(idx, 1.0)


# ---- the pinned host memory pool ----

def host_memory_stats_as_nested_dict() -> dict:
    """The pinned host memory pool's counters under PyTorch's names ({} without CUDA): allocations and
    allocated_bytes count what was page-locked, active_requests and active_bytes what is in use."""
    s = _raw_stats(None, lib.NB_CUDA_HOST)
    if s is None:
        return {}
    acc = _accumulated(s, "host")
    return {"active_bytes": {"current": s.allocated_bytes, "peak": s.peak_allocated_bytes},
            "active_requests": {"current": s.alloc_count - s.free_count, "allocated": acc["alloc_count"],
                                "freed": acc["free_count"]},
            "allocated_bytes": {"current": s.reserved_bytes, "peak": s.peak_reserved_bytes},
            "allocations": {"current": s.segment_count, "allocated": acc["system_alloc_count"],
                            "freed": acc["system_free_count"]},
            "num_host_alloc": acc["system_alloc_count"], "num_host_free": acc["system_free_count"]}


def host_memory_stats() -> collections.OrderedDict:
    """host_memory_stats_as_nested_dict() flattened to 'a.b' keys, sorted."""
    flat = []

    def walk(prefix: str, node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else key, value)
        else:
            flat.append((prefix, node))

    walk("", host_memory_stats_as_nested_dict())
    return collections.OrderedDict(sorted(flat))


def reset_accumulated_host_memory_stats() -> None:
    _reset_accumulated(_raw_stats(None, lib.NB_CUDA_HOST), "host")


def reset_peak_host_memory_stats() -> None:
    _require()
    _check_status(lib.nb_memory_reset_peak(lib.NB_CUDA_HOST, 0))


def ipc_collect() -> None:
    """Frees memory other processes have stopped using through CUDA IPC: nabla shares no CUDA memory
    between processes, so there is never any (raises without CUDA, as PyTorch)."""
    _require()
