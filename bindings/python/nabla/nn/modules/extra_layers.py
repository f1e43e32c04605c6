"""Layers over the nn.functional compositions: RMSNorm, channel dropout (Dropout1d/2d/3d),
adaptive max pooling, 1-d pooling, Upsample, CosineSimilarity, PairwiseDistance,
PixelShuffle / PixelUnshuffle and the remaining activation modules."""
from __future__ import annotations

import numbers

from ... import _factory
from ..._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from .dropout import Dropout
from .module import Module

__all__ = ["RMSNorm", "Dropout1d", "Dropout2d", "Dropout3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveAvgPool1d", "MaxPool1d", "AvgPool1d", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "CosineSimilarity", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle",
           "Hardtanh", "ReLU6", "SELU", "CELU", "GLU", "Mish", "Hardswish", "Hardsigmoid", "Softsign", "Tanhshrink",
           "Threshold", "LogSigmoid", "Softmin", "ELU", "Softplus", "PReLU"]


class RMSNorm(Module):
    """x / sqrt(mean(x^2 over normalized_shape) + eps) * weight (weight starts at 1)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps, self.elementwise_affine = tuple(normalized_shape), eps, elementwise_affine
        self.register_parameter("weight", Parameter(_factory.ones(*self.normalized_shape, device=device, dtype=dtype))
                                if elementwise_affine else None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class Dropout1d(Dropout):
    """Zeroes whole channels of [N, C, L] with probability p while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zeroes whole channels of [N, C, H, W] with probability p while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zeroes whole channels of [N, C, D, H, W] with probability p while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class _Functional(Module):
    """A module that calls one functional form with the arguments it was built with."""

    fn = None
    names: tuple = ()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        values = dict(zip(self.names, args), **kwargs)
        for name, default in self.defaults.items():
            setattr(self, name, values.get(name, default))
        if "stride" in self.defaults and self.stride is None:
            self.stride = self.kernel_size

    defaults: dict = {}
    quiet_repr = False  # PyTorch prints no arguments for this layer

    def forward(self, *inputs):
        return type(self).fn(*inputs, **{k: getattr(self, k) for k in self.defaults})

    def extra_repr(self) -> str:
        """PyTorch's form: the arguments, without None values and without inplace / return_indices when False."""
        if self.quiet_repr:
            return ""
        shown = []
        for k in self.defaults:
            v = getattr(self, k)
            if v is None or (k in ("inplace", "return_indices") and v is False):
                continue
            if k == "scale_factor" and isinstance(v, int):
                v = float(v)
            shown.append(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}")
        return ", ".join(shown)


def _module(name: str, fn, defaults: dict, doc: str, quiet_repr: bool = False):
    cls = type(name, (_Functional,), {"fn": staticmethod(fn), "names": tuple(defaults), "defaults": defaults,
                                      "__doc__": doc, "quiet_repr": quiet_repr})
    cls.__module__ = __name__
    return cls


AdaptiveMaxPool1d = _module("AdaptiveMaxPool1d", F.adaptive_max_pool1d, {"output_size": None,
                                                                          "return_indices": False},
                            "Max over adaptive windows of [N, C, L].")
AdaptiveMaxPool2d = _module("AdaptiveMaxPool2d", F.adaptive_max_pool2d, {"output_size": None,
                                                                          "return_indices": False},
                            "Max over adaptive windows of [N, C, H, W].")
AdaptiveAvgPool1d = _module("AdaptiveAvgPool1d", F.adaptive_avg_pool1d, {"output_size": None},
                            "Mean over adaptive windows of [N, C, L].")
MaxPool1d = _module("MaxPool1d", F.max_pool1d, {"kernel_size": None, "stride": None, "padding": 0, "dilation": 1,
                                                "return_indices": False, "ceil_mode": False},
                    "Max over windows of [N, C, L].")
AvgPool1d = _module("AvgPool1d", F.avg_pool1d, {"kernel_size": None, "stride": None, "padding": 0,
                                                "ceil_mode": False, "count_include_pad": True},
                    "Mean over windows of [N, C, L].")
