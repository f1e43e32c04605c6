"""DistributedDataParallel's import path. nabla's collectives (nabla.distributed) are not
there yet, so no process group can exist: constructing the wrapper raises the error
PyTorch raises before init_process_group. When a process group of one process exists
(a future nabla.distributed), the wrapper runs the module unchanged: with one replica
there is nothing to all-reduce."""
from __future__ import annotations

import contextlib
import importlib

from ..modules.module import Module


def _process_group_size():
    """The default process group's world size, or None when there is none."""
    try:
        dist = importlib.import_module("nabla.distributed")
    except ImportError:
        return None
    if not (hasattr(dist, "is_initialized") and dist.is_initialized()):
        return None
    return dist.get_world_size()


class DistributedDataParallel(Module):
    """DistributedDataParallel(module, device_ids=None, ...): data parallelism across processes.

    Raises ValueError, as PyTorch, when no process group was initialised (with nabla today: always, since
    nabla.distributed does not exist yet); wraps the module unchanged in a group of one process; refuses
    a larger group with NotImplementedError until nabla's collectives land.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False, **kwargs) -> None:
        size = _process_group_size() if process_group is None else process_group.size()
        if size is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group. (nabla: nabla.distributed is not available in this version, "
                             "so DistributedDataParallel can only be imported; train on one process without it)")
        if size != 1:
            raise NotImplementedError(f"DistributedDataParallel: a process group of {size} processes needs "
                                      "nabla's collectives, which are not available yet")
        super().__init__()
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.find_unused_parameters = find_unused_parameters

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients are not synchronised inside the block (with one process they never need to be)."""
        yield
