"""MaxUnpool3d, LPPool3d, FractionalMaxPool2d / 3d and the legacy CrossMapLRN2d: holders of the
options of their functional forms (_functional_pool_extra.py), with PyTorch's arguments, checks
and reprs."""
from __future__ import annotations

from ..._tensor import Tensor
from ...autograd import Function
from .. import functional as F
from .module import Module
from .more_layers import _LPPoolNd, _MaxUnpoolNd

__all__ = ["MaxUnpool3d", "LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "CrossMapLRN2d"]


class MaxUnpool3d(_MaxUnpoolNd):
    """The inverse of MaxPool3d given its indices: zeros except at the maxima."""

    n = 3

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class LPPool3d(_LPPoolNd):
    """(sum over each window of x^p)^(1/p) over [N, C, D, H, W]."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


def _ntuple(v, n: int):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _FractionalMaxPoolNd(Module):
    n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        name = type(self).__name__
        if self.n == 3 and any(k <= 0 for k in _ntuple(kernel_size, 3)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, self.n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, self.n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, self.n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        fn = F.fractional_max_pool2d if self.n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max over pseudo-randomly placed kernel_size windows of [N, C, H, W] to output_size (or a ratio of it)."""

    n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max over pseudo-randomly placed kernel_size windows of [N, C, T, H, W] to output_size (or a ratio)."""

    n = 3


def _lrn_scale(input: Tensor, size: int, alpha: float, k: float) -> Tensor:
    """k + alpha / size * S_c, S_c the running window sum of x^2 over channels that PyTorch's legacy code keeps:
    sum_{j <= min(c + pre - 1, C - 1)} x_j^2 - sum_{1 <= j <= c - pre} x_j^2 (channel 0 is never taken out)."""
    import nabla as nb
    c, pre = input.shape[1], int((size - 1) / 2 + 1)
    cs = (input * input).cumsum(1)
    hi = cs.index_select(1, nb.tensor([min(i + pre - 1, c - 1) for i in range(c)], device=input.device))
    lo = cs.index_select(1, nb.tensor([max(i - pre, 0) for i in range(c)], device=input.device))
    return (hi - (lo - cs.narrow(1, 0, 1))) * (alpha / size) + k


class _CrossMapLRN2dFunction(Function):
    """Forward x * scale^-beta; backward PyTorch's legacy formula (a centred window of size channels)."""

    @staticmethod
    def forward(ctx, input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
        scale = _lrn_scale(input, size, alpha, k)
        out = input * scale.pow(-beta)
        ctx.save_for_backward(input, out, scale)
        ctx.lrn = (size, alpha, beta)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor):
        import nabla as nb
        input, out, scale = ctx.saved_tensors
        size, alpha, beta = ctx.lrn
        c, inv = input.shape[1], int(size - (size - 1) / 2)
        ratio = nb.nn.functional.pad(grad * out / scale, (0, 0, 0, 0, inv, size - 1 - inv))
        accum = ratio.narrow(1, 0, c)
        for t in range(1, size):
            accum = accum + ratio.narrow(1, t, c)
        grad_in = scale.pow(-beta) * grad - (2 * alpha * beta / size) * input * accum
        return grad_in, None, None, None, None


class CrossMapLRN2d(Module):
    """PyTorch's legacy cross-channel LRN of [N, C, H, W]: x * (k + alpha / size * S_c)^-beta, S_c a running
    window sum of x^2 over channels (see _lrn_scale), with the legacy backward."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
