"""MaxPool2d/3d, AvgPool2d/3d and AdaptiveAvgPool2d/3d: holders of the options of their
functional forms (one base per kind, the dimension picking the function)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d"]


class _MaxPoolNd(Module):
    _fn = ""  # the functional form's name

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class _AvgPoolNd(Module):
    _fn = ""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                    self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    _fn = ""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, self._fn)(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool2d(_MaxPoolNd):
    """Max over kernel_size windows of [N, C, H, W] (or [C, H, W]); stride defaults to kernel_size."""
    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    """Max over kernel_size windows of [N, C, D, H, W] (or [C, D, H, W]); stride defaults to kernel_size."""
    _fn = "max_pool3d"


class AvgPool2d(_AvgPoolNd):
    """Mean over kernel_size windows of [N, C, H, W] (or [C, H, W])."""
    _fn = "avg_pool2d"


class AvgPool3d(_AvgPoolNd):
    """Mean over kernel_size windows of [N, C, D, H, W] (or [C, D, H, W])."""
    _fn = "avg_pool3d"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output_size (an int or a pair; None keeps that input size)."""
    _fn = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output_size (an int or a triple; None keeps that input size)."""
    _fn = "adaptive_avg_pool3d"
