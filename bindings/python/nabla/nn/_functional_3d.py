"""The volumetric (3-d) convolution and pooling of nn.functional, over [N, C, D, H, W] (or
unbatched [C, D, H, W]), composed from their 2-d kernels: the depth dim is folded into the
batch for the 2-d op over (H, W), and the depth taps are gathered with index_select and
combined (summed for conv3d and the average, max for the max pool). Gradients come from
the ops, so every device with the 2-d kernels has these. Shapes, defaults and the output
size rules (ceil_mode, count_include_pad, divisor_override) are PyTorch's."""
from __future__ import annotations

import math

from .._tensor import Tensor
from ._functional_nn import (_conv_padding, _int, _ntuple, _tensor, avg_pool2d, conv2d, conv_transpose2d,
                             max_pool2d)

__all__ = ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]


def _nb():
    import nabla
    return nabla


def _volume(input: Tensor, fname: str) -> tuple[Tensor, bool]:
    if input.dim() == 4:
        return input.unsqueeze(0), True
    if input.dim() != 5:
        raise RuntimeError(f"{fname}: Expected 4D (unbatched) or 5D (batched) input, but got input of size: "
                           f"{list(input.shape)}")
    return input, False


def _taps(x: Tensor, out: int, stride: int, offset: int) -> Tensor:
    """x's depth slices offset, offset + stride, ... (out of them) as [N, C, out, H, W]."""
    nb = _nb()
    return x.index_select(2, nb.arange(offset, offset + stride * (out - 1) + 1, stride, device=x.device)) \
        if out > 0 else x.narrow(2, 0, 0)


def _fold_depth(x: Tensor) -> Tensor:
    """[N, C, D, H, W] -> [N * D, C, H, W]."""
    n, c, d, h, w = x.shape
    return x.permute(0, 2, 1, 3, 4).reshape(n * d, c, h, w)


def _unfold_depth(y: Tensor, n: int, d: int) -> Tensor:
    """[N * D, C, H, W] -> [N, C, D, H, W]."""
    return y.reshape(n, d, *y.shape[1:]).permute(0, 2, 1, 3, 4)


def _pool_out(size: int, k: int, s: int, p: int, dil: int, ceil: bool) -> int:
    """PyTorch's pooling output size (a last window that starts in the right padding is dropped)."""
    span = size + 2 * p - dil * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


# ---- convolution ----

def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """3-D convolution of input [N, C_in, D, H, W] (or [C_in, D, H, W]) with weight
    [C_out, C_in / groups, kD, kH, kW]; padding an int, a triple, 'valid' or 'same'."""
    nb = _nb()
    f = "conv3d"
    _tensor(input, f, "input", 1), _tensor(weight, f, "weight", 2)
    s, d = _ntuple(stride, 3, f, "stride"), _ntuple(dilation, 3, f, "dilation")
    p = _conv_padding(padding, weight, 3, s, d, f)
    x, unbatched = _volume(input, f)
    if weight.dim() != 5:
        raise RuntimeError(f"Expected 5-dimensional input for 5-dimensional weight {list(weight.shape)}, but got "
                           f"{weight.dim()}-dimensional input of size {list(weight.shape)} instead")
    hw = p[1:3]
    if p[1:3] != p[4:6]:  # 'same' with an even kernel: the odd element after, padded here
        x, hw = nb.nn.functional.pad(x, (p[2], p[5], p[1], p[4], 0, 0)), [0, 0]
    if p[0] or p[3]:
        x = nb.nn.functional.pad(x, (0, 0, 0, 0, p[0], p[3]))
    kd = weight.shape[2]
    out_d = (x.shape[2] - d[0] * (kd - 1) - 1) // s[0] + 1
    if out_d <= 0:
        raise RuntimeError(f"Calculated padded input size per channel: ({x.shape[2]} x ...). Kernel size: ({kd} x "
                           f"...). Kernel size can't be greater than actual input size")
    n = x.shape[0]
    y = None
    for t in range(kd):  # one 2-d convolution per depth tap, over every output depth at once
        part = conv2d(_fold_depth(_taps(x, out_d, s[0], t * d[0])), weight[:, :, t], None, s[1:], hw, d[1:],
                      _int(groups, f, "groups"))
        y = part if y is None else y + part
    y = _unfold_depth(y, n, out_d)
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1, 1)
    return y.squeeze(0) if unbatched else y


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """Transposed 3-D convolution of input [N, C_in, D, H, W] (or [C_in, D, H, W]) with weight
    [C_in, C_out / groups, kD, kH, kW]: per depth tap a transposed 2-d convolution of every input
    depth, added at depths i * stride + tap * dilation, then the depth padding cropped."""
    nb = _nb()
    f = "conv_transpose3d"
    _tensor(input, f, "input", 1), _tensor(weight, f, "weight", 2)
    s, p = _ntuple(stride, 3, f, "stride"), _ntuple(padding, 3, f, "padding")
    op, d = _ntuple(output_padding, 3, f, "output_padding"), _ntuple(dilation, 3, f, "dilation")
    x, unbatched = _volume(input, f)
    if weight.dim() != 5:
        raise RuntimeError(f"{f}: weight must be 5-dimensional [C_in, C_out / groups, kD, kH, kW], got "
                           f"{list(weight.shape)}")
    if not op[0] < max(s[0], d[0]):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_depth: {op[0]} stride_depth: {s[0]} dilation_depth: {d[0]}")
    n, depth, kd = x.shape[0], x.shape[2], weight.shape[2]
    full = (depth - 1) * s[0] + d[0] * (kd - 1) + 1 + op[0]
    if full - 2 * p[0] <= 0:
        raise RuntimeError(f"{f}: the output depth {full - 2 * p[0]} is not positive")
    folded, y = _fold_depth(x), None
    for t in range(kd):
        part = _unfold_depth(conv_transpose2d(folded, weight[:, :, t], None, s[1:], p[1:], op[1:],
                                              _int(groups, f, "groups"), d[1:]), n, depth)
        if y is None:
            y = nb.zeros((n, part.shape[1], full, *part.shape[3:]), dtype=part.dtype, device=part.device)
        y = y.index_add(2, nb.arange(t * d[0], t * d[0] + s[0] * (depth - 1) + 1, s[0], device=x.device), part)
    y = y.narrow(2, p[0], full - 2 * p[0])
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1, 1)
    return y.squeeze(0) if unbatched else y


