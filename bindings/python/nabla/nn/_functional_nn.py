"""nabla.nn.functional: convolutions, pooling, normalization, losses and pad,
with PyTorch's signatures and defaults (re-exported by functional.py).

Each function normalises its Python arguments (int-or-tuple sizes, padding
strings, reduction strings, unbatched inputs) and makes one ABI call; the C
library checks shapes and dtypes and words the errors."""
from __future__ import annotations

import numbers
import warnings

from .._lib import ffi, lib
from .._tensor import Tensor, _call, _from_handle as _wrap

_NULL = ffi.NULL

__all__ = ["conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
           "layer_norm", "batch_norm", "group_norm", "pad", "cross_entropy", "nll_loss", "mse_loss",
           "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div"]

_REDUCTIONS = {"none": lib.NB_REDUCTION_NONE, "mean": lib.NB_REDUCTION_MEAN, "sum": lib.NB_REDUCTION_SUM}
_PAD_MODES = {"constant": lib.NB_PAD_CONSTANT, "reflect": lib.NB_PAD_REFLECT, "replicate": lib.NB_PAD_REPLICATE,
              "circular": lib.NB_PAD_CIRCULAR}


# ---- argument helpers ----

def _tensor(x, fname: str, arg: str, position: int) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {position}) must be Tensor, not {type(x).__name__}")
    return x


def _opt(x, fname: str, arg: str):
    """The handle of an optional tensor argument (NULL for None)."""
    if x is None:
        return _NULL
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' must be Tensor or None, not {type(x).__name__}")
    return x._h


def _int(v, fname: str, arg: str) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{fname}(): argument '{arg}' must be int or tuple of ints, not {type(v).__name__}")
    return int(v)


def _ntuple(v, n: int, fname: str, arg: str) -> list:
    """An int or a sequence of 1 or n ints as a list of n ints."""
    if isinstance(v, (list, tuple)):
        vals = [_int(x, fname, arg) for x in v]
        if len(vals) == 1:
            return vals * n
        if len(vals) != n:
            raise RuntimeError(f"{fname}: expected {arg} to be a single integer value or a list of {n} values, "
                               f"but got {arg}={list(vals)}")
        return vals
    return [_int(v, fname, arg)] * n


def _reduction(reduction, size_average=None, reduce=None) -> int:
    if size_average is not None or reduce is not None:  # PyTorch's legacy arguments
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", stacklevel=3)
    code = _REDUCTIONS.get(reduction) if isinstance(reduction, str) else None
    if code is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return code


def _batched(x: Tensor, spatial: int):
    """(x as a batch, whether it was unbatched) for inputs of spatial + 1 or spatial + 2 dims."""
    if x.dim() == spatial + 1:
        return x.unsqueeze(0), True
    return x, False


# ---- convolutions ----

def _conv_padding(padding, weight: Tensor, n: int, stride: list, dilation: list, fname: str) -> list:
    """Explicit padding (befores, then afters) for an int, tuple or 'valid' / 'same'."""
    if isinstance(padding, str):
        if padding == "valid":
            return [0] * (2 * n)
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        k = weight.shape[-n:] if weight.dim() >= n else [1] * n
        total = [d * (kk - 1) for d, kk in zip(dilation, k)]
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    p = _ntuple(padding, n, fname, "padding")
    return p + p


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """1-D convolution of input [N, C_in, L] (or unbatched [C_in, L]) with weight [C_out, C_in / groups, kW]."""
    _tensor(input, "conv1d", "input", 1), _tensor(weight, "conv1d", "weight", 2)
    s, d = _ntuple(stride, 1, "conv1d", "stride"), _ntuple(dilation, 1, "conv1d", "dilation")
    p = _conv_padding(padding, weight, 1, s, d, "conv1d")
    x, unbatched = _batched(input, 1)
    y = _call(lib.nbpy_conv1d, x._h, weight._h, _opt(bias, "conv1d", "bias"), s[0], p[0], p[1], d[0],
              _int(groups, "conv1d", "groups"), _NULL)
    return y.squeeze(0) if unbatched else y


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """2-D convolution of input [N, C_in, H, W] (or unbatched [C_in, H, W]) with weight [C_out, C_in / groups, kH, kW];
    padding is an int, a pair, 'valid' or 'same'."""
    _tensor(input, "conv2d", "input", 1), _tensor(weight, "conv2d", "weight", 2)
    s, d = _ntuple(stride, 2, "conv2d", "stride"), _ntuple(dilation, 2, "conv2d", "dilation")
    p = _conv_padding(padding, weight, 2, s, d, "conv2d")
    x, unbatched = _batched(input, 2)
    y = _call(lib.nbpy_conv2d, x._h, weight._h, _opt(bias, "conv2d", "bias"), s, p, d,
              _int(groups, "conv2d", "groups"), _NULL)
    return y.squeeze(0) if unbatched else y


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """Transposed 2-D convolution of input [N, C_in, H, W] with weight [C_in, C_out / groups, kH, kW]."""
    f = "conv_transpose2d"
    _tensor(input, f, "input", 1), _tensor(weight, f, "weight", 2)
    s, p = _ntuple(stride, 2, f, "stride"), _ntuple(padding, 2, f, "padding")
    op, d = _ntuple(output_padding, 2, f, "output_padding"), _ntuple(dilation, 2, f, "dilation")
    x, unbatched = _batched(input, 2)
    y = _call(lib.nbpy_conv_transpose2d, x._h, weight._h, _opt(bias, f, "bias"), s, p, op, d,
              _int(groups, f, "groups"), _NULL)
    return y.squeeze(0) if unbatched else y


