"""nn.functional layers over spatial inputs written as compositions of nabla ops (gradients come
from the ops): local_response_norm, lp_pool1d/2d, unfold / fold (im2col / col2im through
strided views and index_add), pdist, bilinear, channel_shuffle, upsample_nearest /
upsample_bilinear, affine_grid, grid_sample (2-d; bilinear / nearest, zeros / border /
reflection), conv_transpose1d and max_unpool1d/2d."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._tensor import Tensor

__all__ = ["GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "local_response_norm", "lp_pool1d", "lp_pool2d", "unfold", "fold", "pdist", "bilinear",
           "channel_shuffle", "native_channel_shuffle", "upsample_nearest", "upsample_bilinear", "affine_grid",
           "grid_sample", "conv_transpose1d", "max_unpool1d", "max_unpool2d"]


GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def _nb():
    import nabla
    return nabla


def _tuple(v, n: int) -> list:
    return [int(v)] * n if isinstance(v, numbers.Integral) else [int(x) for x in v]


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of input^2 over a window of size channels around each one)^beta; [N, C, *]."""
    nb = _nb()
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {input.dim()} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    pad = [0, 0] * (input.dim() - 2) + [size // 2, (size - 1) // 2]
    padded = nb.nn.functional.pad(sq, pad)
    div = padded.narrow(1, 0, c)
    for i in range(1, size):
        div = div + padded.narrow(1, i, c)
    return input / (div * (alpha / size) + k).pow(beta)


def lp_pool1d(input: Tensor, norm_type, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) over [N, C, L]."""
    nb = _nb()
    k = _tuple(kernel_size, 1)[0]
    out = nb.nn.functional.avg_pool1d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(k).pow(1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) over [N, C, H, W]."""
    nb = _nb()
    kh, kw = _tuple(kernel_size, 2)
    out = nb.nn.functional.avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kh * kw).pow(1.0 / norm_type)


def _im2col_args(fname: str, kernel_size, dilation, padding, stride):
    args = [_tuple(v, 2) for v in (kernel_size, dilation, padding, stride)]
    names = ("kernel_size", "dilation", "padding", "stride")
    for name, v, low in zip(names, args, (1, 1, 0, 1)):
        if len(v) != 2:
            raise RuntimeError(f"{fname}: {name} must be 2D, but got {len(v)}D")
        if min(v) < low:
            what = "non-negative" if low == 0 else "greater than zero"
            raise RuntimeError(f"{fname}: {name} should be {what}, but got {name}: {v[0]} {v[1]}")
    return args


