"""nn.functional forms written as compositions of nabla ops: normalize, cosine_similarity,
pairwise_distance, rms_norm, instance_norm, interpolate (nearest, nearest-exact, linear,
bilinear, bicubic, area), adaptive_max_pool1d/2d, max/avg_pool1d, dropout1d/2d/3d, the
remaining activations (hardtanh, relu6, selu, celu, glu, mish, hardswish, hardsigmoid,
softsign, tanhshrink, threshold) and pixel_shuffle / pixel_unshuffle."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._tensor import Tensor

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "rms_norm", "instance_norm", "interpolate",
           "upsample", "adaptive_max_pool1d", "adaptive_max_pool2d", "max_pool1d", "avg_pool1d", "dropout1d",
           "dropout2d", "dropout3d", "hardtanh", "relu6", "selu", "celu", "glu", "mish", "hardswish", "hardsigmoid",
           "softsign", "tanhshrink", "threshold", "pixel_shuffle", "pixel_unshuffle", "adaptive_avg_pool1d"]


def _nb():
    import nabla
    return nabla


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """input / max(||input||_p along dim, eps)."""
    norm = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    result = input / norm
    return result if out is None else out.copy_(result)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along dim (PyTorch's formula)."""
    nb = _nb()
    x1, x2 = nb.broadcast_tensors(x1, x2)
    n1 = x1.norm(2, dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def rms_norm(input: Tensor, normalized_shape, weight=None, eps=None) -> Tensor:
    """input / sqrt(mean(input^2 over normalized_shape) + eps) * weight; eps defaults to finfo(dtype).eps."""
    nb = _nb()
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    n = len(normalized_shape)
    if tuple(input.shape[input.dim() - n:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size "
                           f"{list(input.shape)}")
    if eps is None:
        eps = nb.finfo(input.dtype).eps
    dims = list(range(input.dim() - n, input.dim()))
    result = input * nb.rsqrt(input.pow(2).mean(dims, keepdim=True) + eps)
    return result if weight is None else result * weight


def instance_norm(input: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes each (sample, channel) of [N, C, *] over its spatial dims; running stats as BatchNorm's."""
    nb = _nb()
    if input.dim() < 3:
        raise ValueError(f"expected 3D or higher input (got {input.dim()}D input)")
    dims = list(range(2, input.dim()))
    view = (1, -1) + (1,) * len(dims)
    if use_input_stats:
        mean = input.mean(dims, keepdim=True)
        var = input.var(dims, keepdim=True, correction=0)
        if running_mean is not None:
            with nb.no_grad():
                n = int(np.prod([input.shape[d] for d in dims]))
                unbiased = input.var(dims, correction=1 if n > 1 else 0)
                running_mean.mul_(1 - momentum).add_(momentum * mean.detach().mean(0).reshape(-1))
                running_var.mul_(1 - momentum).add_(momentum * unbiased.detach().mean(0).reshape(-1))
    else:
        mean, var = running_mean.reshape(view), running_var.reshape(view)
    result = (input - mean) * nb.rsqrt(var + eps)
    if weight is not None:
        result = result * weight.reshape(view)
    if bias is not None:
        result = result + bias.reshape(view)
    return result


# ---- interpolate ----

def _source(out_size: int, in_size: int, scale, align_corners: bool, mode: str) -> np.ndarray:
    """The source coordinate of each output index (PyTorch's area_pixel_compute_source_index)."""
    dst = np.arange(out_size, dtype=np.float64)
    if align_corners:
        return dst * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    ratio = 1.0 / scale if scale is not None else in_size / out_size
    if mode in ("nearest",):
        return np.floor(dst * ratio)
    if mode == "nearest-exact":
        return np.floor((dst + 0.5) * ratio)
    src = (dst + 0.5) * ratio - 0.5
    return np.maximum(src, 0.0) if mode == "linear" else src


def _cubic_weights(t: np.ndarray) -> list:
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _resample(x: Tensor, dim: int, out_size: int, scale, mode: str, align_corners: bool) -> Tensor:
    """x resampled along dim to out_size: an index_select per tap, weighted and summed."""
    nb = _nb()
    in_size = x.shape[dim]
    src = _source(out_size, in_size, scale, align_corners, mode)
    shape = [1] * x.dim()
    shape[dim] = out_size

    def take(idx):
        return x.index_select(dim, nb.tensor(np.clip(idx, 0, in_size - 1).astype(np.int64), device=x.device))

    def weight(w):
        return nb.tensor(w.reshape(shape), dtype=x.dtype, device=x.device)

    if mode in ("nearest", "nearest-exact"):
        return take(np.minimum(src, in_size - 1))
    i0 = np.floor(src)
    t = src - i0
    if mode == "linear":
        i0 = np.minimum(i0, in_size - 1)
        i1 = np.minimum(i0 + 1, in_size - 1)
        return take(i0) * weight(1 - t) + take(i1) * weight(t)
    taps = _cubic_weights(t)
    result = None
    for k, w in zip(range(-1, 3), taps):
        term = take(i0 + k) * weight(w)
        result = term if result is None else result + term
    return result


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    """Resizes the spatial dims of [N, C, *spatial] (1 to 3 of them) by size or scale_factor."""
    modes = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
    if mode not in modes:
        raise NotImplementedError(f"Input Error: interpolate mode {mode!r} is not implemented in nabla "
                                  f"(modes: {', '.join(modes)})")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented in nabla")
    nsp = input.dim() - 2
    if nsp < 1:
        raise ValueError(f"interpolate: expected [N, C, *spatial] input, got {input.dim()}D")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(input.shape[2:])
    if size is not None:
        sizes = [size] * nsp if isinstance(size, numbers.Integral) else list(size)
        scales = [None] * nsp
    else:
        scales = [scale_factor] * nsp if isinstance(scale_factor, numbers.Real) else list(scale_factor)
        sizes = [int(math.floor(n * s)) for n, s in zip(in_sizes, scales)]
        if recompute_scale_factor:
            scales = [None] * nsp
    if len(sizes) != nsp:
        raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                         f"spatial dimensions of {in_sizes} and output size of {sizes}.")
    expected = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}.get(mode)
    if expected is not None and expected != nsp:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {expected + 2}D input")
    if mode == "area":
        nb = _nb()
        return _adaptive_avg(input, sizes) if nsp != 2 else nb.nn.functional.adaptive_avg_pool2d(input, sizes)
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    x = input
    for i in range(nsp):
        x = _resample(x, 2 + i, sizes[i], scales[i], kind, bool(align_corners))
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def _windows(n_in: int, n_out: int) -> list:
    return [(math.floor(i * n_in / n_out), math.ceil((i + 1) * n_in / n_out)) for i in range(n_out)]


def _adaptive_avg(input: Tensor, sizes: list) -> Tensor:
    nb = _nb()
    x = input
    for d, n_out in enumerate(sizes, 2):
        x = nb.stack([x.narrow(d, a, b - a).mean(d) for a, b in _windows(x.shape[d], n_out)], d)
    return x


def _pair(v, n: int) -> list:
    return [v] * n if isinstance(v, numbers.Integral) or v is None else list(v)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max over adaptive windows of [N, C, H, W] (or [C, H, W]): window i spans floor(i H / oh) .. ceil((i+1) H / oh)."""
    nb = _nb()
    if return_indices:
        raise NotImplementedError("adaptive_max_pool2d: return_indices=True is not implemented in nabla")
    oh, ow = _pair(output_size, 2)
    h, w = input.shape[-2:]
    oh, ow = oh or h, ow or w
    rows = []
    for a, b in _windows(h, oh):
        band = input.narrow(-2, a, b - a)
        rows.append(nb.stack([band.narrow(-1, c, e - c).amax((-2, -1)) for c, e in _windows(w, ow)], -1))
    return nb.stack(rows, -2)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    return adaptive_max_pool2d(input.unsqueeze(-2), (1, _pair(output_size, 1)[0]), return_indices).squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """adaptive_avg_pool2d over [N, C, 1, L] (or [C, 1, L])."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d: Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)")
    n = _pair(output_size, 1)[0]
    return _nb().nn.functional.adaptive_avg_pool2d(input.unsqueeze(-2), (1, input.shape[-1] if n is None else n)) \
        .squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d over [N, C, 1, L]."""
    nb = _nb()
    k, s = _pair(kernel_size, 1)[0], _pair(stride if stride is not None else kernel_size, 1)[0]
    out = nb.nn.functional.max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _pair(padding, 1)[0]),
                                      (1, _pair(dilation, 1)[0]), ceil_mode=ceil_mode, return_indices=return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) -> Tensor:
    nb = _nb()
    k, s = _pair(kernel_size, 1)[0], _pair(stride if stride is not None else kernel_size, 1)[0]
    return nb.nn.functional.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _pair(padding, 1)[0]), ceil_mode,
                                       count_include_pad).squeeze(-2)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, spatial: int, name: str) -> Tensor:
    """Zeroes whole channels of [N, C, *spatial] (or [C, *spatial]) with probability p."""
    nb = _nb()
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a "
                           f"{input.dim()}D input")
    if not training or p == 0:
        return input
    keep = input.dim() - spatial
    mask_shape = tuple(input.shape[:keep]) + (1,) * spatial
    mask = nb.bernoulli(nb.full(mask_shape, 1 - p, dtype=input.dtype, device=input.device))
    result = input * mask / (1 - p) if p < 1 else input * mask
    return input.copy_(result) if inplace else result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d")


# ---- activations ----

def _maybe_inplace(input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    return input.copy_(result) if inplace else result


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    return _maybe_inplace(input, input.clamp(min_val, max_val), inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    nb = _nb()
    return _maybe_inplace(input, _SELU_SCALE * nb.nn.functional.elu(input, _SELU_ALPHA), inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    nb = _nb()
    return _maybe_inplace(input, input.clamp(min=0) + (alpha * nb.expm1(input.clamp(max=0) / alpha)), inplace)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    nb = _nb()
    return _maybe_inplace(input, input * nb.nn.functional.softplus(input).tanh(), inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_inplace(input, (input / 6 + 0.5).clamp(0, 1), inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_inplace(input, input * (input / 6 + 0.5).clamp(0, 1), inplace)


def softsign(input: Tensor) -> Tensor:
    return input / (1 + input.abs())


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: F811
    nb = _nb()
    return _maybe_inplace(input, nb.where(input > threshold, input, nb.full_like(input, value)), inplace)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """[*, C r^2, H, W] -> [*, C, H r, W r]."""
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """[*, C, H r, W r] -> [*, C r^2, H, W]."""
    r = downscale_factor
    *lead, c, h, w = input.shape
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)
