"""autograd.graph: Python views of the C graph (a tensor's grad_fn) and hook handles."""
from __future__ import annotations

from .._lib import error, ffi, lib


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
        import weakref
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
