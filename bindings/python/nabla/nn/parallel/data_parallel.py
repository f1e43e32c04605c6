"""DataParallel: with one device (or none) PyTorch's DataParallel runs the module as is;
nabla runs every module on one device, so it always does."""
from __future__ import annotations

from ..modules.module import Module


class DataParallel(Module):
    """Wraps a module; forward calls it unchanged (nabla does not split a batch over several GPUs)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """Calls module on inputs (a tuple or a single input) on the one device nabla uses."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return module(*inputs, **(module_kwargs or {}))
