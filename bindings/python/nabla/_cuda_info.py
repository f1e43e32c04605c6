"""torch.cuda's build and device information, CUDA error types, the synchronisation debug
mode and the names of features nabla does not have (green contexts, library handles).

Without a usable GPU: get_arch_list() is [], get_gencode_flags() '' and is_tf32_supported()
False, as in PyTorch; the calls PyTorch's CPU build refuses raise DeviceUnavailableError (an
AssertionError, as that build raises, and a RuntimeError, as its CUDA build does on a machine
without a GPU). CudaError, check_error and cudaStatus need no device."""
from __future__ import annotations

import enum

from ._cuda_names import SUBJECT_NAMES
from ._lib import DeviceUnavailableError  # noqa: F401 - what the calls below raise without a GPU
from .cuda import _device_index, _require, current_device, device_count, get_device_properties, is_available

__all__ = list(SUBJECT_NAMES["_cuda_info"])


def get_arch_list() -> list[str]:
    """The architectures nabla's CUDA kernels are built for: SASS for each ('sm_80') and PTX of the
    lowest ('compute_80') for newer GPUs, as the plugin reports them. [] without CUDA."""
    if not is_available():
        return []
    archs = sorted(int(a) for a in get_device_properties(current_device()).gpu_archs.split(",") if a)
    return [f"sm_{a}" for a in archs] + [f"compute_{archs[0]}"] if archs else []


def get_gencode_flags() -> str:
    """get_arch_list() as nvcc -gencode flags ('' without CUDA)."""
    return " ".join(f"-gencode compute=compute_{arch},code={kind}_{arch}"
                    for kind, arch in (a.split("_") for a in get_arch_list()))


def is_tf32_supported() -> bool:
    """Whether the current device has TF32 tensor cores (compute capability 8.0 or later); False without CUDA."""
    from .cuda import is_bf16_supported
    return is_bf16_supported(including_emulation=False)


def can_device_access_peer(device, peer_device) -> bool:
    """Whether device can read peer_device's memory directly. Always False: nabla enables no peer access,
    so copies between devices go through the host."""
    _require()
    idx, peer = _device_index(device), _device_index(peer_device)
    idx = current_device() if idx < 0 else idx
    if not 0 <= idx < device_count():
        raise AssertionError("Invalid device id")
    if not 0 <= peer < device_count():
        raise AssertionError("Invalid peer device id")
    return False


# ---- CUDA runtime errors ----

_ERROR_STRINGS = {  # cudaGetErrorString for the codes a program most often meets
    0: "no error", 1: "invalid argument", 2: "out of memory", 3: "initialization error", 4: "driver shutting down",
    35: "CUDA driver version is insufficient for CUDA runtime version", 100: "no CUDA-capable device is detected",
    101: "invalid device ordinal", 209: "no kernel image is available for execution on the device",
    400: "invalid resource handle", 600: "device not ready", 700: "an illegal memory access was encountered",
    701: "too many resources requested for launch", 710: "device-side assert triggered",
    719: "unspecified launch failure", 999: "unknown error"}


class _CudaRuntime:
    """What cudart() returns: the few CUDA runtime entries PyTorch programs call through it. The profiler
    range calls succeed without effect (nabla's plugin keeps the CUDA runtime to itself)."""

    class cudaError(enum.IntEnum):
        success = 0

    @staticmethod
    def cudaGetErrorString(code) -> str:
        return _ERROR_STRINGS.get(int(code), "unrecognized error code")

    @staticmethod
    def cudaProfilerStart() -> int:
        return 0

    @staticmethod
    def cudaProfilerStop() -> int:
        return 0


def cudart() -> type:
    """The CUDA runtime entries (see _CudaRuntime); raises without CUDA."""
    _require()
    return _CudaRuntime


class CudaError(RuntimeError):
    """A failed CUDA runtime call: '<cudaGetErrorString> (<code>)'."""

    def __init__(self, code: int) -> None:
        super().__init__(f"{_CudaRuntime.cudaGetErrorString(code)} ({code})")


