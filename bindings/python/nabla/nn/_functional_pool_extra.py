"""The pools nn.functional gained last: max_unpool3d and lp_pool3d (over the 3-d pools of
_functional_3d.py), and fractional_max_pool2d / 3d: windows of kernel_size whose starts follow
PyTorch's pseudo-random sequence from one sample in [0, 1) per (batch, plane, dim), gathered
from the flattened planes so values, the flat argmax and gradients match PyTorch's."""
from __future__ import annotations

import itertools
import math

from .._tensor import Tensor
from ._functional_3d import avg_pool3d
from ._functional_spatial import _tuple, _unpool

__all__ = ["max_unpool3d", "lp_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _nb():
    import nabla
    return nabla


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The inverse of max_pool3d: each value of [N, C, D, H, W] put at its flat index into D * H * W."""
    k = _tuple(kernel_size, 3)
    s = _tuple(stride, 3) if stride is not None else k
    return _unpool("max_unpool3d", input, indices, k, s, _tuple(padding, 3), output_size)


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) over [N, C, D, H, W]."""
    kd, kh, kw = _tuple(kernel_size, 3)
    out = avg_pool3d(input.pow(norm_type), (kd, kh, kw), stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kd * kh * kw).pow(1.0 / norm_type)


def _starts(sample: Tensor, size: int, out: int, k: int) -> Tensor:
    """PyTorch's generate_intervals for samples [N, C]: int64 window starts [N, C, out], computed in
    the samples' dtype: trunc((i + u) * alpha) - trunc(u * alpha), the last one size - k."""
    nb = _nb()
    last = nb.full((*sample.shape, 1), size - k, dtype=nb.int64, device=sample.device)
    if out <= 1:
        return last.narrow(-1, 0, out)
    alpha = nb.tensor((size - k) / (out - 1), dtype=sample.dtype, device=sample.device)
    i = nb.arange(out - 1, dtype=sample.dtype, device=sample.device)
    u = sample.unsqueeze(-1)
    seq = ((i + u) * alpha).trunc() - (u * alpha).trunc()
    return nb.cat([seq.long(), last], -1)


def _fractional(input: Tensor, kernel_size, output_size, output_ratio, return_indices: bool, samples, nd: int):
    nb = _nb()
    f = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{f} requires specifying either an output_size or an output_ratio")
    if not isinstance(input, Tensor):
        raise TypeError(f"{f}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{f}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    k = _tuple(kernel_size, nd)
    sizes = list(input.shape[-nd:])
    if output_size is None:
        ratio = list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * nd
        out = [int(sizes[d] * ratio[d]) for d in range(nd)]
    else:
        out = _tuple(output_size, nd)
    x = input.unsqueeze(0) if input.dim() == nd + 1 else input
    n, c = x.shape[:2]
    if samples is None:
        samples = nb.rand(n, c, nd, dtype=input.dtype, device=input.device)
    if tuple(samples.shape) != (n, c, nd):
        raise RuntimeError(f"{f}(): Expect _random_samples to be of shape [{n}, {c}, {nd}], got "
                           f"{list(samples.shape)}")
    names = ["time", "height", "width"][-nd:]
    for d in range(nd):
        if out[d] + k[d] - 1 > sizes[d]:
            raise RuntimeError(f"{f}_out(): pool {names[d]} {k[d]} too large relative to input {names[d]} "
                               f"{sizes[d]}")
    # PyTorch's samples run (W, H) in 2-d but (T, H, W) in 3-d
    order = [1, 0] if nd == 2 else [0, 1, 2]
    starts = [_starts(samples.select(-1, order[d]), sizes[d], out[d], k[d]) for d in range(nd)]
    flat = x.reshape(n, c, -1)
    best = nb.full((n, c, *out), -math.inf, dtype=x.dtype, device=x.device)
    best_i = None
    for offs in itertools.product(*[range(kd) for kd in k]):  # window taps in (t,) h, w order, as PyTorch scans them
        pos = None
        for d in range(nd):  # flat index of tap offs in every window: sum over dims of start * stride
            stride = math.prod(sizes[d + 1:])
            coord = (starts[d] + offs[d]) * stride
            coord = coord.reshape(n, c, *[out[d] if e == d else 1 for e in range(nd)])
            pos = coord if pos is None else pos + coord
        if best_i is None:
            best_i = pos.expand(n, c, *out)
        v = flat.gather(-1, pos.expand(n, c, *out).reshape(n, c, -1)).reshape(n, c, *out)
        better = (v > best) | v.isnan()
        best, best_i = nb.where(better, v, best), nb.where(better, pos, best_i)
    if input.dim() == nd + 1:
        best, best_i = best.squeeze(0), best_i.squeeze(0)
    return (best, best_i.contiguous()) if return_indices else best


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Max over pseudo-randomly placed kernel_size windows of [N, C, H, W] (or [C, H, W]) to output_size
    (or int(size * output_ratio)); _random_samples [N, C, 2] in [0, 1) fixes the windows."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Max over pseudo-randomly placed kernel_size windows of [N, C, T, H, W] (or [C, T, H, W]); _random_samples
    [N, C, 3] in [0, 1) fixes the windows."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, True, _random_samples, 2)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, True, _random_samples, 3)
