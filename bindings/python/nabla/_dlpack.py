"""Zero-copy exchange: the DLPack protocol (Tensor.__dlpack__, nabla.from_dlpack)
and NumPy (nabla.from_numpy, Tensor.numpy, np.asarray(t)).

Both directions share memory: the exported struct holds a reference to the
tensor, an imported tensor holds the producer's struct and calls its deleter
when nabla's last reference goes (from whichever thread that is)."""
from __future__ import annotations

import enum

import numpy as np

from . import _capsule, _dtype
from ._lib import error, ffi, lib
from ._tensor import Tensor, _new_object

_CPU, _CUDA, _CUDA_HOST = lib.NB_CPU, lib.NB_CUDA, lib.NB_CUDA_HOST
_export, _consume, _wrap_buffer, _tensor_buffer = (_capsule.export, _capsule.consume, _capsule.wrap_buffer,
                                                   _capsule.tensor_buffer)
_address = lib.nbpy_address
_asarray = np.asarray
_cast = ffi.cast
_MAX_VERSION = (1, 1)  # the DLPack version nabla reads
_handle_type = ffi.typeof("nb_tensor*")


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (nabla's device codes are the same numbers)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _export_failed() -> BaseException:
    """The array API's BufferError when the tensor cannot be exported as asked."""
    exc = error(lib.nb_last_error_status())
    if exc.status in (lib.NB_ERR_INVALID_ARGUMENT, lib.NB_ERR_DEVICE, lib.NB_ERR_DTYPE):
        buffer_error = BufferError(str(exc))
        buffer_error.status = exc.status
        return buffer_error
    return exc


def _check_stream(stream, device_type: int) -> None:
    """The array API's stream rules. For CUDA: None and 1 mean the legacy default
    stream, 2 the per-thread default stream, -1 "do not synchronize", a larger
    integer a cudaStream_t; 0 is ambiguous and refused. Other devices take None only."""
    if stream is None:
        return
    if type(stream) is not int:
        raise TypeError(f"stream must be ``int`` or ``None``, got {type(stream).__name__}")
    if device_type != _CUDA:
        raise ValueError(f"stream must be None for a tensor on {ffi.string(lib.nb_device_type_name(device_type)).decode()}, "
                         f"got {stream}")
    if stream == 0:
        raise ValueError("stream=0 is ambiguous under the DLPack protocol; pass 1 for the legacy default stream, "
                         "2 for the per-thread default stream or a stream pointer")
    if stream < -1:
        raise ValueError(f"stream must be -1, 1, 2 or a stream pointer, got {stream}")


def _order_consumer_stream(stream, device_index: int) -> None:
    """The producer's half of the DLPack handshake: work the consumer queues on
    `stream` waits for the work nabla queued so far on its current stream of the
    tensor's device (an event, so the host does not wait). Nothing to do for -1
    or when the consumer's stream is nabla's current stream."""
    if stream is None or stream == -1:
        return
    from . import cuda
    native = 0 if stream == 1 else stream  # 1: the legacy default stream (NULL); 2 is cudaStreamPerThread
    with cuda.device(device_index):
        current = cuda.current_stream()
        if current.cuda_stream == native:
            return
        event = cuda.Event()
        event.record(current)
        cuda.ExternalStream(native).wait_event(event)


def __dlpack__(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of this tensor: "dltensor_versioned" when the consumer
    passes max_version >= (1, 0), else the legacy "dltensor". Shares memory unless
    copy=True or dl_device names another device (then the struct says IS_COPIED)."""
    if getattr(self, "requires_grad", False):  # autograd: PyTorch's rule
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    h = self._h
    if stream is not None:
        _check_stream(stream, lib.nb_tensor_device_type(h))
        _order_consumer_stream(stream, lib.nb_tensor_device_index(h))
    versioned = max_version is not None and max_version[0] >= 1
    if dl_device is None:
        device_type, device_index = -1, 0
    else:
        device_type, device_index = int(dl_device[0]), int(dl_device[1])
        if device_type not in (_CPU, _CUDA, _CUDA_HOST):
            raise BufferError(f"__dlpack__: nabla cannot export to DLPack device {tuple(dl_device)}")
    capsule = _export(_address(h), versioned, device_type, device_index,
                      -1 if copy is None else 1 if copy else 0)
    if capsule is None:
        raise _export_failed()
    return capsule


_DEVICE_TYPES = {int(m): m for m in DLDeviceType}  # calling the IntEnum costs more than the rest of the call


def __dlpack_device__(self: Tensor) -> tuple:
    h = self._h
    code = lib.nb_tensor_device_type(h)
    return _DEVICE_TYPES.get(code) or DLDeviceType(code), lib.nb_tensor_device_index(h)


def _from_capsule(capsule) -> Tensor:
    addr = _consume(capsule)
    if not addr:
        raise error(lib.nb_last_error_status())
    return _tensor_at(addr)


def _tensor_at(addr: int) -> Tensor:
    """The Tensor owning the reference of the handle at addr."""
    t = _new_object(Tensor)
    t._h = _cast(_handle_type, addr)
    t._shape = None
    return t


def from_dlpack(ext_tensor, *, device=None, copy=None) -> Tensor:
    """A tensor sharing the memory of any DLPack producer (an object with
    __dlpack__, such as a NumPy array or a PyTorch, CuPy or JAX tensor) or of a
    legacy "dltensor" capsule. device / copy are passed on to the producer."""
    dlpack = getattr(ext_tensor, "__dlpack__", None)
    if dlpack is None:
        return _from_capsule(ext_tensor)
    kwargs = {}
    producer_device = ext_tensor.__dlpack_device__()
    if producer_device[0] == _CUDA:  # the producer orders its work before nabla's current stream
        from . import cuda
        kwargs["stream"] = 1  # the legacy default stream, also when nabla cannot reach the device
        if cuda.is_available() and 0 <= int(producer_device[1]) < cuda.device_count():
            with cuda.device(int(producer_device[1])):
                kwargs["stream"] = cuda.current_stream().cuda_stream or 1
    if device is not None:
        from ._device import resolve
        dt, di = resolve(device)
        kwargs["dl_device"] = (dt, max(di, 0))
    if copy is not None:
        kwargs["copy"] = bool(copy)
    try:
        capsule = dlpack(max_version=(1, 1), **kwargs)
    except TypeError:
        if device is not None or copy is not None:
            raise
        capsule = dlpack(**kwargs)  # a producer older than DLPack 1.0
    return _from_capsule(capsule)


# ---- NumPy ----

def from_numpy(ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array, which stays alive as long as
    the tensor does. A non-writable array gives a read-only tensor."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    addr = _wrap_buffer(ndarray)  # writable, a dtype nabla has, strides >= 0: through the buffer protocol
    if addr is not None:
        return _tensor_at(addr)
    from ._dtype import from_numpy_dtype
    dt = ndarray.dtype
    if not dt.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. "
                         "Conversion between byte orders is currently not supported.")
    from_numpy_dtype(dt)  # PyTorch's TypeError for an unsupported dtype
    for s in ndarray.strides:
        if s < 0:
            raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                             "strides are not currently supported. (You can probably work around this by making a "
                             "copy of your array  with array.copy().) ")
        if s % dt.itemsize:
            raise ValueError("given numpy array strides not a multiple of the element byte size. "
                             "Copy the numpy array to reallocate the memory.")
    return _from_capsule(ndarray.__dlpack__(max_version=_MAX_VERSION))


def numpy(self: Tensor, *, force: bool = False) -> np.ndarray:
    """A NumPy array sharing this CPU tensor's memory (strides included); it keeps
    the tensor alive. force=True detaches and copies a tensor from another device first."""
    if force:  # PyTorch: numpy(force=True) is detach().cpu().numpy()
        self = self.detach()
    elif self.requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    h = self._h
    view = _tensor_buffer(_address(h))  # a CPU tensor NumPy has a dtype for: the buffer protocol
    if view is not None:
        return _asarray(view)
    if lib.nb_tensor_dtype(h) == lib.NB_BF16:
        raise TypeError("Got unsupported ScalarType BFloat16")
    if lib.nb_tensor_device_type(h) != _CPU:
        if not force:
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. "
                            "Use Tensor.cpu() to copy the tensor to host memory first.")
        self = self.cpu()
    return np.from_dlpack(self)


def __array__(self: Tensor, dtype=None, copy=None) -> np.ndarray:
    if copy is False:
        if lib.nb_tensor_device_type(self._h) != _CPU or (dtype is not None and np.dtype(dtype) != _numpy_dtype(self)):
            raise ValueError("Unable to avoid copy while creating an array as requested.")
    arr = numpy(self)
    if dtype is not None and np.dtype(dtype) != arr.dtype:
        return arr.astype(dtype)
    return arr.copy() if copy else arr


def _numpy_dtype(t: Tensor):
    d = t.dtype._numpy
    return None if d is None else np.dtype(d)


def share_memory_(self: Tensor) -> Tensor:
    """Moves the storage (and so every view of it) into shared memory, where other
    processes can map it; a no-op when already there and for CUDA tensors."""
    h = self._h
    if lib.nb_tensor_device_type(h) == _CUDA:
        return self
    status = lib.nb_tensor_share_memory_(h)
    if status:
        raise error(status)
    return self


def is_shared(self: Tensor) -> bool:
    """True when the storage is in shared memory (always for CUDA tensors, as in PyTorch)."""
    h = self._h
    return lib.nb_tensor_device_type(h) == _CUDA or lib.nb_tensor_is_shared(h) == 1
