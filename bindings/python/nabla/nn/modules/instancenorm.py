"""InstanceNorm1d/2d/3d: per-sample, per-channel normalisation over the spatial dims."""
from __future__ import annotations

from ... import _factory
from ..._dtype import int64
from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .normalization import _affine_parameters, _init_affine

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(Module):
    spatial = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, affine, True, (num_features,), device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", _factory.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", _factory.ones(num_features, device=device, dtype=dtype))
            # kept for PyTorch's state_dict layout (its _NormBase has it); instance norm never counts batches
            self.register_buffer("num_batches_tracked", _factory.tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        _init_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self.spatial + 1, self.spatial + 2):
            raise ValueError(f"expected {self.spatial + 1}D or {self.spatial + 2}D input (got {input.dim()}D input)")
        batched = input.dim() == self.spatial + 2
        x = input if batched else input.unsqueeze(0)
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
                              self.momentum, self.eps)
        return out if batched else out.squeeze(0)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """[N, C, L] or [C, L]."""
    spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """[N, C, H, W] or [C, H, W]."""
    spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """[N, C, D, H, W] or [C, D, H, W]."""
    spatial = 3
