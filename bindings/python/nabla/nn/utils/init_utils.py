"""skip_init and the conv weight memory-format converters of torch.nn.utils. nabla tensors have
one layout (contiguous, row-major; memory_format= is accepted and ignored wherever PyTorch takes it),
so the converters check their arguments and return the module unchanged."""
from __future__ import annotations

import inspect

__all__ = ["skip_init", "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs); PyTorch skips the parameters' initialization, which nabla (no meta device)
    performs, so the values are initialized rather than arbitrary."""
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)


def _convert(module, memory_format, name: str):
    from ..modules.module import Module
    if not isinstance(module, Module):
        raise TypeError(f"{name}(): expected an nn.Module, got {type(module).__name__}")
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """module unchanged (nabla keeps every weight contiguous)."""
    return _convert(module, memory_format, "convert_conv2d_weight_memory_format")


def convert_conv3d_weight_memory_format(module, memory_format):
    """module unchanged (nabla keeps every weight contiguous)."""
    return _convert(module, memory_format, "convert_conv3d_weight_memory_format")
