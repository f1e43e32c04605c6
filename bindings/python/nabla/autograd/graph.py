"""autograd.graph: Python views of the C graph (a tensor's grad_fn), hook handles and
saved-tensor hooks (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks)."""
from __future__ import annotations

import contextlib
import threading
import weakref

from .._lib import error, ffi, lib, scratch
from .._tensor import _from_handle
from . import _callbacks


class Node:
    """A node of the autograd graph: the backward of one recorded op."""

    __slots__ = ("_n", "__weakref__")

    def __init__(self) -> None:
        raise TypeError("Node objects are created by the autograd engine (see Tensor.grad_fn)")

    @staticmethod
    def _own(handle) -> "Node":
        node = object.__new__(Node)
        node._n = handle
        return node

    def __del__(self, _release=lib.nb_node_release):
        _release(self._n)

    def name(self) -> str:
        return ffi.string(lib.nb_node_name(self._n)).decode()

    @property
    def next_functions(self) -> tuple:
        """((node or None, output index), ...) for each input of the op."""
        out, nr = ffi.new("nb_node*[1]"), ffi.new("int32_t[1]")
        result = []
        for i in range(lib.nb_node_num_next(self._n)):
            status = lib.nb_node_next(self._n, i, out, nr)
            if status:
                raise error(status)
            result.append((Node._own(out[0]) if out[0] else None, nr[0]))
        return tuple(result)

    def _key(self) -> int:
        return int(ffi.cast("uintptr_t", self._n))

    def __eq__(self, other) -> bool:
        return isinstance(other, Node) and self._key() == other._key()

    def __hash__(self) -> int:
        return self._key()

    def __repr__(self) -> str:
        return f"<{self.name()} object at {self._key():#x}>"


