"""nabla.autocast: torch.autocast over the core's per-thread autocast state (nb_autocast_*).

The casting itself happens in the C op entry points, by each op's policy in the ABI
manifest, so a C program or another binding gets the same behaviour; this class only
sets the state for a region and restores it."""
from __future__ import annotations

import functools
import warnings

from .._dtype import _by_code
from .._lib import error, lib

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "set_autocast_enabled",
           "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting"]

_DEVICES = {"cpu": lib.NB_CPU, "cuda": lib.NB_CUDA}


def _code(device_type: str) -> int:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    code = _DEVICES.get(device_type)
    if code is None:
        raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {device_type}")
    return code


def is_autocast_available(device_type: str) -> bool:
    return device_type in _DEVICES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for a device type on this thread (no argument: CUDA, as PyTorch)."""
    return bool(lib.nb_autocast_is_enabled(_code(device_type or "cuda")))


def set_autocast_enabled(device_type, enabled=None) -> None:
    if enabled is None:  # PyTorch's old form set_autocast_enabled(enabled), for CUDA
        device_type, enabled = "cuda", device_type
    status = lib.nb_autocast_set_enabled(_code(device_type), int(bool(enabled)))
    if status:
        raise error(status)


def get_autocast_dtype(device_type: str):
    return _by_code(lib.nb_autocast_get_dtype(_code(device_type)))


def set_autocast_dtype(device_type: str, dtype) -> None:
    status = lib.nb_autocast_set_dtype(_code(device_type), dtype.code)
    if status:
        raise error(status)


def is_autocast_cache_enabled() -> bool:
    return bool(lib.nb_autocast_is_cache_enabled())


def set_autocast_cache_enabled(enabled: bool) -> None:
    lib.nb_autocast_set_cache_enabled(int(bool(enabled)))


def clear_autocast_cache() -> None:
    lib.nb_autocast_clear_cache()


def autocast_increment_nesting() -> int:
    return lib.nb_autocast_increment_nesting()


def autocast_decrement_nesting() -> int:
    return lib.nb_autocast_decrement_nesting()


class autocast:
    """Runs the ops of a region (or of a decorated function) in mixed precision: matmul,
    linear, convolutions and attention in `dtype`, the numerically sensitive ops in float32,
    by PyTorch's per-device op lists. Nests; the outermost region's exit drops the cache of
    cast weights."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        from .. import bfloat16, cuda, float16
        self.device = device_type
        code = _code(device_type)
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        enabled = bool(enabled)
        if code == lib.NB_CPU and enabled and self.fast_dtype not in (bfloat16, float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
            enabled = False
        if code == lib.NB_CUDA and enabled:
            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
                enabled = False
            elif self.fast_dtype not in (bfloat16, float16):
                raise RuntimeError("In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
                                   "CUDA Autocast only supports dtypes of torch.float16, torch.bfloat16 currently.")
        self._enabled = enabled

    def __enter__(self) -> "autocast":
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        self.prev_cache_enabled = is_autocast_cache_enabled()
        set_autocast_enabled(self.device, self._enabled)
        if self._enabled:
            set_autocast_dtype(self.device, self.fast_dtype)
        set_autocast_cache_enabled(self._cache_enabled)
        autocast_increment_nesting()
        return self

    def __exit__(self, *exc) -> bool:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with autocast(self.device, dtype=self.fast_dtype, enabled=self._enabled,
                          cache_enabled=self._cache_enabled):
                return func(*args, **kwargs)
        return decorate_autocast


class _DeviceAutocast(autocast):
    _device = "cpu"
    _default = "bfloat16"

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        import nabla
        super().__init__(self._device, dtype=dtype if dtype is not None else getattr(nabla, self._default),
                         enabled=enabled, cache_enabled=cache_enabled)


class cpu_autocast(_DeviceAutocast):
    """torch.cpu.amp.autocast: autocast("cpu", dtype=bfloat16 by default)."""
    _device, _default = "cpu", "bfloat16"


class cuda_autocast(_DeviceAutocast):
    """torch.cuda.amp.autocast: autocast("cuda", dtype=float16 by default)."""
    _device, _default = "cuda", "float16"