def check_error(res: int) -> None:
    """Raises CudaError unless res is cudaSuccess (0)."""
    if res != _CudaRuntime.cudaError.success:
        raise CudaError(res)


class cudaStatus:
    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


class DeferredCudaCallError(Exception):
    """A CUDA call queued before initialisation failed when CUDA started (PyTorch's lazy-init error)."""


def current_blas_handle():
    """PyTorch's cublasHandle_t for extensions; nabla's cuBLAS use is private to its CUDA plugin."""
    _require()
    raise RuntimeError("current_blas_handle: nabla's cuBLAS handles are private to its CUDA plugin "
                       "(cuBLAS is optional there and loaded at run time)")


def current_solver_handle():
    """PyTorch's cusolverDnHandle_t; nabla does not use cuSOLVER."""
    _require()
    raise RuntimeError("current_solver_handle: nabla does not use cuSOLVER")


def get_stream_from_external(data_ptr: int, device=None):
    """A Stream over a cudaStream_t made outside nabla (nabla never destroys it)."""
    from .cuda import ExternalStream
    _require()
    return ExternalStream(data_ptr, device)


# ---- debugging ----

_SYNC_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode) -> None:
    """0/'default': quiet; 1/'warn': a UserWarning; 2/'error': RuntimeError, at each call that makes the host
    wait for a GPU: Tensor.item(), Tensor.cpu() (so tolist() and numpy(force=True)) and Stream.synchronize()
    on CUDA. nabla.cuda.synchronize(), an explicit wait, is not reported."""
    from . import _tensor
    _require()
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = _SYNC_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected one of 0,1, or 2")
    _tensor._sync_debug = int(debug_mode)


def get_sync_debug_mode() -> int:
    from . import _tensor
    _require()
    return _tensor._sync_debug


def is_current_stream_capturing() -> bool:
    """False: nabla has no CUDA graph capture (raises without CUDA, as PyTorch's CPU build)."""
    _require()
    return False


class _Compatible:
    """The hardware compute capabilities that run code built for one capability: up to the end of its
    major version, less the embedded parts that run only their own code."""

    def __init__(self, start: int, exclude: set | None = None, only: set | None = None) -> None:
        self.start, self.exclude, self.only = start, exclude or set(), only

    def __contains__(self, cc: int) -> bool:
        if self.only is not None:
            return cc in self.only
        return cc not in self.exclude and cc // 10 == self.start // 10 and cc >= self.start

    def __str__(self) -> str:
        def name(cc: int) -> str:
            return f"{cc // 10}.{cc % 10}"
        if self.only is not None:
            return "{" + ", ".join(name(c) for c in sorted(self.only)) + "}"
        text = f">={name(self.start)},<{self.start // 10 + 1}.0"
        return text + (" except {" + ", ".join(name(c) for c in sorted(self.exclude)) + "}" if self.exclude else "")


# code compute capability -> the devices that run it (NVIDIA's compatibility rules, as PyTorch's table)
DEVICE_REQUIREMENT = {50: _Compatible(50, {53}), 52: _Compatible(52, {53}), 53: _Compatible(53, only={53}),
                      60: _Compatible(60, {62}), 61: _Compatible(61, {62}), 62: _Compatible(62, only={62}),
                      70: _Compatible(70, {72}), 72: _Compatible(72, only={72}), 75: _Compatible(75),
                      80: _Compatible(80, {87}), 86: _Compatible(86, {87}), 87: _Compatible(87, only={87}),
                      89: _Compatible(89), 90: _Compatible(90), 100: _Compatible(100, {101}),
                      101: _Compatible(101, only={101, 110}), 103: _Compatible(103), 110: _Compatible(110),
                      120: _Compatible(120), 121: _Compatible(121)}


class GreenContext:
    """CUDA green contexts (a share of a device's SMs): nabla does not support them, so create() raises
    RuntimeError, as PyTorch's builds without them do."""

    @staticmethod
    def create(*, num_sms: int | None = None, workqueue_scope: str | None = None,
               workqueue_concurrency_limit: int | None = None, device_id: int | None = None):
        raise RuntimeError("nabla does not support CUDA green contexts")