def _taps(k: int, dilation: int, n: int, stride: int, device) -> Tensor:
    """[k, n]: the padded-input position of kernel tap i at block j along one axis."""
    nb = _nb()
    return (nb.arange(k, device=device) * dilation).reshape(k, 1) + (nb.arange(n, device=device) * stride).reshape(1, n)


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """im2col: the sliding blocks of [N, C, H, W] (or [C, H, W]) as columns, [N, C * kH * kW, L]."""
    nb = _nb()
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _im2col_args("im2col", kernel_size, dilation, padding, stride)
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    if ph or pw:
        x = nb.nn.functional.pad(x, [pw, pw, ph, ph])
    n, c, h, w = x.shape
    oh, ow = (h - (dh * (kh - 1) + 1)) // sh + 1, (w - (dw * (kw - 1) + 1)) // sw + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h - 2 * ph}, {w - 2 * pw}), kernel_size=({kh}, {kw}), "
                           f"dilation=({dh}, {dw}), padding=({ph}, {pw}), calculated shape of the array of sliding "
                           f"blocks as ({oh}, {ow}), but its components must be at least one.")
    rows, cols = _taps(kh, dh, oh, sh, x.device), _taps(kw, dw, ow, sw, x.device)
    blocks = x.index_select(2, rows.reshape(-1)).index_select(3, cols.reshape(-1))  # [N, C, kh * oh, kw * ow]
    cols = blocks.reshape(n, c, kh, oh, kw, ow).permute(0, 1, 2, 4, 3, 5).reshape(n, c * kh * kw, oh * ow)
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """col2im: sums the columns [N, C * kH * kW, L] (or unbatched) back into [N, C, H, W], overlaps added."""
    nb = _nb()
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _im2col_args("col2im", kernel_size, dilation, padding, stride)
    out_h, out_w = _tuple(output_size, 2)
    if input.dim() not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.dim()}D)")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ckk, length = x.shape
    if ckk % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ckk} and kernel_size=({kh}, {kw})")
    hp, wp = out_h + 2 * ph, out_w + 2 * pw
    oh, ow = (hp - (dh * (kh - 1) + 1)) // sh + 1, (wp - (dw * (kw - 1) + 1)) // sw + 1
    if oh * ow != length:
        raise RuntimeError(f"Given output_size=({out_h}, {out_w}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
                           f"padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's dimension 2 to match "
                           f"the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                           f"input.size(2)={length}.")
    c = ckk // (kh * kw)
    # flat position in the padded [Hp, Wp] plane of kernel tap (i, j) at block (y, x): [kh, kw, oh, ow]
    dev = x.device
    rows, cols = _taps(kh, dh, oh, sh, dev), _taps(kw, dw, ow, sw, dev)
    flat = (rows.reshape(kh, 1, oh, 1) * wp + cols.reshape(1, kw, 1, ow)).reshape(-1)
    plane = nb.zeros(n, c, hp * wp, dtype=x.dtype, device=dev).index_add(2, flat, x.reshape(n, c, -1))
    out = plane.reshape(n, c, hp, wp)[:, :, ph:ph + out_h, pw:pw + out_w]
    return out.squeeze(0) if unbatched else out


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between every pair of rows i < j of [N, M], as [N (N - 1) / 2]."""
    nb = _nb()
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = (nb.tensor(a, dtype=nb.int64, device=input.device) for a in np.triu_indices(input.shape[0], 1))
    return nb.linalg.vector_norm(input.index_select(0, i) - input.index_select(0, j), p, dim=1)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y[..., o] = input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    nb = _nb()
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if weight.dim() != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input sizes do not match weight: got inputs {list(input1.shape)}, "
                           f"{list(input2.shape)} and weight {list(weight.shape)}")
    lead = input1.shape[:-1]
    x1, x2 = input1.reshape(-1, input1.shape[-1]), input2.reshape(-1, input2.shape[-1])
    o, i, j = weight.shape
    # (x1 W_o) . x2 for every o: [B, I] @ [I, O * J] -> [B, O, J], times x2 [B, 1, J], summed over J
    t = x1.matmul(weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, o)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """[N, C, *] with the channels of each of groups groups interleaved: [N, g, C / g, *] -> [N, C / g, g, *]."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return _nb().nn.functional.interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return _nb().nn.functional.interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _base_coords(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalized pixel centres of an axis of n pixels, in [-1, 1]."""
    nb = _nb()
    if n <= 1:
        return nb.zeros(max(n, 0), dtype=like.dtype, device=like.device)
    r = nb.linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return r if align_corners else r * ((n - 1) / n)


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps theta [N, 2, 3] (or [N, 3, 4])."""
    nb = _nb()
    align_corners = bool(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{list(theta.shape)}.")
        n, _, h, w = size
        xs, ys = _base_coords(w, align_corners, theta), _base_coords(h, align_corners, theta)
        base = nb.stack([xs.reshape(1, w).expand(h, w), ys.reshape(h, 1).expand(h, w), nb.ones(h, w, dtype=theta.dtype,
                         device=theta.device)], -1)  # [H, W, 3]
        return base.reshape(1, h * w, 3).matmul(theta.transpose(1, 2)).reshape(n, h, w, 2)
    if len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{list(theta.shape)}.")
        n, _, d, h, w = size
        xs, ys = _base_coords(w, align_corners, theta), _base_coords(h, align_corners, theta)
        zs = _base_coords(d, align_corners, theta)
        base = nb.stack([xs.reshape(1, 1, w).expand(d, h, w), ys.reshape(1, h, 1).expand(d, h, w),
                         zs.reshape(d, 1, 1).expand(d, h, w), nb.ones(d, h, w, dtype=theta.dtype,
                                                                        device=theta.device)], -1)
        return base.reshape(1, d * h * w, 4).matmul(theta.transpose(1, 2)).reshape(n, d, h, w, 3)
    raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                              f"respectively. Got size {size}.")


def _reflect(x: Tensor, low: float, high: float) -> Tensor:
    """x reflected into [low, high] off both ends (PyTorch's reflect_coordinates)."""
    nb = _nb()
    if low == high:
        return nb.zeros_like(x)
    span = high - low
    d = (x - low).abs()
    flips = (d / span).floor()
    extra = d - flips * span
    even = nb.remainder(flips, 2) == 0
    return nb.where(even, extra + low, span - extra + low)


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """A normalized coordinate in [-1, 1] as a pixel position, with border / reflection applied."""
    x = (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2
    if padding_mode == "reflection":
        x = _reflect(x, 0, size - 1) if align_corners else _reflect(x, -0.5, size - 0.5)
    if padding_mode != "zeros":  # clipped, with no gradient on or past the edges (PyTorch's clip_coordinates)
        x = _nb().where((x > 0) & (x < size - 1), x, x.clamp(0, size - 1).detach())
    return x


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None) -> Tensor:
    """Samples [N, C, H, W] at the normalized (x, y) positions of grid [N, Ho, Wo, 2] -> [N, C, Ho, Wo]."""
    nb = _nb()
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if mode == "bicubic" or input.dim() != 4:
        raise NotImplementedError("grid_sample: nabla implements 4-D input with mode 'bilinear' or 'nearest'")
    if grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid of shape [{input.shape[0]}, H, W, 2] for input of "
                           f"shape {list(input.shape)}, but got grid of shape {list(grid.shape)}")
    align_corners = bool(align_corners)
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    x = _source(grid[..., 0], w, padding_mode, align_corners)  # [N, Ho, Wo]
    y = _source(grid[..., 1], h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)

    def tap(yi: Tensor, xi: Tensor) -> Tensor:
        """input at integer (yi, xi) [N, Ho, Wo], zero outside: [N, C, Ho, Wo]."""
        inside = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
        idx = (yi.clamp(0, h - 1) * w + xi.clamp(0, w - 1)).long().reshape(n, 1, ho * wo).expand(n, c, ho * wo)
        v = flat.gather(2, idx).reshape(n, c, ho, wo)
        return v * inside.unsqueeze(1).to(v.dtype)

    if mode == "nearest":
        return tap(nb.round(y.detach()), nb.round(x.detach()))
    x0, y0 = x.detach().floor(), y.detach().floor()
    wx1, wy1 = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    return (tap(y0, x0) * wy0 * wx0 + tap(y0, x0 + 1) * wy0 * wx1 + tap(y0 + 1, x0) * wy1 * wx0
            + tap(y0 + 1, x0 + 1) * wy1 * wx1)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """Transposed 1-d convolution of [N, C_in, L] (or [C_in, L]) with weight [C_in, C_out / groups, kL], through
    conv_transpose2d over a height of 1."""
    nb = _nb()
    if input.dim() not in (2, 3):
        raise RuntimeError(f"conv_transpose1d: Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, "
                           f"but got input of size: {list(input.shape)}")
    if weight.dim() != 3:
        raise RuntimeError(f"conv_transpose1d: expected weight of 3 dims [C_in, C_out / groups, kL], got "
                           f"{list(weight.shape)}")
    one = [_tuple(v, 1)[0] for v in (stride, padding, output_padding, dilation)]
    y = nb.nn.functional.conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, one[0]),
                                          (0, one[1]), (0, one[2]), groups, (1, one[3]))
    return y.squeeze(-2)


