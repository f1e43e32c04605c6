"""Small torch.* and Tensor names real programs touch, over nabla's ops: is_inference (nabla has
no inference tensors: inference_mode works as no_grad), is_distributed, dim_order, is_set_to,
module_load, as_subclass, the deprecated non-in-place resize / resize_as, volatile and
reinforce (removed in PyTorch, with its messages), as_strided_ / as_strided_scatter,
norm_except_dim, empty_permuted, unfold_copy, convolution (ATen's entry to the convolutions),
to_dlpack and get_file_path."""
from __future__ import annotations

import os
import warnings

from ._tensor import Tensor

__all__ = ["is_inference", "is_distributed", "as_strided_", "as_strided_scatter", "norm_except_dim", "empty_permuted",
           "unfold_copy", "convolution", "to_dlpack", "get_file_path"]


def _nb():
    import nabla
    return nabla


def is_inference(input: Tensor) -> bool:
    """False: nabla makes no inference tensors (inference_mode disables gradients as no_grad does)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' must be Tensor, not {type(input).__name__}")
    return False


def is_distributed(input: Tensor) -> bool:
    return False


def dim_order(self: Tensor, *, ambiguity_check=False) -> tuple:
    """The dims from the outermost to the innermost in memory (larger stride first; ties keep dim order)."""
    strides = self.stride()
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both view the same memory with the same offset, sizes and strides."""
    return (self.data_ptr() == tensor.data_ptr() and self.shape == tensor.shape and
            self.stride() == tensor.stride() and self.dtype == tensor.dtype and self.device == tensor.device)


def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What load_state_dict stores for self: other.detach() with assign, else other copied into self."""
    return other.detach() if assign else self.copy_(other).detach()


def as_subclass(self: Tensor, cls) -> Tensor:
    """self's data and autograd history as an instance of cls (a subclass of Tensor)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of torch.Tensor, not {cls!r}")
    from .nn.parameter import _adopt
    return _adopt(cls, self)  # the same tensor (data, grad_fn, requires_grad) as a cls


def resize(self: Tensor, *sizes) -> Tensor:
    """The deprecated non-in-place resize: a view of self with as many elements in the new shape."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return self.reshape(*sizes)


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return self.reshape(tensor.shape)


def reinforce(self: Tensor, reward) -> None:
    raise RuntimeError(
        "reinforce() was removed.\nUse torch.distributions instead.\nSee "
        "https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\nprobs = policy_network(state)\n"
        "action = probs.multinomial()\nnext_state, reward = env.step(action)\naction.reinforce(reward)\n"
        "action.backward()\n\nUse:\n\nprobs = policy_network(state)\n# NOTE: categorical is equivalent to what "
        "used to be called multinomial\nm = torch.distributions.Categorical(probs)\naction = m.sample()\n"
        "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\nloss.backward()\n")


def _volatile(self: Tensor) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A copy of input with the as_strided(size, stride, storage_offset) view of it replaced by src."""
    out = input.clone(memory_format=_nb().contiguous_format)
    offset = 0 if storage_offset is None else storage_offset
    out.as_strided(size, stride, offset).copy_(src)
    return out


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The pow-norm of v over every dim but dim, shaped to broadcast against v (weight_norm's g)."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.dim() if v.dim() else 0
    moved = v.transpose(0, dim).reshape(v.shape[dim], -1).norm(pow, dim=1)
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    return moved.reshape(shape)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised dense tensor whose dims lie in memory in physical_layout's order (outermost first)."""
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"or physical_layout is not a permutation: size={list(size)}, "
                           f"physical_layout={list(order)}")
    strides, step = [0] * len(size), 1
    for d in reversed(order):
        strides[d] = step
        step *= max(size[d], 1)
    from ._tensor_extra import empty_strided
    return empty_strided(size, strides, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad,
                         pin_memory=pin_memory)


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return input.unfold(dimension, size, step).clone(memory_format=_nb().contiguous_format)


def convolution(input: Tensor, weight: Tensor, bias, stride, padding, dilation, transposed: bool, output_padding,
                groups: int) -> Tensor:
    """ATen's convolution entry: conv1d/2d/3d or conv_transpose1d/2d/3d by input rank and transposed."""
    F = _nb().nn.functional
    spatial = input.dim() - 2
    if spatial not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.shape)}")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[spatial - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[spatial - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def to_dlpack(tensor: Tensor):
    """A DLPack capsule of tensor (torch.utils.dlpack.to_dlpack)."""
    from .utils.dlpack import to_dlpack as _to_dlpack
    return _to_dlpack(tensor)


def get_file_path(*path_components: str) -> str:
    """A path under the directory that holds the nabla package."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *path_components)


def as_strided_(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    return input.as_strided_(size, stride, storage_offset)


TENSOR_METHODS = {
    "is_inference": lambda self: False,
    "dim_order": dim_order,
    "is_set_to": is_set_to,
    "module_load": module_load,
    "as_subclass": as_subclass,
    "resize": resize,
    "resize_as": resize_as,
    "reinforce": reinforce,
    "volatile": property(_volatile),
    "as_strided_scatter": as_strided_scatter,
    "nonzero_static": lambda self, *, size, fill_value=-1: _nb().nonzero_static(self, size=size, fill_value=fill_value),
    "grad_dtype": property(lambda self: self.dtype, doc="The dtype a gradient of this tensor has: its own."),
}