# ---- pooling ----

def _pool_args(kernel_size, stride, padding, dilation, f):
    k = _ntuple(kernel_size, 3, f, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _ntuple(stride, 3, f, "stride")
    p, d = _ntuple(padding, 3, f, "padding"), _ntuple(dilation, 3, f, "dilation")
    for i in range(3):
        if p[i] * 2 > k[i]:
            raise RuntimeError(f"{f}: pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    return k, s, p, d


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over windows of [N, C, D, H, W] (or [C, D, H, W]): the 2-d max over (H, W) for every
    depth, then the max over each depth window (padding counts as -inf). With return_indices, also
    the int64 argmax as a flat index into D * H * W (the first maximum in (d, h, w) order, as PyTorch)."""
    nb = _nb()
    f = "max_pool3d"
    _tensor(input, f, "input", 1)
    k, s, p, d = _pool_args(kernel_size, stride, padding, dilation, f)
    x, unbatched = _volume(input, f)
    n, c, depth, h, w = x.shape
    out_d = _pool_out(depth, k[0], s[0], p[0], d[0], ceil_mode)
    pooled = max_pool2d(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], d[1:], ceil_mode, return_indices)
    planes, idx = pooled if return_indices else (pooled, None)
    planes = planes.reshape(n, c, depth, *planes.shape[2:])
    right = max(0, (out_d - 1) * s[0] + d[0] * (k[0] - 1) + 1 - depth - p[0])
    if p[0] or right:
        planes = nb.nn.functional.pad(planes, (0, 0, 0, 0, p[0], right), value=-math.inf)
    if idx is not None:  # plane index -> flat volume index; padded planes never win (strictly greater below)
        idx = idx.reshape(planes.shape[:2] + (depth,) + planes.shape[3:])
        idx = idx + nb.arange(depth, device=idx.device).reshape(-1, 1, 1) * (h * w)
        if p[0] or right:
            idx = nb.nn.functional.pad(idx, (0, 0, 0, 0, p[0], right))
    y = yi = None
    for t in range(k[0]):
        tap = _taps(planes, out_d, s[0], t * d[0])
        if idx is None:
            y = tap if y is None else nb.maximum(y, tap)
            continue
        tap_i = _taps(idx, out_d, s[0], t * d[0])
        if y is None:
            y, yi = tap, tap_i
        else:
            better = (tap > y) | (tap.isnan() & ~y.isnan())
            y, yi = nb.where(better, tap, y), nb.where(better, tap_i, yi)
    if idx is None:
        return y.squeeze(0) if unbatched else y
    return (y.squeeze(0), yi.squeeze(0)) if unbatched else (y, yi)


def _window_counts(size: int, k: int, s: int, p: int, out: int, include_pad: bool) -> list[int]:
    """Elements each window along one dim averages over (PyTorch's avg_pool rule)."""
    counts = []
    for i in range(out):
        start = i * s - p
        end = min(start + k, size + p)
        counts.append(end - start if include_pad else min(end, size) - max(start, 0))
    return counts


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None) -> Tensor:
    """Mean over windows of [N, C, D, H, W] (or [C, D, H, W]): window sums over (H, W) per depth,
    summed over each depth window, divided by the window's count (per dim, so it multiplies)."""
    nb = _nb()
    f = "avg_pool3d"
    _tensor(input, f, "input", 1)
    k, s, p, _ = _pool_args(kernel_size, stride, padding, 1, f)
    if divisor_override is not None and _int(divisor_override, f, "divisor_override") == 0:
        raise RuntimeError("divisor must be not zero")
    x, unbatched = _volume(input, f)
    n, c, depth, h, w = x.shape
    outs = [_pool_out(size, k[i], s[i], p[i], 1, ceil_mode) for i, size in enumerate((depth, h, w))]
    sums = avg_pool2d(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], ceil_mode, True, 1)
    sums = sums.reshape(n, c, depth, *sums.shape[2:])
    right = max(0, (outs[0] - 1) * s[0] + k[0] - depth - p[0])
    if p[0] or right:
        sums = nb.nn.functional.pad(sums, (0, 0, 0, 0, p[0], right))
    y = None
    for t in range(k[0]):
        tap = _taps(sums, outs[0], s[0], t)
        y = tap if y is None else y + tap
    if divisor_override is not None:
        y = y / divisor_override
    else:
        cd, ch, cw = (_window_counts(size, k[i], s[i], p[i], outs[i], count_include_pad)
                      for i, size in enumerate((depth, h, w)))
        counts = (nb.tensor(cd, dtype=y.dtype, device=y.device).reshape(-1, 1, 1)
                  * nb.tensor(ch, dtype=y.dtype, device=y.device).reshape(1, -1, 1)
                  * nb.tensor(cw, dtype=y.dtype, device=y.device).reshape(1, 1, -1))
        y = y / counts
    return y.squeeze(0) if unbatched else y


# ---- adaptive pooling ----

def _adaptive_sizes(input: Tensor, output_size, f: str) -> list[int]:
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 3:
            raise RuntimeError(f"{f}: internal error: output_size.size() must be 3")
        return [input.shape[-3 + i] if v is None else _int(v, f, "output_size") for i, v in enumerate(output_size)]
    return [_int(output_size, f, "output_size")] * 3


def _nonempty(x: Tensor, input: Tensor, f: str) -> None:
    for i in range(1, 5):
        if x.shape[i] == 0:
            raise RuntimeError(f"{f}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i - (5 - input.dim())} being empty")


def _adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def adaptive_avg_pool3d(input, output_size) -> Tensor:
    """The mean of PyTorch's adaptive windows of [N, C, D, H, W] (or [C, D, H, W]): one averaging
    matrix per dim (window start floor(i * n / out), end ceil((i + 1) * n / out)), applied in turn."""
    nb = _nb()
    f = "adaptive_avg_pool3d"
    _tensor(input, f, "input", 1)
    x, unbatched = _volume(input, f)
    outs = _adaptive_sizes(x, output_size, f)
    _nonempty(x, input, f)
    for i, out in enumerate(outs):
        size = x.shape[2 + i]
        m = [[0.0] * size for _ in range(out)]
        for r, (a, b) in enumerate(_adaptive_windows(size, out)):
            for j in range(a, b):
                m[r][j] = 1.0 / (b - a)
        avg = nb.tensor(m, dtype=x.dtype, device=x.device)  # [out, size]
        x = (x.movedim(2 + i, -1) @ avg.t()).movedim(-1, 2 + i)
    return x.squeeze(0) if unbatched else x


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The max over PyTorch's adaptive windows of [N, C, D, H, W] (or [C, D, H, W]), one dim at a time."""
    nb = _nb()
    f = "adaptive_max_pool3d"
    if return_indices:
        raise NotImplementedError("adaptive_max_pool3d: return_indices=True is not supported by nabla")
    _tensor(input, f, "input", 1)
    x, unbatched = _volume(input, f)
    outs = _adaptive_sizes(x, output_size, f)
    _nonempty(x, input, f)
    for i, out in enumerate(outs):
        dim = 2 + i
        x = nb.stack([x.narrow(dim, a, b - a).amax(dim) for a, b in _adaptive_windows(x.shape[dim], out)], dim)
    return x.squeeze(0) if unbatched else x