def _unpool(fname: str, input: Tensor, indices: Tensor, kernel: list, stride: list, padding: list,
            output_size) -> Tensor:
    """Scatters input [N, C, *in] to the flat positions indices into zeros of [N, C, *out]."""
    nb = _nb()
    nd = len(kernel)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fname}: expected input of {nd + 1} or {nd + 2} dims, got {list(input.shape)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    spatial = list(input.shape[-nd:])
    default = [(spatial[d] - 1) * stride[d] - 2 * padding[d] + kernel[d] for d in range(nd)]
    if output_size is None:
        out = default
    else:
        out = [int(s) for s in output_size][-nd:]
        if len(out) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(list(output_size))}'")
        for d in range(nd):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < out[d] < hi:
                raise ValueError(f'invalid output_size "{out}" (dim {d} must be between {lo} and {hi})')
    lead = list(input.shape[:-nd])
    total = 1
    for s in out:
        total *= s
    flat_in, flat_idx = input.reshape(*lead, -1), indices.reshape(*lead, -1).long()
    if flat_idx.numel() and (bool((flat_idx < 0).any()) or bool((flat_idx >= total).any())):
        raise RuntimeError(f"Found an invalid max index: {int(flat_idx.max())} (output volumes are of size "
                           f"{'x'.join(str(s) for s in out)}")
    result = nb.zeros(*lead, total, dtype=input.dtype, device=input.device).scatter(-1, flat_idx, flat_in)
    return result.reshape(*lead, *out)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The inverse of max_pool1d: each value of [N, C, L] put at its index of the output, zeros elsewhere."""
    k = _tuple(kernel_size, 1)
    s = _tuple(stride, 1) if stride is not None else k
    return _unpool("max_unpool1d", input, indices, k, s, _tuple(padding, 1), output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The inverse of max_pool2d: each value of [N, C, H, W] put at its flat index of the output plane."""
    k = _tuple(kernel_size, 2)
    s = _tuple(stride, 2) if stride is not None else k
    return _unpool("max_unpool2d", input, indices, k, s, _tuple(padding, 2), output_size)