class RemovableHandle:
    """Returned by Tensor.register_hook; remove() takes the hook off."""

    __slots__ = ("_tensor_ref", "id")

    def __init__(self, tensor, hook_id: int) -> None:
        self._tensor_ref = weakref.ref(tensor)
        self.id = hook_id

    def remove(self) -> None:
        t = self._tensor_ref()
        if t is not None:
            lib.nb_tensor_remove_hook(t._h, self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


# ---- Tensor.grad_fn and the gradient hooks (bound in _tensor_methods.py) ----

def tensor_grad_fn(self):
    """Tensor.grad_fn: the Node that made this tensor, None for a leaf or a tensor without history."""
    out = ffi.new("nb_node*[1]")
    status = lib.nb_tensor_grad_fn(self._h, out)
    if status:
        raise error(status)
    if not out[0]:
        return None
    return Node._own(out[0])


def tensor_register_hook(self, hook) -> RemovableHandle:
    """hook(grad) -> Tensor or None runs when this tensor's gradient is computed."""
    if not callable(hook):
        raise TypeError(f"register_hook expects a callable, got {type(hook).__name__}")
    payload = _callbacks.new_payload(hook)
    status = lib.nb_tensor_register_hook(self._h, lib.nbpy_hook_call, payload, lib.nbpy_payload_release,
                                         scratch.i64)
    if status:
        _callbacks.nbpy_payload_release(payload)
        raise error(status)
    return RemovableHandle(self, scratch.i64[0])


def tensor_register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
    """hook(self) runs after backward has accumulated this leaf's gradient into .grad; returns a
    handle whose remove() takes it off."""
    payload = _callbacks.new_payload((hook, weakref.ref(self)))
    status = lib.nb_tensor_register_post_accumulate_grad_hook(self._h, lib.nbpy_post_accumulate_hook_call,
                                                              payload, lib.nbpy_payload_release, scratch.i64)
    if status:
        _callbacks.nbpy_payload_release(payload)
        raise error(status)
    return RemovableHandle(self, scratch.i64[0])


class _HookPair:
    """One push of saved-tensor hooks: the two callables and the values pack returned,
    by key (the C graph holds the key; nbpy_saved_free drops the value)."""

    __slots__ = ("pack", "unpack", "values", "next_key")

    def __init__(self, pack, unpack) -> None:
        self.pack, self.unpack = pack, unpack
        self.values: dict = {}
        self.next_key = 1


_local = threading.local()  # .stack: this thread's pushed _HookPair objects, innermost last


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _pack_with(pair: _HookPair, tensor):
    """What pair.pack gives for tensor, kept under a new key; returns the key."""
    value = pair.pack(tensor)
    key = pair.next_key
    pair.next_key += 1
    pair.values[key] = value
    return key


def _unpack_value(pair: _HookPair, value):
    """pair.unpack(value), checked to be a Tensor as PyTorch checks it."""
    from .._tensor import Tensor
    result = pair.unpack(value)
    if not isinstance(result, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                        f"{type(result).__name__}")
    return result


@ffi.def_extern()
def nbpy_saved_pack(payload, t, packed):
    try:
        lib.nb_tensor_retain(t)
        packed[0] = ffi.cast("void*", _pack_with(ffi.from_handle(payload), _from_handle(t)))
        return lib.NB_OK
    except BaseException as exc:  # noqa: BLE001 - re-raised by the op that saved the tensor
        return _callbacks.park(exc)


@ffi.def_extern()
def nbpy_saved_unpack(payload, packed, out):
    try:
        pair = ffi.from_handle(payload)
        result = _unpack_value(pair, pair.values[int(ffi.cast("uintptr_t", packed))])
        lib.nb_tensor_retain(result._h)
        out[0] = result._h
        return lib.NB_OK
    except BaseException as exc:  # noqa: BLE001 - re-raised in the caller of backward
        return _callbacks.park(exc)


@ffi.def_extern()
def nbpy_saved_free(payload, packed):
    ffi.from_handle(payload).values.pop(int(ffi.cast("uintptr_t", packed)), None)


class saved_tensors_hooks:
    """Inside this context, every tensor autograd saves for backward goes through
    pack_hook(tensor) -> any object, and backward gets it back through
    unpack_hook(object) -> Tensor (called each time backward reads it). The innermost
    context applies; a graph keeps the hooks it was saved with after the context exits.
    As in PyTorch, tensors kept through hooks are not checked against in-place writes,
    and pack_hook must not modify its input in place. The tensor pack_hook sees shares
    the saved tensor's data but has no autograd history of its own."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        pair = _HookPair(self.pack_hook, self.unpack_hook)
        payload = _callbacks.new_payload(pair)
        status = lib.nb_saved_tensors_hooks_push(lib.nbpy_saved_pack, lib.nbpy_saved_unpack, lib.nbpy_saved_free,
                                                 payload, lib.nbpy_payload_release)
        if status:
            _callbacks.nbpy_payload_release(payload)
            raise error(status)
        _stack().append(pair)
        return self

    def __exit__(self, *exc) -> None:
        _stack().pop()
        status = lib.nb_saved_tensors_hooks_pop()
        if status:
            raise error(status)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied to the CPU in forward and moved back to their device
    when backward needs them (pin_memory pins the copies)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor):
            packed = tensor.to("cpu", copy=True)
            if pin_memory and tensor.device.type != "cpu":
                packed = packed.pin_memory()
            return tensor.device, packed

        def unpack(saved):
            device, tensor = saved
            return tensor.to(device, non_blocking=bool(pin_memory))

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside this context, entering saved_tensors_hooks raises RuntimeError(error_message)."""
    prev = lib.nb_saved_tensors_hooks_disabled_message()
    prev = None if prev == ffi.NULL else ffi.string(prev)
    status = lib.nb_saved_tensors_hooks_disable(str(error_message).encode())
    if status:
        raise error(status)
    try:
        yield
    finally:
        lib.nb_saved_tensors_hooks_disable(ffi.NULL if prev is None else prev)


def _current_hooks():
    """This thread's innermost saved-tensor hooks (for ctx.save_for_backward), or None."""
    stack = _stack()
    return stack[-1] if stack else None
