"""The 3-d layers besides the pools of pooling.py: Conv3d, AdaptiveMaxPool3d and BatchNorm3d,
over [N, C, D, H, W] (the functional forms are in _functional_3d.py)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .conv import _ConvNd
from .module import Module
from .normalization import _BatchNorm

__all__ = ["Conv3d", "AdaptiveMaxPool3d", "BatchNorm3d"]


class Conv3d(_ConvNd):
    """3-D convolution: [N, C_in, D, H, W] -> [N, C_out, D_out, H_out, W_out] (or unbatched)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, 3, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv3d(self._padded(input), self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class AdaptiveMaxPool3d(Module):
    """Max pooling to a fixed output_size (an int or a triple; None keeps that input size)."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class BatchNorm3d(_BatchNorm):
    """Batch normalization of [N, C, D, H, W] per channel."""
    _dims = (5,)
