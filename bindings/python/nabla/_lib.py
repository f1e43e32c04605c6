"""The compiled cffi module and the error bridge from nb_status to Python exceptions."""
from __future__ import annotations

import threading


def _preload_openblas() -> None:
    """Loads OpenBLAS from the scipy-openblas32 package wherever it is installed, so
    libnabla finds it even when the two packages live in different site directories
    (a venv over system packages, a user install); the rpath covers the usual layout."""
    try:
        import ctypes
        import os

        import scipy_openblas32
        ctypes.CDLL(os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so"), mode=ctypes.RTLD_GLOBAL)
    except (ImportError, OSError):
        pass


_preload_openblas()

from ._C import ffi, lib  # noqa: E402

ABI_MAJOR = 0

# Long-running C work releases the GIL through these hooks; short calls keep it.
lib.nb_set_blocking_hooks(lib.nbpy_release_gil, lib.nbpy_acquire_gil)

if lib.nb_version() // 10000 != ABI_MAJOR:  # a binding refuses a different major
    raise ImportError(
        f"nabla: libnabla {ffi.string(lib.nb_version_string()).decode()} has ABI major "
        f"{lib.nb_version() // 10000}, this package expects {ABI_MAJOR}")


class OutOfMemoryError(RuntimeError):
    """Raised when an allocation fails (PyTorch's torch.OutOfMemoryError)."""


class LinAlgError(RuntimeError):
    """Raised when a linear-algebra routine fails on its input: a singular or not positive-definite
    matrix, no convergence (PyTorch's torch.linalg.LinAlgError)."""


class AcceleratorError(RuntimeError):
    """A CUDA runtime call failed (PyTorch's torch.AcceleratorError, torch.cuda.AcceleratorError)."""


class FatalError(Exception):
    """PyTorch's torch.FatalError: an unrecoverable error of the runtime."""


class DeviceUnavailableError(AssertionError, RuntimeError):
    """A request for a device this machine or build cannot serve (.cuda() without a GPU). PyTorch raises
    AssertionError ('Torch not compiled with CUDA enabled') or RuntimeError (no driver) for it; this is both."""


# nb_status -> the exception PyTorch raises for the same mistake.
_EXCEPTIONS = {
    lib.NB_ERR_INVALID_ARGUMENT: RuntimeError,
    lib.NB_ERR_SHAPE: RuntimeError,
    lib.NB_ERR_DTYPE: RuntimeError,
    lib.NB_ERR_DEVICE: RuntimeError,
    lib.NB_ERR_INDEX: IndexError,
    lib.NB_ERR_OUT_OF_MEMORY: OutOfMemoryError,
    lib.NB_ERR_NOT_IMPLEMENTED: NotImplementedError,
    lib.NB_ERR_AUTOGRAD: RuntimeError,
    lib.NB_ERR_BACKEND: RuntimeError,
    lib.NB_ERR_ABI_VERSION: RuntimeError,
    lib.NB_ERR_INTERNAL: RuntimeError,
    lib.NB_ERR_LINALG: LinAlgError,
}


class _Pending(threading.local):
    """An exception raised in Python inside a C call (a hook, a warning turned into an
    error): it cannot cross C, so it waits here for the call to return."""
    exc: BaseException | None = None
    retain_graph: bool = False  # the backward pass running on this thread keeps saved tensors


pending = _Pending()


class _Queued(threading.local):
    """Callbacks queued during this thread's backward pass (autograd/_callbacks.queue_callback)."""
    items: list | None = None


queued = _Queued()


def error(status: int) -> BaseException:
    """The exception for a failed call, carrying the C message and `.status`; a Python
    exception raised inside the call (see `pending`) instead, when there is one."""
    exc, pending.exc = pending.exc, None
    if exc is not None:
        return exc
    message = ffi.string(lib.nb_last_error_message()).decode("utf-8", "replace")
    cls = _EXCEPTIONS.get(status, RuntimeError)
    if status == lib.NB_ERR_DEVICE and "not available" in message:
        cls = DeviceUnavailableError
    elif status == lib.NB_ERR_BACKEND and "(cudaError" in message:  # the CUDA plugin's "what: text (cudaErrorName)"
        cls = AcceleratorError
    exc = cls(message)
    exc.status = status
    exc.status_name = ffi.string(lib.nb_status_name(status)).decode()
    return exc


class _Scratch(threading.local):
    """Per-thread out-parameters: cffi drops the GIL during calls, so a shared
    buffer could be overwritten by another thread between write and read."""

    def __init__(self) -> None:
        self.out = ffi.new("nb_tensor*[1]")
        self.f64 = ffi.new("double[1]")
        self.i64 = ffi.new("int64_t[1]")
        self.i32 = ffi.new("int32_t[1]")


scratch = _Scratch()