Upsample = _module("Upsample", F.interpolate, {"size": None, "scale_factor": None, "mode": "nearest",
                                               "align_corners": None, "recompute_scale_factor": None},
                   "F.interpolate as a layer.")
CosineSimilarity = _module("CosineSimilarity", F.cosine_similarity, {"dim": 1, "eps": 1e-8},
                           "Cosine similarity of two inputs along dim.", quiet_repr=True)
PairwiseDistance = _module("PairwiseDistance", F.pairwise_distance, {"p": 2.0, "eps": 1e-6, "keepdim": False},
                           "p-norm distance of two inputs over the last dim.", quiet_repr=True)
PixelShuffle = _module("PixelShuffle", F.pixel_shuffle, {"upscale_factor": None}, "[*, C r^2, H, W] -> [*, C, H r, W r].")
PixelUnshuffle = _module("PixelUnshuffle", F.pixel_unshuffle, {"downscale_factor": None},
                         "[*, C, H r, W r] -> [*, C r^2, H, W].")
Hardtanh = _module("Hardtanh", F.hardtanh, {"min_val": -1.0, "max_val": 1.0, "inplace": False}, "clamp(x, min, max).")
ReLU6 = _module("ReLU6", F.relu6, {"inplace": False}, "clamp(x, 0, 6).")
SELU = _module("SELU", F.selu, {"inplace": False}, "scale * elu(x, alpha) with the self-normalising constants.")
CELU = _module("CELU", F.celu, {"alpha": 1.0, "inplace": False}, "max(0, x) + min(0, alpha (exp(x / alpha) - 1)).")
GLU = _module("GLU", F.glu, {"dim": -1}, "a * sigmoid(b) for the halves a, b of dim.")
Mish = _module("Mish", F.mish, {"inplace": False}, "x * tanh(softplus(x)).")
Hardswish = _module("Hardswish", F.hardswish, {"inplace": False}, "x * clamp(x / 6 + 1/2, 0, 1).")
Hardsigmoid = _module("Hardsigmoid", F.hardsigmoid, {"inplace": False}, "clamp(x / 6 + 1/2, 0, 1).")
Softsign = _module("Softsign", F.softsign, {}, "x / (1 + |x|).")
Tanhshrink = _module("Tanhshrink", F.tanhshrink, {}, "x - tanh(x).")
Threshold = _module("Threshold", F.threshold, {"threshold": None, "value": None, "inplace": False},
                    "x where x > threshold, else value.")
LogSigmoid = _module("LogSigmoid", F.logsigmoid, {}, "log(sigmoid(x)).")
Softmin = _module("Softmin", F.softmin, {"dim": None}, "softmax(-x) along dim.")
ELU = _module("ELU", F.elu, {"alpha": 1.0, "inplace": False}, "x if x > 0 else alpha (exp(x) - 1).")
Softplus = _module("Softplus", F.softplus, {"beta": 1.0, "threshold": 20.0}, "log(1 + exp(beta x)) / beta.")


def _upsampling(name: str, mode: str, align):
    def init_(self, size=None, scale_factor=None) -> None:
        Upsample.__init__(self, size, scale_factor, mode, align)
    cls = type(name, (Upsample,), {"__init__": init_, "__doc__": f"Upsample with mode={mode!r}."})
    cls.__module__ = __name__
    return cls


UpsamplingNearest2d = _upsampling("UpsamplingNearest2d", "nearest", None)
UpsamplingBilinear2d = _upsampling("UpsamplingBilinear2d", "bilinear", True)


class PReLU(Module):
    """max(0, x) + weight * min(0, x), one weight (or one per channel) learned; weight starts at init."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(_factory.full((num_parameters,), init, device=device, dtype=dtype))

    def forward(self, input: Tensor) -> Tensor:
        w = self.weight
        if self.num_parameters > 1 and input.dim() > 1:
            w = w.reshape((1, -1) + (1,) * (input.dim() - 2))
        return input.clamp(min=0) + w * input.clamp(max=0)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
