"""nn.Parameter: a Tensor that a Module registers as a learnable parameter."""
from __future__ import annotations

from .._lib import lib
from .._tensor import Tensor

_new_object = object.__new__


def _alias(data: Tensor) -> Tensor:
    """A new tensor object sharing data's storage, outside any autograd graph."""
    if hasattr(Tensor, "detach"):
        return data.detach()
    return data.as_strided(data.shape, data.stride(), data.storage_offset())


def _adopt(cls, data: Tensor):
    """An instance of cls (a Tensor subclass) holding its own reference to data's handle."""
    t = _new_object(cls)
    lib.nb_tensor_retain(data._h)
    t._h = data._h
    t._shape = None
    return t


class Parameter(Tensor):
    """A tensor that, assigned as a Module attribute, joins the module's parameters().

    Parameter(data, requires_grad=True) shares data's storage."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._factory import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        p = _adopt(cls, _alias(data))
        if requires_grad and hasattr(Tensor, "requires_grad_"):
            Tensor.requires_grad_(p, True)
        return p

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        requires_grad = getattr(self, "requires_grad", True)
        result = Parameter(_alias(self).clone(), requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        raise TypeError("nabla tensors are saved with nabla.save (safetensors), not pickle")


class Buffer(Tensor):
    """Marks a tensor as a buffer when assigned to a Module attribute (nn.Buffer); persistent by default."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from .._factory import empty
            data = empty(0)
        b = _adopt(cls, _alias(data))
        b.persistent = persistent
        return b


def _tensor_deepcopy(self: Tensor, memo):
    """copy.deepcopy(tensor): a clone with the same requires_grad (PyTorch's behaviour for leaves)."""
    if id(self) in memo:
        return memo[id(self)]
    result = _alias(self).clone()
    if getattr(self, "requires_grad", False):
        result.requires_grad_(True)
    memo[id(self)] = result
    return result


if "__deepcopy__" not in Tensor.__dict__:  # deepcopy of modules (TransformerEncoder clones its layer)
    Tensor.__deepcopy__ = _tensor_deepcopy


class UninitializedTensorMixin:
    """A placeholder with no shape yet (an empty tensor of the intended dtype and device) that a lazy module
    materializes on its first forward, becoming cls_to_become in place."""

    cls_to_become: type = Parameter

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Gives the placeholder storage of shape (uninitialized values) and turns it into cls_to_become."""
        from .._factory import empty
        from .modules.module import _swap_handle
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        new = empty(*shape, device=device or self.device, dtype=dtype or self.dtype)
        if self.cls_to_become is Parameter:
            new = Parameter(new, getattr(self, "requires_grad", True))
        _swap_handle(self, new)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is set later (by a Lazy* module's first forward)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        from .._factory import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is set later (by a Lazy* module's first forward); it becomes a Buffer (a Tensor
    subclass: plain Tensors have no per-object attributes to change class into)."""

    cls_to_become = Buffer

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        from .._factory import empty
        b = _adopt(cls, empty(0, device=device, dtype=dtype))
        b.persistent = persistent
        return b


def is_lazy(param) -> bool:
    """Whether param is a placeholder still waiting for its shape."""
    return isinstance(param, UninitializedTensorMixin)
