"""More nn.functional activations as compositions of nabla ops: hardshrink, softshrink, prelu,
rrelu, gumbel_softmax, alpha_dropout / feature_alpha_dropout and the in-place spellings
PyTorch exposes (elu_, celu_, relu_, selu_, leaky_relu_, hardtanh_, threshold_, rrelu_)."""
from __future__ import annotations

import math

from .._tensor import Tensor

__all__ = ["hardshrink", "softshrink", "prelu", "rrelu", "rrelu_", "gumbel_softmax", "alpha_dropout",
           "feature_alpha_dropout", "elu_", "celu_", "relu_", "selu_", "leaky_relu_", "hardtanh_", "threshold_"]

_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}


def _nb():
    import nabla
    return nabla


def _F():
    return _nb().nn.functional


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input where |input| > lambd, else 0."""
    nb = _nb()
    return nb.where(input.abs() > lambd, input, nb.zeros_like(input))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input - lambd above lambd, input + lambd below -lambd, else 0 (lambd >= 0)."""
    nb = _nb()
    if lambd < 0:
        name = str(input.dtype).split(".")[-1]
        top = nb.finfo(input.dtype).max if input.dtype.is_floating_point else 0
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {_DTYPE_NAMES.get(name, name)}, "
                           f"but found {lambd:g}")
    zeros = nb.zeros_like(input)
    return nb.where(input > lambd, input - lambd, nb.where(input < -lambd, input + lambd, zeros))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, input) + weight * min(0, input); weight has 1 element or one per channel (dim 1)."""
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{n} and channel size = {channels}.")
        if input.dim() >= 2:
            weight = weight.reshape((1, -1) + (1,) * (input.dim() - 2))
    elif weight.dim() > 0 and input.dim() > 0:
        weight = weight.reshape(())
    return input.clamp(min=0) + weight * input.clamp(max=0)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training, (lower + upper) / 2
    in evaluation."""
    nb = _nb()
    if training:
        slope = nb.empty_like(input).uniform_(lower, upper)
        result = nb.where(input >= 0, input, input * slope)
    else:
        result = _F().leaky_relu(input, (lower + upper) / 2)
    return input.copy_(result) if inplace else result


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel(0, 1) noise) / tau) along dim; hard=True returns the one-hot argmax with the soft
    sample's gradient (straight-through)."""
    nb = _nb()
    if eps != 1e-10:
        import warnings
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    uniform = nb.rand_like(logits).clamp(min=nb.finfo(logits.dtype).tiny)
    gumbels = -(-uniform.log()).log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = nb.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


_ALPHA = 1.7580993408473766  # SELU's scale * alpha: the value a dropped unit takes before the affine fix-up


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """SELU-preserving dropout: kept units a * x + b, dropped ones a * (-alpha') + b, so mean and variance stay."""
    nb = _nb()
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    keep = nb.bernoulli(nb.full(shape, 1 - p, dtype=input.dtype, device=input.device))
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
    result = input * (keep * a) + b
    return input.copy_(result) if inplace else result


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels of [N, C, *]."""
    return _alpha_dropout(input, p, training, inplace, True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _F().elu(input, alpha, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _F().celu(input, alpha, inplace=True)


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def selu_(input: Tensor) -> Tensor:
    return _F().selu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _F().leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _F().hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _F().threshold(input, threshold, value, inplace=True)
