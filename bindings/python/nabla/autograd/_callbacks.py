"""The bridge for C callbacks into Python: payload handles and pending exceptions.

A closure handed to libnabla carries a cffi handle on a Python object; the
handle is kept alive here until the library calls nbpy_payload_release. An
exception raised inside a callback cannot cross C: it is parked for this thread
and re-raised, traceback intact, when the C call that ran the callback returns.
"""
from __future__ import annotations

import contextlib
import threading

from .._lib import error, ffi, lib
from .._lib import pending as _pending

_alive: dict = {}  # handle address -> cffi handle
_lock = threading.Lock()


def new_payload(obj):
    """A void* for obj that stays valid until the library releases it."""
    h = ffi.new_handle(obj)
    with _lock:
        _alive[int(ffi.cast("uintptr_t", h))] = h
    return h


@ffi.def_extern()
def nbpy_payload_release(payload):
    if _alive is None:  # interpreter shutdown cleared this module before the last tensor with a hook
        return
    with _lock:
        _alive.pop(int(ffi.cast("uintptr_t", payload)), None)


@contextlib.contextmanager
def retaining(retain_graph):
    """Marks the backward pass run inside as keeping saved tensors (custom Functions read it)."""
    prev, _pending.retain_graph = _pending.retain_graph, bool(retain_graph)
    try:
        yield
    finally:
        _pending.retain_graph = prev


def retains_graph() -> bool:
    """Whether the backward pass running on this thread keeps saved tensors (False outside one)."""
    return _pending.retain_graph


def park(exc: BaseException) -> int:
    """Remembers exc for the caller and reports it to C as a status."""
    if _pending.exc is None:
        _pending.exc = exc
    lib.nb_set_error(lib.NB_ERR_AUTOGRAD, f"{type(exc).__name__}: {exc}".encode("utf-8", "replace"))
    return lib.NB_ERR_AUTOGRAD


def raise_for(status: int) -> None:
    """Raises the parked Python exception if a callback failed, else the C error."""
    exc, _pending.exc = _pending.exc, None
    if exc is not None:
        raise exc
    if status:
        raise error(status)


def clear() -> None:
    _pending.exc = None


@ffi.def_extern()
def nbpy_hook_call(payload, grad, replacement):
    try:
        from .._tensor import Tensor, _from_handle
        lib.nb_tensor_retain(grad)
        result = ffi.from_handle(payload)(_from_handle(grad))
        if result is not None:
            if not isinstance(result, Tensor):
                raise TypeError(f"hook must return a Tensor or None, got {type(result).__name__}")
            lib.nb_tensor_retain(result._h)
            replacement[0] = result._h
        return lib.NB_OK
    except BaseException as exc:  # noqa: BLE001 - re-raised in the caller of backward
        return park(exc)


@ffi.def_extern()
def nbpy_post_accumulate_hook_call(payload, t):
    """payload: (hook, weak reference to the Tensor it was registered on); hook gets that same
    object while it still holds the leaf's handle, else a new one on it. As in PyTorch it may
    return None or that tensor (lambda p: p.add_(p.grad, alpha=-lr)), nothing else."""
    try:
        from .._tensor import Tensor, _from_handle
        hook, ref = ffi.from_handle(payload)
        tensor = ref()
        if tensor is None or tensor._h != t:
            lib.nb_tensor_retain(t)
            tensor = _from_handle(t)
        result = hook(tensor)
        if result is not None and result is not tensor:
            if isinstance(result, Tensor):
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        return lib.NB_OK
    except BaseException as exc:  # noqa: BLE001 - re-raised in the caller of backward
        return park(exc)


from .._lib import queued as _queue  # noqa: E402 - the queue _tensor.py checks after each backward


def queue_callback(callback) -> None:
    """Runs callback() after the current backward pass on this thread has finished and accumulated every
    gradient (torch's Variable._execution_engine.queue_callback): DistributedDataParallel waits for its
    all-reduces there. Callbacks queued by callbacks run too, in order."""
    if _queue.items is None:
        _queue.items = []
    _queue.items.append(callback)


def run_queued(ok: bool) -> None:
    """Called after a backward pass: runs the queued callbacks when it succeeded, drops them when it failed."""
    items, _queue.items = _queue.items, None
    if not ok:
        return
    while items:
        items.pop(0)()
        if _queue.items:
            items += _queue.items
            _queue.items = None
