"""How a tensor crosses a process boundary: its storage moves to shared memory
(Tensor.share_memory_) and the receiver maps the same memfd from a duplicate
of its file descriptor."""
from __future__ import annotations

import os
from multiprocessing.reduction import DupFd, ForkingPickler

from .._lib import error, lib, scratch
from .._tensor import Tensor, _checked


def shared_meta(t: Tensor) -> tuple[int, tuple]:
    """(fd, metadata) of a CPU tensor, after moving its storage to shared memory.
    The fd stays owned by the storage; rebuild_from_fd(fd, *metadata) maps it."""
    h = t._h
    if lib.nb_tensor_device_type(h) != lib.NB_CPU:
        raise RuntimeError(f"nabla.multiprocessing: cannot send a tensor on {t.device} to another process yet; "
                           "move it to the cpu first")
    status = lib.nb_tensor_share_memory_(h)
    if status:
        raise error(status)
    out = scratch.i32
    status = lib.nb_tensor_shared_fd(h, out)
    if status:
        raise error(status)
    ndim = lib.nb_tensor_ndim(h)
    shape = tuple(lib.nb_tensor_shape(h)[i] for i in range(ndim))
    strides = tuple(lib.nb_tensor_strides(h)[i] for i in range(ndim))
    meta = (lib.nb_tensor_storage_nbytes(h), shape, strides, lib.nb_tensor_storage_offset(h),
            lib.nb_tensor_dtype(h), lib.nb_tensor_is_readonly(h))
    return out[0], meta


def rebuild_from_fd(fd: int, nbytes: int, shape: tuple, strides: tuple, offset: int, dtype: int,
                    readonly: int) -> Tensor:
    """A tensor over the shared memory behind fd (the caller still owns fd)."""
    return _checked(lib.nbpy_tensor_from_shared_fd(fd, nbytes, shape, strides, len(shape), offset, dtype, readonly))


def rebuild_tensor(df, *meta) -> Tensor:
    fd = df.detach()
    try:
        return rebuild_from_fd(fd, *meta)
    finally:
        os.close(fd)


def reduce_tensor(t: Tensor):
    fd, meta = shared_meta(t)
    return rebuild_tensor, (DupFd(fd), *meta)


def init_reductions() -> None:
    ForkingPickler.register(Tensor, reduce_tensor)