# ---- pooling ----

def _pool_stride(stride, kernel: list, fname: str) -> list:
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return kernel
    return _ntuple(stride, 2, fname, "stride")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over [N, C, H, W] (or [C, H, W]); with return_indices, also the int64 argmax positions
    flattened within each input plane."""
    f = "max_pool2d"
    _tensor(input, f, "input", 1)
    k = _ntuple(kernel_size, 2, f, "kernel_size")
    s, p = _pool_stride(stride, k, f), _ntuple(padding, 2, f, "padding")
    d = _ntuple(dilation, 2, f, "dilation")
    x, unbatched = _batched(input, 2)
    if not return_indices:
        y = _call(lib.nbpy_max_pool2d, x._h, k, s, p, d, int(bool(ceil_mode)), _NULL, _NULL)
        return y.squeeze(0) if unbatched else y
    idx = ffi.new("nb_tensor*[1]")
    y = _call(lib.nbpy_max_pool2d, x._h, k, s, p, d, int(bool(ceil_mode)), idx, _NULL)
    i = _wrap(idx[0])
    return (y.squeeze(0), i.squeeze(0)) if unbatched else (y, i)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None) -> Tensor:
    """Average pooling over [N, C, H, W] (or [C, H, W])."""
    f = "avg_pool2d"
    _tensor(input, f, "input", 1)
    k = _ntuple(kernel_size, 2, f, "kernel_size")
    s, p = _pool_stride(stride, k, f), _ntuple(padding, 2, f, "padding")
    div = 0
    if divisor_override is not None:
        div = _int(divisor_override, f, "divisor_override")
        if div == 0:
            raise RuntimeError("divisor must be not zero")
    x, unbatched = _batched(input, 2)
    y = _call(lib.nbpy_avg_pool2d, x._h, k, s, p, int(bool(ceil_mode)), int(bool(count_include_pad)), div, _NULL)
    return y.squeeze(0) if unbatched else y


def adaptive_avg_pool2d(input, output_size) -> Tensor:
    """Average pooling of [N, C, H, W] (or [C, H, W]) to output_size (an int or a pair; None keeps that size)."""
    f = "adaptive_avg_pool2d"
    _tensor(input, f, "input", 1)
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 2:
            raise RuntimeError(f"{f}: output_size must be 2")
        out = [input.shape[-2 + i] if v is None else _int(v, f, "output_size") for i, v in enumerate(output_size)]
    else:
        out = [_int(output_size, f, "output_size")] * 2
    x, unbatched = _batched(input, 2)
    y = _call(lib.nbpy_adaptive_avg_pool2d, x._h, out, _NULL)
    return y.squeeze(0) if unbatched else y


# ---- normalization ----

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor:
    """Normalizes over the trailing dims normalized_shape, then scales by weight and shifts by bias."""
    f = "layer_norm"
    _tensor(input, f, "input", 1)
    shape = [normalized_shape] if isinstance(normalized_shape, numbers.Integral) else list(normalized_shape)
    shape = [_int(v, f, "normalized_shape") for v in shape]
    return _call(lib.nbpy_layer_norm, input._h, shape, len(shape), _opt(weight, f, "weight"), _opt(bias, f, "bias"),
                 float(eps), _NULL)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5) -> Tensor:
    """Batch normalization of [N, C, *] per channel; training updates running_mean / running_var in place."""
    f = "batch_norm"
    _tensor(input, f, "input", 1)
    if training:
        shape = input.shape
        n = shape[0] if len(shape) else 1
        for s in shape[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {shape}")
    return _call(lib.nbpy_batch_norm, input._h, _opt(running_mean, f, "running_mean"),
                 _opt(running_var, f, "running_var"), _opt(weight, f, "weight"), _opt(bias, f, "bias"),
                 int(bool(training)), float(momentum if momentum is not None else 0.0), float(eps), _NULL)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5) -> Tensor:
    """Group normalization of [N, C, *] over num_groups groups of channels."""
    f = "group_norm"
    _tensor(input, f, "input", 1)
    num_groups = _int(num_groups, f, "num_groups")
    shape = input.shape
    if len(shape) >= 2 and num_groups > 0 and shape[1] % num_groups == 0:
        n = shape[0] * shape[1] // num_groups  # PyTorch's check: one value per group is an error
        for s in shape[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{[shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:])}")
    return _call(lib.nbpy_group_norm, input._h, num_groups, _opt(weight, f, "weight"),
                 _opt(bias, f, "bias"), float(eps), _NULL)


# ---- pad ----

def pad(input, pad, mode="constant", value=None) -> Tensor:
    """Pads the last len(pad) // 2 dims: pad = (last_before, last_after, second_last_before, ...).
    mode: 'constant' (value, default 0; negative pads crop), 'reflect', 'replicate' or 'circular'."""
    f = "pad"
    _tensor(input, f, "input", 1)
    if not isinstance(pad, (list, tuple)):
        raise TypeError(f"pad(): argument 'pad' must be tuple of ints, not {type(pad).__name__}")
    p = [_int(v, f, "pad") for v in pad]
    code = _PAD_MODES.get(mode) if isinstance(mode, str) else None
    if code is None:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if code != 0 and value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _call(lib.nbpy_pad, input._h, p, len(p), code, float(value) if value is not None else 0.0, _NULL)


# ---- losses ----

def _class_batch_check(input: Tensor, target: Tensor) -> None:
    if (input.dim() >= 2 and target.dim() >= 1 and not target.is_floating_point()
            and input.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean") -> Tensor:
    """Negative log-likelihood of log-probabilities input [N, C, *] at class indices target [N, *]."""
    f = "nll_loss"
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    r = _reduction(reduction, size_average, reduce)
    _class_batch_check(input, target)
    return _call(lib.nbpy_nll_loss, input._h, target._h, _opt(weight, f, "weight"), _int(ignore_index, f, "ignore_index"),
                 r, _NULL)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0) -> Tensor:
    """Cross entropy of logits input [N, C, *] against class indices [N, *] or class probabilities
    (a floating target shaped like input)."""
    f = "cross_entropy"
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    r = _reduction(reduction, size_average, reduce)
    _class_batch_check(input, target)
    return _call(lib.nbpy_cross_entropy, input._h, target._h, _opt(weight, f, "weight"),
                 _int(ignore_index, f, "ignore_index"), r, float(label_smoothing), _NULL)


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _regression(f: str, twin, input, target, weight, reduction, *extra) -> Tensor:
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    _warn_size(input, target)
    if weight is not None and (not isinstance(weight, Tensor) or weight.shape != input.shape):
        raise ValueError("Weights and input must have the same size.")
    return _call(twin, input._h, target._h, _opt(weight, f, "weight"), reduction, *extra, _NULL)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None) -> Tensor:
    """Squared error (input - target)^2, optionally weighted (the mean then divides by the summed weights)."""
    return _regression("mse_loss", lib.nbpy_mse_loss, input, target, weight, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None) -> Tensor:
    """Absolute error |input - target|, optionally weighted (the mean then divides by the summed weights)."""
    return _regression("l1_loss", lib.nbpy_l1_loss, input, target, weight, _reduction(reduction, size_average, reduce))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0) -> Tensor:
    """Quadratic below beta, linear above."""
    f = "smooth_l1_loss"
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    _warn_size(input, target)
    return _call(lib.nbpy_smooth_l1_loss, input._h, target._h, _reduction(reduction, size_average, reduce),
                 float(beta), _NULL)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None) -> Tensor:
    """Quadratic below delta, delta-scaled linear above; optionally weighted."""
    return _regression("huber_loss", lib.nbpy_huber_loss, input, target, weight, _reduction(reduction),
                       float(delta))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean") -> Tensor:
    """-(target log(input) + (1 - target) log(1 - input)), logs clamped at -100; input in [0, 1]."""
    f = "binary_cross_entropy"
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    r = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    return _call(lib.nbpy_binary_cross_entropy, input._h, target._h, _opt(weight, f, "weight"), r, _NULL)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None) -> Tensor:
    """Binary cross entropy of sigmoid(input), computed stably from the logits; pos_weight scales positives."""
    f = "binary_cross_entropy_with_logits"
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    r = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _call(lib.nbpy_binary_cross_entropy_with_logits, input._h, target._h, _opt(weight, f, "weight"),
                 _opt(pos_weight, f, "pos_weight"), r, _NULL)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False) -> Tensor:
    """KL divergence with input as log-probabilities; reduction may also be 'batchmean' (sum / batch size)."""
    f = "kl_div"
    _tensor(input, f, "input", 1), _tensor(target, f, "target", 2)
    if size_average is not None or reduce is not None:
        reduction = ("none", "mean", "sum")[_reduction(None, size_average, reduce)]
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    batchmean = reduction == "batchmean"
    r = 2 if batchmean else _reduction(reduction)
    out = _call(lib.nbpy_kl_div, input._h, target._h, r, int(bool(log_target)), _NULL)
    if batchmean and input.dim() != 0:
        out = out / input.shape[0]
    return out
