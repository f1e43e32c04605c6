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
