"""SyncBatchNorm: batch normalization whose statistics PyTorch gathers over a process group. In one
process (no nabla.distributed group, or a group of one) that is BatchNorm over [N, C, *]; across
several processes nabla refuses rather than normalize each process by its own batch."""
from __future__ import annotations

from ..._tensor import Tensor
from .._grad_mode import no_grad
from .module import Module
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _world_size(process_group) -> int:
    from ... import distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return 1
    return dist.get_world_size(process_group) if process_group is not None else dist.get_world_size()


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of [N, C, *] per channel, statistics over the batch of every process of process_group."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        if batch_stats and _world_size(self.process_group) > 1:
            raise NotImplementedError("SyncBatchNorm: synchronizing batch statistics over several processes is not "
                                      "supported by nabla; use BatchNorm per process")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """module with every BatchNorm*d layer (recursively) replaced by a SyncBatchNorm holding its parameters
        and running statistics."""
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out
