"""nabla.nn.functional convolutions, pooling, normalization, losses, embedding and
pad: each against a float64 NumPy reference written here and, when PyTorch is
installed, against torch.nn.functional over a grid of shapes and arguments;
every error path with its message; nothing leaks on failure."""
from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

RNG = np.random.default_rng(20240611)
TOL = {nabla.float32: 2e-5, nabla.float64: 1e-11, nabla.float16: 4e-3, nabla.bfloat16: 3e-2}


def nb(a, dtype=None) -> nabla.Tensor:
    return nabla.tensor(np.asarray(a), dtype=dtype)


def npy(t: nabla.Tensor) -> np.ndarray:
    if t.dtype in (nabla.float16, nabla.bfloat16):
        t = t.float()
    return t.numpy().astype(np.float64) if t.is_floating_point() else t.numpy()


def close(got: nabla.Tensor, want, dtype=nabla.float32, scale: float = 1.0) -> None:
    want = np.asarray(want, dtype=np.float64)
    assert isinstance(got, nabla.Tensor)
    assert got.dtype == dtype, (got.dtype, dtype)
    assert tuple(got.shape) == want.shape, (tuple(got.shape), want.shape)
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(npy(got), want, rtol=tol, atol=tol, equal_nan=True)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def strided(a: np.ndarray) -> nabla.Tensor:
    """a as a non-contiguous nabla tensor (a permuted view of a reversed-dim copy)."""
    nd = a.ndim
    rev = tuple(range(nd - 1, -1, -1))
    t = nabla.tensor(np.ascontiguousarray(a.transpose(rev))).permute(*rev)
    assert not t.is_contiguous() or a.size <= 1 or sum(s > 1 for s in a.shape) <= 1
    return t


def leak_free(fn):
    """Runs fn (which must raise) and checks no tensor is left behind."""
    before = nabla.memory.stats()["live_tensors"]
    fn()
    assert nabla.memory.stats()["live_tensors"] == before


# ---------------------------------------------------------------- references

def conv2d_ref(x, w, b=None, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1):
    """pad = (top, left, bottom, right), as nb_conv2d."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    OH = (xp.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    OW = (xp.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((N, O, OH, OW))
    Og = O // groups
    for g in range(groups):
        xs, ws = xp[:, g * Cg:(g + 1) * Cg], w[g * Og:(g + 1) * Og]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dil[0]:i * dil[0] + stride[0] * (OH - 1) + 1:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * (OW - 1) + 1:stride[1]]
                out[:, g * Og:(g + 1) * Og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out


def conv_transpose2d_ref(x, w, b=None, stride=(1, 1), pad=(0, 0), outpad=(0, 0), dil=(1, 1), groups=1):
    x, w = x.astype(np.float64), w.astype(np.float64)
    N, C, H, W = x.shape
    _, Og, kh, kw = w.shape
    Cg = C // groups
    FH = (H - 1) * stride[0] + dil[0] * (kh - 1) + 1 + outpad[0]
    FW = (W - 1) * stride[1] + dil[1] * (kw - 1) + 1 + outpad[1]
    full = np.zeros((N, Og * groups, FH, FW))
    for g in range(groups):
        xs, ws = x[:, g * Cg:(g + 1) * Cg], w[g * Cg:(g + 1) * Cg]
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xs, ws[:, :, i, j])
                full[:, g * Og:(g + 1) * Og, i * dil[0]:i * dil[0] + stride[0] * (H - 1) + 1:stride[0],
                     j * dil[1]:j * dil[1] + stride[1] * (W - 1) + 1:stride[1]] += contrib
    out = full[:, :, pad[0]:FH - pad[0], pad[1]:FW - pad[1]]
    if b is not None:
        out = out + b.astype(np.float64)[None, :, None, None]
    return out


def pool_out(n, k, p, s, d, ceil):
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = num // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def max_pool_ref(x, k, s, p, d, ceil):
    N, C, H, W = x.shape
    OH, OW = pool_out(H, k[0], p[0], s[0], d[0], ceil), pool_out(W, k[1], p[1], s[1], d[1], ceil)
    out, idx = np.zeros((N, C, OH, OW)), np.zeros((N, C, OH, OW), np.int64)
    for oh in range(OH):
        for ow in range(OW):
            hs = [h for h in range(oh * s[0] - p[0], oh * s[0] - p[0] + d[0] * (k[0] - 1) + 1, d[0]) if 0 <= h < H]
            ws = [w for w in range(ow * s[1] - p[1], ow * s[1] - p[1] + d[1] * (k[1] - 1) + 1, d[1]) if 0 <= w < W]
            win = x[:, :, hs][:, :, :, ws].reshape(N, C, -1).astype(np.float64)
            flat = np.array([h * W + w for h in hs for w in ws])
            a = np.argmax(win, axis=2)
            out[:, :, oh, ow] = np.take_along_axis(win, a[..., None], 2)[..., 0]
            idx[:, :, oh, ow] = flat[a]
    return out, idx


def avg_pool_ref(x, k, s, p, ceil, include_pad, divisor):
    N, C, H, W = x.shape
    OH, OW = pool_out(H, k[0], p[0], s[0], 1, ceil), pool_out(W, k[1], p[1], s[1], 1, ceil)
    out = np.zeros((N, C, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
            h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
            size = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            total = x[:, :, h0:h1, w0:w1].astype(np.float64).sum(axis=(2, 3))
            div = divisor or (size if include_pad else (h1 - h0) * (w1 - w0))
            out[:, :, oh, ow] = total / div
    return out


def adaptive_avg_ref(x, oh, ow):
    N, C, H, W = x.shape
    out = np.zeros((N, C, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, h1 = i * H // oh, -(-(i + 1) * H // oh)
            w0, w1 = j * W // ow, -(-(j + 1) * W // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].astype(np.float64).mean(axis=(2, 3))
    return out


def layer_norm_ref(x, nd, w=None, b=None, eps=1e-5):
    x = x.astype(np.float64)
    axes = tuple(range(x.ndim - nd, x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def batch_norm_ref(x, rm, rv, w, b, training, momentum, eps):
    x = x.astype(np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = x.mean(axes), x.var(axes)
        n = x.size // x.shape[1]
        new_rm = None if rm is None else (1 - momentum) * rm + momentum * mean
        new_rv = None if rv is None else (1 - momentum) * rv + momentum * var * n / (n - 1)
    else:
        mean, var, new_rm, new_rv = rm, rv, rm, rv
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y, new_rm, new_rv


def group_norm_ref(x, G, w=None, b=None, eps=1e-5):
    x = x.astype(np.float64)
    N, C = x.shape[:2]
    g = x.reshape(N, G, -1)
    y = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def log_softmax(x, axis):
    x = x.astype(np.float64)
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def nll_ref(logp, t, w=None, ignore=-100, reduction="mean", smoothing=0.0):
    """logp [N, C, *] float64, t [N, *]; PyTorch's nll_loss plus cross_entropy's label smoothing."""
    C = logp.shape[1]
    w = np.ones(C) if w is None else w.astype(np.float64)
    mask = t != ignore
    tc = np.where(mask, t, 0)
    picked = np.take_along_axis(logp, tc[:, None], 1)[:, 0]
    wt = np.where(mask, w[tc], 0.0)
    loss = -wt * picked
    smooth = np.where(mask, -(logp * w.reshape((1, -1) + (1,) * (logp.ndim - 2))).sum(1), 0.0)
    loss = (1 - smoothing) * loss + smoothing / C * smooth
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def prob_ce_ref(x, t, w=None, reduction="mean", smoothing=0.0):
    C = x.shape[1]
    lp = log_softmax(x, 1)
    t = t.astype(np.float64) * (1 - smoothing) + smoothing / C
    w = np.ones(C) if w is None else w.astype(np.float64)
    loss = -(lp * t * w.reshape((1, -1) + (1,) * (x.ndim - 2))).sum(1)
    return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / loss.size}[reduction]


def reduce_ref(v, reduction):
    return {"none": v, "mean": np.mean(v), "sum": np.sum(v)}[reduction]


def pad_ref(x, pad, mode, value=0.0):
    nd = len(pad) // 2
    widths = [(0, 0)] * (x.ndim - nd) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(nd))]
    crop = tuple(slice(max(-a, 0), x.shape[d] - max(-b, 0)) for d, (a, b) in enumerate(widths))
    x = x[crop]
    widths = [(max(a, 0), max(b, 0)) for a, b in widths]
    np_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x, widths, mode=np_mode, **kw)


# ---------------------------------------------------------------- convolution

CONV2D_CASES = [
    # N, C, H, W, O, kh, kw, stride, padding, dilation, groups
    (2, 3, 7, 6, 4, 3, 3, 1, 0, 1, 1),
    (1, 4, 9, 8, 6, 3, 2, (2, 1), (1, 2), (1, 2), 2),
    (3, 6, 5, 5, 6, 1, 1, 1, 0, 1, 3),
    (2, 4, 6, 7, 8, 1, 1, 1, 0, 1, 1),
    (1, 2, 11, 10, 3, 5, 4, 3, 2, 2, 1),
    (2, 8, 6, 6, 8, 3, 3, 2, 1, 1, 8),
    (0, 3, 5, 5, 2, 3, 3, 1, 1, 1, 1),
    (1, 1, 4, 4, 2, 4, 4, 1, 0, 1, 1),
]


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


@pytest.mark.parametrize("case", CONV2D_CASES)
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv2d_matches_numpy(case, with_bias):
    N, C, H, W, O, kh, kw, stride, padding, dilation, groups = case
    x, w = randn(N, C, H, W), randn(O, C // groups, kh, kw)
    b = randn(O) if with_bias else None
    got = F.conv2d(nb(x), nb(w), nb(b) if with_bias else None, stride, padding, dilation, groups)
    p = _pair(padding)
    close(got, conv2d_ref(x, w, b, _pair(stride), p + p, _pair(dilation), groups))


@pytest.mark.parametrize("dtype", [nabla.float64, nabla.float16, nabla.bfloat16])
def test_conv2d_dtypes(dtype):
    x, w, b = randn(2, 4, 6, 5), randn(6, 2, 3, 3), randn(6)
    xt, wt, bt = (nb(a).to(dtype) for a in (x, w, b))
    ref = conv2d_ref(npy(xt), npy(wt), npy(bt), (1, 1), (1, 1, 1, 1), (1, 1), 2)
    close(F.conv2d(xt, wt, bt, padding=1, groups=2), ref, dtype, scale=8 if dtype != nabla.float64 else 1)


def test_conv2d_noncontiguous_and_unbatched():
    x, w, b = randn(2, 3, 8, 7), randn(5, 3, 3, 3), randn(5)
    close(F.conv2d(strided(x), strided(w), nb(b), padding=(2, 1), stride=2),
          conv2d_ref(x, w, b, (2, 2), (2, 1, 2, 1)))
    got = F.conv2d(nb(x[0]), nb(w), nb(b))
    close(got, conv2d_ref(x[:1], w, b)[0])


@pytest.mark.parametrize("k,dil", [(3, 1), (4, 1), (2, 3), (5, 2)])
def test_conv_padding_same_and_valid(k, dil):
    x, w = randn(2, 3, 11, 10), randn(4, 3, k, k)
    total = dil * (k - 1)
    p = (total // 2, total // 2, total - total // 2, total - total // 2)
    got = F.conv2d(nb(x), nb(w), padding="same", dilation=dil)
    assert tuple(got.shape) == (2, 4, 11, 10)
    close(got, conv2d_ref(x, w, None, (1, 1), p, (dil, dil)))
    close(F.conv2d(nb(x), nb(w), padding="valid", dilation=dil), conv2d_ref(x, w, None, (1, 1), (0, 0, 0, 0), (dil, dil)))
    x1, w1 = randn(2, 3, 10), randn(4, 3, k)
    got1 = F.conv1d(nb(x1), nb(w1), padding="same", dilation=dil)
    close(got1, conv2d_ref(x1[:, :, None], w1[:, :, None], None, (1, 1), (0, p[1], 0, p[3]), (1, dil))[:, :, 0])


@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 1, 1, 1), (3, 2, 2, 2), (1, 3, 1, 4)])
def test_conv1d_matches_numpy(stride, padding, dilation, groups):
    x, w, b = randn(3, 4, 13), randn(8, 4 // groups, 3), randn(8)
    got = F.conv1d(nb(x), nb(w), nb(b), stride, padding, dilation, groups)
    want = conv2d_ref(x[:, :, None], w[:, :, None], b, (1, stride), (0, padding, 0, padding), (1, dilation), groups)
    close(got, want[:, :, 0])
    close(F.conv1d(nb(x[1]), nb(w), nb(b), stride, padding, dilation, groups), want[1, :, 0])


CONVT_CASES = [
    # N, C, H, W, Og, kh, kw, stride, padding, output_padding, dilation, groups
    (2, 3, 4, 5, 2, 3, 3, 1, 0, 0, 1, 1),
    (1, 4, 5, 4, 3, 3, 2, 2, 1, 1, 1, 2),
    (2, 2, 3, 3, 4, 2, 2, 2, 0, 0, 1, 1),
    (1, 6, 4, 4, 1, 3, 3, (2, 3), (1, 0), (1, 2), (2, 1), 3),
    (3, 1, 1, 1, 5, 1, 1, 1, 0, 0, 1, 1),
]


@pytest.mark.parametrize("case", CONVT_CASES)
def test_conv_transpose2d_matches_numpy(case):
    N, C, H, W, Og, kh, kw, stride, padding, outpad, dilation, groups = case
    x, w, b = randn(N, C, H, W), randn(C, Og, kh, kw), randn(Og * groups)
    got = F.conv_transpose2d(nb(x), nb(w), nb(b), stride, padding, outpad, groups, dilation)
    close(got, conv_transpose2d_ref(x, w, b, _pair(stride), _pair(padding), _pair(outpad), _pair(dilation), groups))
    got = F.conv_transpose2d(strided(x), nb(w), None, stride, padding, outpad, groups, dilation)
    close(got, conv_transpose2d_ref(x, w, None, _pair(stride), _pair(padding), _pair(outpad), _pair(dilation), groups))


def test_conv_large_enough_to_tile_and_thread():
    x, w, b = randn(3, 16, 40, 40), randn(24, 16, 3, 3), randn(24)
    close(F.conv2d(nb(x), nb(w), nb(b), padding=1), conv2d_ref(x, w, b, (1, 1), (1, 1, 1, 1)), scale=5)
    x, w = randn(1, 8, 30, 30), randn(8, 16, 3, 3)
    close(F.conv_transpose2d(nb(x), nb(w), stride=2), conv_transpose2d_ref(x, w, None, (2, 2)), scale=5)
    x64, w64 = randn(2, 70, 12, 12, dtype=np.float64), randn(10, 70, 3, 3, dtype=np.float64)
    close(F.conv2d(nb(x64), nb(w64)), conv2d_ref(x64, w64), nabla.float64)


def test_conv_errors():
    x = nb(randn(2, 3, 5, 5))
    cases = [
        (lambda: F.conv2d(nb(randn(2, 3)), nb(randn(4, 3, 3, 3))),
         "conv2d: expected input with 4 dims [N, C, H, W], got [2, 3]"),
        (lambda: F.conv2d(nb(randn(1, 2, 3, 28, 28)), nb(randn(4, 3, 3, 3))),
         "conv2d: expected input with 4 dims [N, C, H, W], got [1, 2, 3, 28, 28]"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3))), "conv2d: expected weight with 4 dims"),
        (lambda: F.conv2d(x, nb(randn(4, 2, 3, 3))),
         "conv2d: Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] to have 2 channels, "
         "but got 3 channels instead"),
        (lambda: F.conv2d(nb(randn(2, 4, 5, 5)), nb(randn(3, 2, 3, 3)), groups=2),
         "conv2d: Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
         "[3, 2, 3, 3] instead"),
        (lambda: F.conv2d(x, nb(randn(4, 1, 3, 3)), groups=2), "expected input[2, 3, 5, 5] to have 2 channels"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), nb(randn(3))),
         "conv2d: Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias "
         "of size [3] instead"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 7, 7))),
         "conv2d: Calculated padded input size per channel: (5 x 5). Kernel size: (7 x 7). Kernel size can't be "
         "greater than actual input size"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), dilation=3),
         "Calculated padded input size per channel: (5 x 5). Kernel size: (7 x 7)"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), stride=0), "conv2d: non-positive stride is not supported"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), padding=-1), "conv2d: negative padding is not supported"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), dilation=0), "conv2d: non-positive dilation is not supported"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), groups=0), "conv2d: non-positive groups is not supported"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3, dtype=np.float64))),
         "conv2d: input type (float32) and weight type (float64) should be the same"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), nb(randn(4, dtype=np.float64))),
         "conv2d: input type (float32) and bias type (float64) should be the same"),
        (lambda: F.conv2d(nb(np.ones((1, 3, 5, 5), np.int64)), nb(np.ones((4, 3, 3, 3), np.int64))),
         "conv2d: not implemented for 'int64'"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), padding="same", stride=2),
         "padding='same' is not supported for strided convolutions"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), padding="full"), "Invalid padding string: 'full'"),
        (lambda: F.conv2d(x, nb(randn(4, 3, 3, 3)), stride=(1, 1, 1)), "stride"),
        (lambda: F.conv1d(nb(randn(2, 3, 4, 5)), nb(randn(4, 3, 3))),
         "conv1d: expected input with 3 dims [N, C, L], got [2, 3, 4, 5]"),
        (lambda: F.conv1d(nb(randn(2, 3, 5)), nb(randn(4, 2, 3))),
         "conv1d: Given groups=1, weight of size [4, 2, 3], expected input[2, 3, 5] to have 2 channels"),
        (lambda: F.conv1d(nb(randn(2, 3, 2)), nb(randn(4, 3, 3))),
         "conv1d: Calculated padded input size per channel: (2). Kernel size: (3)"),
        (lambda: F.conv_transpose2d(x, nb(randn(4, 2, 3, 3))),
         "conv_transpose2d: Given transposed=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] to have 4 "
         "channels, but got 3 channels instead"),
        (lambda: F.conv_transpose2d(x, nb(randn(3, 2, 3, 3)), output_padding=1),
         "conv_transpose2d: output padding must be smaller than either stride or dilation, but got "
         "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 "
         "dilation_width: 1"),
        (lambda: F.conv_transpose2d(nb(randn(1, 3, 1, 1)), nb(randn(3, 2, 1, 1)), padding=1),
         "conv_transpose2d: Given input size per channel: (1 x 1). Calculated output size per channel: (-1 x -1). "
         "Output size is too small"),
        (lambda: F.conv_transpose2d(x, nb(randn(3, 2, 3, 3)), groups=2),
         "conv_transpose2d: Given groups=2, expected weight to be divisible by 2 at dimension 0"),
    ]
    for call, message in cases:
        def run():
            with pytest.raises(RuntimeError, match=re.escape(message)):
                call()
        leak_free(run)
    with pytest.raises(TypeError, match="argument 'input'"):
        F.conv2d(np.zeros((1, 1, 3, 3)), nb(randn(1, 1, 1, 1)))


# ---------------------------------------------------------------- pooling

POOL_CASES = [
    # kernel, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), (2, 1), True),
    (2, 3, 0, 1, True),
    ((1, 4), 1, (0, 2), 1, False),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_values_and_indices(case):
    k, s, p, d, ceil = case
    x = randn(2, 3, 9, 8)
    y, idx = F.max_pool2d(nb(x), k, s, p, d, ceil, return_indices=True)
    s2 = _pair(s) if s is not None else _pair(k)
    want, want_idx = max_pool_ref(x, _pair(k), s2, _pair(p), _pair(d), ceil)
    close(y, want)
    assert idx.dtype == nabla.int64
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    close(F.max_pool2d(strided(x), k, s, p, d, ceil), want)
    y3, i3 = F.max_pool2d(nb(x[0]), k, s, p, d, ceil, return_indices=True)
    close(y3, want[0])
    np.testing.assert_array_equal(i3.numpy(), want_idx[0])


def test_max_pool2d_nan_and_dtypes():
    x = np.array([[[[1.0, np.nan, 3.0, 2.0], [0.0, 5.0, np.nan, 1.0]]]], np.float32)
    y, i = F.max_pool2d(nb(x), 2, return_indices=True)
    assert np.isnan(y.numpy()).all()
    np.testing.assert_array_equal(i.numpy(), [[[[1, 6]]]])
    x = randn(1, 2, 6, 6)
    for dtype in (nabla.float64, nabla.float16, nabla.bfloat16):
        xt = nb(x).to(dtype)
        close(F.max_pool2d(xt, 3, 2, 1), max_pool_ref(npy(xt), (3, 3), (2, 2), (1, 1), (1, 1), False)[0], dtype)


@pytest.mark.parametrize("case", [(2, None, 0, False, True, None), (3, 2, 1, False, True, None),
                                  (3, 2, 1, True, False, None), (3, 2, 1, True, True, None),
                                  ((3, 2), (2, 3), (1, 1), True, False, 5), (2, 1, 1, False, True, 3)])
def test_avg_pool2d(case):
    k, s, p, ceil, include_pad, divisor = case
    x = randn(2, 3, 7, 8)
    s2 = _pair(s) if s is not None else _pair(k)
    want = avg_pool_ref(x, _pair(k), s2, _pair(p), ceil, include_pad, divisor)
    close(F.avg_pool2d(nb(x), k, s, p, ceil, include_pad, divisor), want)
    close(F.avg_pool2d(strided(x), k, s, p, ceil, include_pad, divisor), want)
    close(F.avg_pool2d(nb(x[1]), k, s, p, ceil, include_pad, divisor), want[1])
    close(F.avg_pool2d(nb(x, nabla.float64), k, s, p, ceil, include_pad, divisor), want, nabla.float64)


@pytest.mark.parametrize("out", [1, 3, (4, 5), (7, 8), (9, 2), (None, 3), (0, 2)])
def test_adaptive_avg_pool2d(out):
    x = randn(2, 3, 7, 8)
    oh, ow = (out, out) if isinstance(out, int) else out
    oh = 7 if oh is None else oh
    want = adaptive_avg_ref(x, oh, ow)
    close(F.adaptive_avg_pool2d(nb(x), out), want)
    close(F.adaptive_avg_pool2d(strided(x), out), want)
    close(F.adaptive_avg_pool2d(nb(x[0]), out), want[0])


INT_DTYPES = [nabla.int8, nabla.int16, nabla.int32, nabla.int64, nabla.uint8]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("case", POOL_CASES)
def test_integer_max_pool2d(dtype, case):
    k, s, p, d, ceil = case
    lo = 0 if dtype is nabla.uint8 else -100
    x = np.random.default_rng(7).integers(lo, 100, (2, 3, 9, 8))
    y, idx = F.max_pool2d(nabla.tensor(x, dtype=dtype), k, s, p, d, ceil, return_indices=True)
    s2 = _pair(s) if s is not None else _pair(k)
    want, want_idx = max_pool_ref(x, _pair(k), s2, _pair(p), _pair(d), ceil)
    assert y.dtype is dtype and idx.dtype is nabla.int64
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)  # ties: the first maximum, as for floats


def test_integer_pooling_like_pytorch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).integers(-50, 50, (2, 2, 7, 6))
    for k, s, p, ceil, include_pad, divisor in [(2, None, 0, False, True, None), (3, 2, 1, True, False, None),
                                                (3, 2, 1, False, True, 4), ((2, 3), 1, (1, 1), True, True, None)]:
        want = torch.nn.functional.avg_pool2d(torch.tensor(x), k, s, p, ceil, include_pad, divisor)
        got = F.avg_pool2d(nabla.tensor(x), k, s, p, ceil, include_pad, divisor)
        assert got.dtype is nabla.int64 and got.tolist() == want.tolist()  # integer division truncates
    for L, G in ((torch, torch.nn.functional), (nabla, F)):
        for dtype in ("int8", "int16", "int32", "uint8", "bool"):
            t = L.ones(1, 1, 4, 4, dtype=getattr(L, dtype))
            name = {"int8": "Char", "int16": "Short", "int32": "Int", "uint8": "Byte", "bool": "Bool"}[dtype]
            with pytest.raises(NotImplementedError, match=f"\"avg_pool2d\" not implemented for '{name}'"):
                G.avg_pool2d(t, 2)
            with pytest.raises(NotImplementedError, match=f"\"adaptive_avg_pool2d\" not implemented for '{name}'"):
                G.adaptive_avg_pool2d(t, 2)
        with pytest.raises(NotImplementedError, match="\"adaptive_avg_pool2d\" not implemented for 'Long'"):
            G.adaptive_avg_pool2d(L.ones(1, 1, 4, 4, dtype=L.int64), 2)
        with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
            G.max_pool2d(L.ones(1, 1, 4, 4, dtype=L.bool), 2)
    got = F.max_pool2d(nabla.tensor(x, dtype=nabla.int16), 3, 2, 1, ceil_mode=True, return_indices=True)
    want = torch.nn.functional.max_pool2d(torch.tensor(x, dtype=torch.int16), 3, 2, 1, ceil_mode=True,
                                          return_indices=True)
    assert [t.tolist() for t in got] == [t.tolist() for t in want]


def test_pool_errors():
    x = nb(randn(2, 3, 5, 5))
    cases = [
        (lambda: F.max_pool2d(nb(randn(2, 2)), 1), "max_pool2d: expected input with 4 dims [N, C, H, W], got [2, 2]"),
        (lambda: F.max_pool2d(x, 3, padding=2),
         "max_pool2d: pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, kW = 3, "
         "kH = 3"),
        (lambda: F.max_pool2d(x, 0), "max_pool2d: kernel size should be greater than zero, but got kH: 0 kW: 0"),
        (lambda: F.max_pool2d(x, 2, stride=0), "max_pool2d: stride should be greater than zero, but got dH: 0 dW: 0"),
        (lambda: F.max_pool2d(x, 2, dilation=0),
         "max_pool2d: dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
        (lambda: F.max_pool2d(nb(randn(1, 2, 2, 2)), 3),
         "max_pool2d: Given input size: (2x2x2). Calculated output size: (2x0x0). Output size is too small"),
        (lambda: F.max_pool2d(nb(randn(2, 0, 4, 4)), 2), "max_pool2d: expected a 4-D input [N, C, H, W] with non-zero"),
        (lambda: F.avg_pool2d(x, 3, padding=2), "avg_pool2d: pad should be smaller than or equal to half of kernel size"),
        (lambda: F.avg_pool2d(x, 3, divisor_override=0), "divisor must be not zero"),
        (lambda: F.avg_pool2d(nb(randn(1, 2, 2, 2)), 3), "avg_pool2d: Given input size: (2x2x2)"),
        (lambda: F.adaptive_avg_pool2d(x, (-1, 2)),
         "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, 2}"),
        (lambda: F.adaptive_avg_pool2d(nb(randn(3, 3)), 2), "adaptive_avg_pool2d: expected input with 4 dims"),
        (lambda: F.adaptive_avg_pool2d(nb(randn(1, 2, 0, 3)), 2),
         "adaptive_avg_pool2d: expected input to have non-zero size for non-batch dimensions, but input has sizes "
         "[1, 2, 0, 3] with dimension 2 being empty"),
    ]
    for call, message in cases:
        def run():
            with pytest.raises(RuntimeError, match=re.escape(message)):
                call()
        leak_free(run)
    assert tuple(F.max_pool2d(nb(randn(0, 3, 4, 4)), 2).shape) == (0, 3, 2, 2)


# ---------------------------------------------------------------- normalization

@pytest.mark.parametrize("shape,nd", [((4, 10), 1), ((2, 3, 5), 2), ((3, 7), 1), ((2, 2, 3, 4), 3), ((5, 3000), 1)])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm(shape, nd, affine):
    x = randn(*shape) * 3 + 5
    ns = shape[-nd:]
    w = randn(*ns) if affine in ("both", "weight") else None
    b = randn(*ns) if affine in ("both", "bias") else None
    want = layer_norm_ref(x, nd, w, b, 1e-5)
    got = F.layer_norm(nb(x), ns, None if w is None else nb(w), None if b is None else nb(b))
    close(got, want, scale=5)
    close(F.layer_norm(strided(x), list(ns), None if w is None else nb(w), None if b is None else nb(b), eps=1e-5),
          want, scale=5)
    x64 = x.astype(np.float64)
    close(F.layer_norm(nb(x64), ns, None if w is None else nb(w.astype(np.float64)),
                       None if b is None else nb(b.astype(np.float64)), 0.1),
          layer_norm_ref(x64, nd, w, b, 0.1), nabla.float64)


def test_layer_norm_half_and_constant_rows():
    x = randn(3, 16)
    for dtype in (nabla.float16, nabla.bfloat16):
        xt = nb(x).to(dtype)
        close(F.layer_norm(xt, 16), layer_norm_ref(npy(xt), 1), dtype, scale=2)
    const = np.full((2, 8), 7.0, np.float32)
    close(F.layer_norm(nb(const), (8,)), np.zeros((2, 8)))
    big = (randn(2, 64) + 1e4).astype(np.float32)  # a large mean: the shifted one-pass sums keep precision
    close(F.layer_norm(nb(big), (64,)), layer_norm_ref(big.astype(np.float64), 1), scale=100)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 4, 3, 3), (3, 2, 2, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(shape, training):
    C = shape[1]
    x = randn(*shape) * 2 + 1
    rm, rv = randn(C).astype(np.float64), RNG.uniform(0.5, 2, C)
    w, b = randn(C), randn(C)
    nrm, nrv = nb(rm.astype(np.float32)), nb(rv.astype(np.float32))
    v0 = nrm._version
    want, want_rm, want_rv = batch_norm_ref(x, rm, rv, w, b, training, 0.3, 1e-3)
    got = F.batch_norm(nb(x), nrm, nrv, nb(w), nb(b), training, 0.3, 1e-3)
    close(got, want, scale=5)
    close(nrm, want_rm, scale=5)
    close(nrv, want_rv, scale=5)
    assert nrm._version == v0 + (1 if training else 0)
    got = F.batch_norm(strided(x), nb(rm), nb(rv), None, None, False, 0.1, 1e-5)
    close(got, batch_norm_ref(x, rm, rv, None, None, False, 0.1, 1e-5)[0], nabla.float32, scale=5)


def test_batch_norm_training_without_running_stats_and_dtypes():
    x = randn(5, 3, 4)
    close(F.batch_norm(nb(x), None, None, training=True), batch_norm_ref(x, None, None, None, None, True, 0.1, 1e-5)[0],
          scale=5)
    x64 = x.astype(np.float64)
    rm, rv = nb(np.zeros(3)), nb(np.ones(3))
    want, wrm, wrv = batch_norm_ref(x64, np.zeros(3), np.ones(3), None, None, True, 0.1, 1e-5)
    close(F.batch_norm(nb(x64), rm, rv, training=True), want, nabla.float64)
    close(rm, wrm, nabla.float64)
    close(rv, wrv, nabla.float64)
    xh = nb(x).half()
    close(F.batch_norm(xh, None, None, training=True),
          batch_norm_ref(npy(xh), None, None, None, None, True, 0.1, 1e-5)[0], nabla.float16, scale=2)
    empty_rm, empty_rv = nb(np.zeros(3, np.float32)), nb(np.ones(3, np.float32))
    assert tuple(F.batch_norm(nb(randn(0, 3)), empty_rm, empty_rv, training=True).shape) == (0, 3)
    np.testing.assert_array_equal(empty_rm.numpy(), np.zeros(3))


@pytest.mark.parametrize("shape,G", [((2, 6, 5), 3), ((3, 4), 2), ((2, 8, 3, 3), 8), ((1, 4, 2, 2, 2), 1)])
def test_group_norm(shape, G):
    C = shape[1]
    x, w, b = randn(*shape) + 2, randn(C), randn(C)
    want = group_norm_ref(x, G, w, b)
    close(F.group_norm(nb(x), G, nb(w), nb(b)), want, scale=5)
    close(F.group_norm(strided(x), G), group_norm_ref(x, G), scale=5)
    close(F.group_norm(nb(x.astype(np.float64)), G, nb(w.astype(np.float64)), eps=0.01),
          group_norm_ref(x, G, w, None, 0.01), nabla.float64)


def test_norm_errors():
    cases = [
        (lambda: F.layer_norm(nb(randn(2, 3)), (4,)),
         "layer_norm: Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"),
        (lambda: F.layer_norm(nb(randn(2, 3)), ()),
         "layer_norm: Expected normalized_shape to be at least 1-dimensional"),
        (lambda: F.layer_norm(nb(randn(2, 3)), (3,), nb(randn(4))),
         "layer_norm: Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and "
         "normalized_shape = [3]"),
        (lambda: F.layer_norm(nb(randn(2, 3)), (3,), None, nb(randn(2))),
         "layer_norm: Expected bias to be of same shape as normalized_shape"),
        (lambda: F.layer_norm(nb(randn(2, 3)), (3,), nb(randn(3, dtype=np.float64))),
         "layer_norm: expected weight to have dtype float32 (the input's), but got float64"),
        (lambda: F.layer_norm(nb(np.ones((2, 3), np.int64)), (3,)), "layer_norm: not implemented for 'int64'"),
        (lambda: F.batch_norm(nb(randn(4, 3)), None, None, training=False),
         "batch_norm: running_mean must be defined in evaluation mode"),
        (lambda: F.batch_norm(nb(randn(4, 3)), nb(np.zeros(4)), nb(np.ones(3))),
         "batch_norm: running_mean should contain 3 elements not 4"),
        (lambda: F.batch_norm(nb(randn(4, 3)), nb(np.zeros(3)), nb(np.ones(3)), nb(np.ones(2))),
         "batch_norm: weight should contain 3 elements not 2"),
        (lambda: F.batch_norm(nb(randn(4)), nb(np.zeros(4)), nb(np.ones(4))),
         "batch_norm: expected input with at least 2 dims [N, C, *], got [4]"),
        (lambda: F.group_norm(nb(randn(2, 6, 4)), 4),
         "group_norm: Expected number of channels in input to be divisible by num_groups, but got input of shape "
         "[2, 6, 4] and num_groups=4"),
        (lambda: F.group_norm(nb(randn(2, 6, 4)), 3, nb(randn(5))),
         "group_norm: Expected weight to be a vector of size equal to the number of channels in input, but got "
         "weight of shape [5] and input of shape [2, 6, 4]"),
        (lambda: F.group_norm(nb(randn(6)), 3), "group_norm: Expected at least 2 dimensions for input tensor but received 1"),
        (lambda: F.group_norm(nb(randn(2, 6)), 0), "group_norm: num_groups must be positive"),
    ]
    for call, message in cases:
        def run():
            with pytest.raises(RuntimeError, match=re.escape(message)):
                call()
        leak_free(run)
    with pytest.raises(ValueError, match=re.escape("Expected more than 1 value per channel when training, got input "
                                                   "size nabla.Size([1, 3])")):
        F.batch_norm(nb(randn(1, 3)), None, None, training=True)
    with pytest.raises(ValueError, match=re.escape("Expected more than 1 value per channel when training, got input "
                                                   "size [1, 3]")):
        F.group_norm(nb(randn(1, 3)), 3)


def test_norms_keep_precision_for_large_means():
    x = (randn(8, 3, 5) + 1000).astype(np.float32)
    xd = x.astype(np.float64)
    close(F.batch_norm(nb(x), None, None, training=True), batch_norm_ref(xd, None, None, None, None, True, 0.1, 1e-5)[0],
          scale=20)
    close(F.group_norm(nb(x), 3), group_norm_ref(xd, 3), scale=20)
    close(F.layer_norm(nb(x), (3, 5)), layer_norm_ref(xd, 2), scale=20)
    single = randn(3, 4) * 100  # one value per group: exactly zero
    np.testing.assert_array_equal(F.group_norm(nb(single), 4).numpy(), np.zeros((3, 4)))


# ---------------------------------------------------------------- losses

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3), (5,)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_and_nll_with_class_indices(reduction, shape, weighted, smoothing):
    C = shape[1] if len(shape) > 1 else shape[0]
    x = randn(*shape) * 2
    batched = len(shape) > 1
    tshape = (shape[0],) + shape[2:] if batched else ()
    t = RNG.integers(0, C, tshape)
    if batched:
        t.flat[::3] = 1 if shape == (6, 5) else -100  # some ignored positions
    w = RNG.uniform(0.2, 2.0, C).astype(np.float32) if weighted else None
    x2, t2 = (x, t) if batched else (x[None], np.asarray(t)[None])
    want = nll_ref(log_softmax(x2, 1), t2, w, -100 if shape != (6, 5) else 1, reduction, smoothing)
    ignore = 1 if shape == (6, 5) else -100
    if not batched and reduction == "none":
        want = want[0]
    got = F.cross_entropy(nb(x), nb(t), None if w is None else nb(w), ignore_index=ignore, reduction=reduction,
                          label_smoothing=smoothing)
    close(got, want, scale=5)
    if smoothing == 0:
        got = F.nll_loss(nb(log_softmax(x2, 1).astype(np.float32)[0] if not batched else log_softmax(x, 1).astype(np.float32)),
                         nb(t), None if w is None else nb(w), ignore_index=ignore, reduction=reduction)
        close(got, want, scale=5)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_with_probabilities(reduction, smoothing):
    x = randn(4, 5, 3)
    p = RNG.random((4, 5, 3)).astype(np.float32)
    p /= p.sum(1, keepdims=True)
    w = RNG.uniform(0.5, 2, 5).astype(np.float32)
    close(F.cross_entropy(nb(x), nb(p), nb(w), reduction=reduction, label_smoothing=smoothing),
          prob_ce_ref(x, p, w, reduction, smoothing), scale=5)
    close(F.cross_entropy(strided(x), strided(p), reduction=reduction), prob_ce_ref(x, p, None, reduction), scale=5)
    x1, p1 = randn(6), RNG.random(6)
    close(F.cross_entropy(nb(x1), nb(p1.astype(np.float32)), reduction=reduction),
          prob_ce_ref(x1[None], p1[None], None, reduction)[0] if reduction == "none"
          else prob_ce_ref(x1[None], p1[None], None, reduction), scale=5)


def test_classification_edge_cases():
    x = randn(3, 4)
    all_ignored = F.cross_entropy(nb(x), nb(np.full(3, -100)))
    assert np.isnan(all_ignored.item())
    assert np.isnan(F.nll_loss(nb(x), nb(np.full(3, -100))).item())
    close(F.cross_entropy(nb(x), nb(np.array([1, 2, 3], np.uint8))), nll_ref(log_softmax(x, 1), np.array([1, 2, 3])))
    xd = x.astype(np.float64)
    close(F.cross_entropy(nb(xd), nb(np.array([0, 3, 1]))), nll_ref(log_softmax(xd, 1), np.array([0, 3, 1])),
          nabla.float64)
    xh = nb(x).half()
    close(F.cross_entropy(xh, nb(np.array([0, 3, 1]))), nll_ref(log_softmax(npy(xh), 1), np.array([0, 3, 1])),
          nabla.float16)
    inf = np.array([[0.0, -np.inf, 1.0]], np.float32)
    close(F.cross_entropy(nb(inf), nb(np.array([2]))), -log_softmax(np.array([[0.0, -1e300, 1.0]]), 1)[0, 2])
    # legacy size_average / reduce, deprecated with PyTorch's warning
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        close(F.nll_loss(nb(x), nb(np.array([0, 1, 2])), size_average=False), nll_ref(x, np.array([0, 1, 2]), None,
                                                                                       reduction="sum"))
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        close(F.nll_loss(nb(x), nb(np.array([0, 1, 2])), reduce=False), nll_ref(x, np.array([0, 1, 2]), None,
                                                                                 reduction="none"))


def _pointwise_refs():
    def bce(x, t, w=None):
        x = x.astype(np.float64)
        with np.errstate(divide="ignore"):
            v = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
        return v * (1 if w is None else w)

    def bcel(x, t, w=None, pw=None):
        x = x.astype(np.float64)
        lw = 1 + ((1 if pw is None else pw) - 1) * t
        v = (1 - t) * x + lw * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
        return v * (1 if w is None else w)

    def kl(x, t, log_target=False):
        if log_target:
            return np.exp(t) * (t - x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(t == 0, 0.0, t * np.log(np.where(t > 0, t, 1))) - t * x

    def smooth_l1(x, t, beta):
        z = np.abs(x - t)
        return z if beta == 0 else np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)

    def huber(x, t, delta):
        z = np.abs(x - t)
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    return bce, bcel, kl, smooth_l1, huber


BCE, BCEL, KL, SMOOTH_L1, HUBER = _pointwise_refs()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_regression_losses(reduction):
    x, t = randn(4, 5).astype(np.float64), randn(4, 5).astype(np.float64)
    xs, ts = x.astype(np.float32), t.astype(np.float32)
    close(F.mse_loss(nb(xs), nb(ts), reduction=reduction), reduce_ref((x - t) ** 2, reduction))
    close(F.l1_loss(strided(xs), nb(ts), reduction=reduction), reduce_ref(np.abs(x - t), reduction))
    for beta in (0.0, 0.5, 1.0):
        close(F.smooth_l1_loss(nb(xs), nb(ts), reduction=reduction, beta=beta),
              reduce_ref(SMOOTH_L1(x, t, beta), reduction))
    for delta in (0.3, 1.0, 2.0):
        close(F.huber_loss(nb(xs), nb(ts), reduction=reduction, delta=delta), reduce_ref(HUBER(x, t, delta), reduction))
    w = RNG.uniform(0, 2, (4, 5))
    ws = w.astype(np.float32)
    weighted = {"none": lambda v: v * w, "sum": lambda v: (v * w).sum(), "mean": lambda v: (v * w).sum() / w.sum()}
    close(F.mse_loss(nb(xs), nb(ts), reduction=reduction, weight=nb(ws)), weighted[reduction]((x - t) ** 2))
    close(F.l1_loss(nb(xs), nb(ts), reduction=reduction, weight=nb(ws)), weighted[reduction](np.abs(x - t)))
    close(F.huber_loss(nb(xs), nb(ts), reduction=reduction, weight=nb(ws)), reduce_ref(HUBER(x, t, 1.0) * w, reduction))
    close(F.mse_loss(nb(x), nb(t), reduction=reduction), reduce_ref((x - t) ** 2, reduction), nabla.float64)


def test_regression_broadcast_promotion_and_empty():
    x, t = randn(3, 1), randn(4)
    with pytest.warns(UserWarning, match="different to the input size"):
        got = F.mse_loss(nb(x), nb(t))
    close(got, np.mean((x.astype(np.float64) - t) ** 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(F.mse_loss(nb(x[:, 0]), nb(t[:3].astype(np.float64))), np.mean((x[:, 0] - t[:3].astype(np.float64)) ** 2),
              nabla.float64)
        close(F.l1_loss(nb(x[:, 0]), nb(np.array([1, 2, 3]))), np.mean(np.abs(x[:, 0] - [1, 2, 3])))
    assert np.isnan(F.mse_loss(nb(np.zeros(0, np.float32)), nb(np.zeros(0, np.float32))).item())
    close(F.mse_loss(nb(x).half(), nb(x).half(), reduction="sum"), 0.0, nabla.float16)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy(reduction):
    x = RNG.uniform(0.01, 0.99, (3, 4))
    x[0, 0], x[0, 1] = 0.0, 1.0  # log clamps at -100
    t = RNG.random((3, 4))
    w = RNG.uniform(0.5, 2, 4)
    f = lambda a: nb(a.astype(np.float32))  # noqa: E731
    close(F.binary_cross_entropy(f(x), f(t), reduction=reduction), reduce_ref(BCE(x.astype(np.float32), t), reduction),
          scale=3)
    close(F.binary_cross_entropy(f(x), f(t), f(w), reduction=reduction),
          reduce_ref(BCE(x.astype(np.float32), t, w), reduction), scale=3)
    close(F.binary_cross_entropy(nb(x), nb(t), reduction=reduction), reduce_ref(BCE(x, t), reduction), nabla.float64)
    logits = randn(3, 4) * 4
    pw = RNG.uniform(0.5, 3, 4)
    close(F.binary_cross_entropy_with_logits(f(logits), f(t), reduction=reduction),
          reduce_ref(BCEL(logits, t), reduction), scale=3)
    close(F.binary_cross_entropy_with_logits(strided(logits), f(t), f(w), reduction=reduction, pos_weight=f(pw)),
          reduce_ref(BCEL(logits, t, w, pw), reduction), scale=3)
    big = np.array([100.0, -100.0, 0.0], np.float32)
    close(F.binary_cross_entropy_with_logits(nb(big), nb(np.array([0.0, 1.0, 1.0], np.float32)), reduction="none"),
          [100.0, 100.0, np.log(2)])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = np.log(RNG.uniform(0.1, 1, (4, 3)))
    t = RNG.uniform(0, 1, (4, 3))
    t[0, 0] = 0.0
    if log_target:
        t = np.log(RNG.uniform(0.1, 1, (4, 3)))
    v = KL(x.astype(np.float32).astype(np.float64), t.astype(np.float32).astype(np.float64), log_target)
    want = v.sum() / 4 if reduction == "batchmean" else reduce_ref(v, reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = F.kl_div(nb(x.astype(np.float32)), nb(t.astype(np.float32)), reduction=reduction, log_target=log_target)
    close(got, want, scale=3)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_loss_errors():
    x, t = nb(randn(3, 5)), nb(np.array([1, 0, 4]))
    cases = [
        (IndexError, lambda: F.nll_loss(x, nb(np.array([1, 0, 5]))), "nll_loss: Target 5 is out of bounds."),
        (IndexError, lambda: F.cross_entropy(x, nb(np.array([1, -2, 0]))), "cross_entropy: Target -2 is out of bounds."),
        (RuntimeError, lambda: F.nll_loss(x, nb(np.array([1, 0, 4], np.int32))),
         "nll_loss: expected target dtype to be int64 or uint8"),
        (RuntimeError, lambda: F.nll_loss(x, nb(np.array([1.0, 0.0, 4.0], np.float32))),
         "nll_loss: expected target dtype to be int64 or uint8 (or floating probabilities for cross_entropy), but got "
         "float32"),
        (ValueError, lambda: F.nll_loss(x, nb(np.array([1, 0]))),
         "Expected input batch_size (3) to match target batch_size (2)."),
        (RuntimeError, lambda: F.nll_loss(x, t, weight=nb(np.ones(4, np.float32))),
         "nll_loss: weight tensor should be defined either for all 5 classes or no classes but got weight tensor of "
         "shape: [4]"),
        (RuntimeError, lambda: F.nll_loss(nb(randn(2, 5, 4)), nb(np.zeros((2, 3), np.int64))),
         "nll_loss: Expected target size [2, 4], got [2, 3]"),
        (RuntimeError, lambda: F.nll_loss(nb(randn(2, 5, 4)), nb(np.zeros(2, np.int64))),
         "nll_loss: Expected target size [2, 4], got [2]"),
        (RuntimeError, lambda: F.nll_loss(nb(np.float32(1.0)), nb(np.int64(0))),
         "nll_loss: Expected 1 or more dimensions (got 0)"),
        (ValueError, lambda: F.nll_loss(x, t, reduction="avg"), "avg is not a valid value for reduction"),
        (RuntimeError, lambda: F.cross_entropy(x, t, label_smoothing=1.5),
         "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
        (RuntimeError, lambda: F.cross_entropy(x, nb(randn(3, 4))),
         "cross_entropy: expected a probability target of the input's shape [3, 5], but got [3, 4]"),
        (RuntimeError, lambda: F.cross_entropy(x, nb(randn(3, 5)), ignore_index=1),
         "cross_entropy: ignore_index is not supported for floating point target"),
        (RuntimeError, lambda: F.cross_entropy(nb(np.ones((3, 5), np.int64)), t),
         "cross_entropy: not implemented for 'int64'"),
        (RuntimeError, lambda: F.mse_loss(nb(randn(3, 2)), nb(randn(3))),
         "mse_loss: the size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
        (RuntimeError, lambda: F.mse_loss(nb(np.ones(3, np.int64)), nb(np.ones(3, np.int64))),
         "mse_loss: not implemented for 'int64'"),
        (ValueError, lambda: F.mse_loss(nb(randn(3)), nb(randn(3)), weight=nb(randn(2))),
         "Weights and input must have the same size."),
        (RuntimeError, lambda: F.smooth_l1_loss(nb(randn(3)), nb(randn(3)), beta=-1),
         "smooth_l1_loss does not support negative values for beta."),
        (RuntimeError, lambda: F.huber_loss(nb(randn(3)), nb(randn(3)), delta=0),
         "huber_loss does not support non-positive values for delta."),
        (RuntimeError, lambda: F.binary_cross_entropy(nb(np.array([1.5], np.float32)), nb(np.array([1.0], np.float32))),
         "binary_cross_entropy: all elements of input should be between 0 and 1"),
        (RuntimeError, lambda: F.binary_cross_entropy(nb(np.array([np.nan], np.float32)), nb(np.array([1.0], np.float32))),
         "binary_cross_entropy: all elements of input should be between 0 and 1"),
        (ValueError, lambda: F.binary_cross_entropy(nb(randn(3, 1)), nb(randn(3))),
         "Using a target size (nabla.Size([3])) that is different to the input size (nabla.Size([3, 1])) is deprecated"),
        (RuntimeError, lambda: F.binary_cross_entropy(nb(RNG.random(3).astype(np.float32)), nb(RNG.random(3))),
         "binary_cross_entropy: Found dtype float64 but expected float32"),
        (RuntimeError, lambda: F.binary_cross_entropy(nb(RNG.random((3, 2)).astype(np.float32)),
                                                      nb(RNG.random((3, 2)).astype(np.float32)), nb(randn(3))),
         "binary_cross_entropy: the size of tensor a (2) must match the size of tensor c (3)"),
        (ValueError, lambda: F.binary_cross_entropy_with_logits(nb(randn(3, 1)), nb(randn(3))),
         "Target size (nabla.Size([3])) must be the same as input size (nabla.Size([3, 1]))"),
        (RuntimeError, lambda: F.binary_cross_entropy_with_logits(nb(randn(3, 2)), nb(randn(3, 2)), pos_weight=nb(randn(3))),
         "binary_cross_entropy_with_logits: the size of tensor"),
        (RuntimeError, lambda: F.kl_div(nb(np.ones(3, np.int64)), nb(np.ones(3, np.int64))),
         "kl_div: not implemented for 'int64'"),
        (ValueError, lambda: F.kl_div(nb(randn(3)), nb(randn(3)), reduction="foo"), "foo is not a valid value for reduction"),
    ]
    for exc, call, message in cases:
        def run():
            with pytest.raises(exc, match=re.escape(message)):
                call()
        leak_free(run)


# ---------------------------------------------------------------- embedding and pad

def test_embedding():
    w = randn(10, 4)
    idx = np.array([[1, 9, 0], [3, 3, 2]])
    np.testing.assert_array_equal(F.embedding(nb(idx), nb(w)).numpy(), w[idx])
    np.testing.assert_array_equal(F.embedding(nb(idx.astype(np.int32)), nb(w), padding_idx=3).numpy(), w[idx])
    np.testing.assert_array_equal(F.embedding(nb(idx), strided(w), padding_idx=-1).numpy(), w[idx])
    np.testing.assert_array_equal(F.embedding(strided(idx), nb(w)).numpy(), w[idx])
    np.testing.assert_array_equal(F.embedding(nb(np.int64(7)), nb(w)).numpy(), w[7])
    wi = np.arange(12, dtype=np.int64).reshape(6, 2)
    np.testing.assert_array_equal(F.embedding(nb(np.array([5, 0])), nb(wi)).numpy(), wi[[5, 0]])
    assert F.embedding(nb(np.array([1])), nb(w).half()).dtype == nabla.float16
    assert tuple(F.embedding(nb(np.zeros((0, 3), np.int64)), nb(w)).shape) == (0, 3, 4)
    cases = [
        (IndexError, lambda: F.embedding(nb(np.array([0, 10])), nb(w)), "embedding: index out of range in self"),
        (IndexError, lambda: F.embedding(nb(np.array([-1])), nb(w)), "index out of range in self"),
        (RuntimeError, lambda: F.embedding(nb(np.array([0.0])), nb(w)),
         "embedding: expected indices of dtype int64 or int32, but got float64"),
        (RuntimeError, lambda: F.embedding(nb(np.array([1])), nb(randn(10))), "embedding: 'weight' must be 2-D"),
        (AssertionError, lambda: F.embedding(nb(np.array([1])), nb(w), padding_idx=10),
         "Padding_idx must be within num_embeddings"),
        (AssertionError, lambda: F.embedding(nb(np.array([1])), nb(w), padding_idx=-11),
         "Padding_idx must be within num_embeddings"),
    ]
    for exc, call, message in cases:
        def run():
            with pytest.raises(exc, match=re.escape(message)):
                call()
        leak_free(run)


PAD_CASES = [
    ("constant", (2, 3, 4), (1, 2)), ("constant", (2, 3, 4), (1, 0, 2, 1, 0, 1)), ("constant", (2, 3, 4), (-1, 2, 0, -1)),
    ("constant", (3,), (2, 2)), ("constant", (2, 3, 4, 5), (1, 1, 1, 1, 1, 1, 1, 1)),
    ("reflect", (2, 5), (2, 3)), ("reflect", (2, 3, 5), (4, 1)), ("reflect", (2, 3, 4, 5), (1, 2, 3, 0)),
    ("reflect", (3, 4, 5), (2, 1, 1, 2)), ("reflect", (1, 2, 3, 4, 5), (1, 1, 2, 1, 0, 2)),
    ("reflect", (2, 3, 4, 5, 3), (1, 1, 2, 1, 0, 2)), ("reflect", (2, 5), (-1, 2)),
    ("replicate", (2, 5), (3, 7)), ("replicate", (2, 3, 4, 5), (2, 2, 0, 3)), ("replicate", (2, 3, 4, 5, 3), (1, 2, 3, 1, 2, 1)),
    ("replicate", (2, 5), (2, -1)),
    ("circular", (2, 5), (2, 3)), ("circular", (2, 3, 4, 5), (5, 1, 4, 2)), ("circular", (1, 2, 3, 4, 5), (1, 2, 3, 1, 2, 0)),
    ("circular", (2, 4), (-1, 2)), ("circular", (2, 4), (4, 4)), ("circular", (2, 4), (-2, -1)),
]


@pytest.mark.parametrize("mode,shape,pad", PAD_CASES)
def test_pad(mode, shape, pad):
    x = randn(*shape)
    want = pad_ref(x.astype(np.float64), pad, mode, 2.5)
    value = 2.5 if mode == "constant" else None
    close(F.pad(nb(x), pad, mode=mode, value=value), want)
    close(F.pad(strided(x), list(pad), mode, value), want)
    xi = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)
    np.testing.assert_array_equal(F.pad(nb(xi), pad, mode, value).numpy(),
                                  pad_ref(xi, pad, mode, 2))


def test_pad_dtypes_and_defaults():
    x = randn(2, 3)
    close(F.pad(nb(x), (1, 1)), np.pad(x, ((0, 0), (1, 1))))
    b = F.pad(nb(x > 0), (1, 0), value=1)
    assert b.dtype == nabla.bool
    np.testing.assert_array_equal(b.numpy(), np.pad(x > 0, ((0, 0), (1, 0)), constant_values=True))
    h = F.pad(nb(x).half(), (0, 2), mode="reflect")
    assert h.dtype == nabla.float16
    np.testing.assert_array_equal(npy(h), np.pad(x.astype(np.float16), ((0, 0), (0, 2)), mode="reflect"))
    close(F.pad(nb(x), ()), x)
    assert tuple(F.pad(nb(randn(0, 3, 4)), (1, 1), mode="reflect").shape) == (0, 3, 6)
    close(F.pad(nb(x), (1, 1), mode="reflect", value=0), np.pad(x, ((0, 0), (1, 1)), mode="reflect"))


def test_pad_errors():
    x = nb(randn(1, 2, 3, 4))
    x3 = nb(randn(2, 3, 4))
    cases = [
        (RuntimeError, lambda: F.pad(x, (1,)), "pad: Padding length must be divisible by 2"),
        (RuntimeError, lambda: F.pad(x, (1,) * 10),
         "pad: Padding length should be less than or equal to two times the input dimension but got padding length 10 "
         "and input of dimension 4"),
        (RuntimeError, lambda: F.pad(x, (-3, -2)),
         "pad: The input size 4, plus negative padding -3 and -2 resulted in a negative output size"),
        (NotImplementedError, lambda: F.pad(x, (1, 1), mode="reflect"),
         "pad: Padding size 2 is not supported for 4D input tensor."),
        (NotImplementedError, lambda: F.pad(nb(randn(4)), (1, 1), mode="replicate"),
         "pad: Padding size 2 is not supported for 1D input tensor."),
        (RuntimeError, lambda: F.pad(x3, (4, 0), mode="reflect"),
         "pad: Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (4, 0) "
         "at dimension 2 of input [2, 3, 4]"),
        (RuntimeError, lambda: F.pad(x3, (-3, -2), mode="replicate"), "pad: input (W: 4) is too small. Calculated output W: -1"),
        (RuntimeError, lambda: F.pad(x3, (5, 0), mode="circular"), "pad: Padding value causes wrapping around more than once."),
        (RuntimeError, lambda: F.pad(x3, (-3, -2), mode="circular"),
         "pad: Negative padding value is resulting in an empty dimension"),
        (RuntimeError, lambda: F.pad(x3, (-4, 2), mode="circular"),
         "pad: Negative padding value is resulting in an empty dimension"),
        (RuntimeError, lambda: F.pad(x3, (3, -2), mode="circular"),  # 3 > the 2 elements left after cropping
         "pad: Padding value causes wrapping around more than once."),
        (RuntimeError, lambda: F.pad(x3, (6, -5)),
         "pad: negative padding (6, -5) removes more than the 4 elements of dimension 2"),
        (RuntimeError, lambda: F.pad(nb(randn(3, 0, 4)), (1, 1), mode="reflect"),
         "pad: Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
         "input, but got: [3, 0, 4]"),
        (RuntimeError, lambda: F.pad(x3, (1, 1), mode="reflect", value=1.0),
         "Padding mode \"reflect\" doesn't take in value argument"),
        (NotImplementedError, lambda: F.pad(x3, (1, 1), mode="mirror"), "Unrecognised padding mode mirror"),
    ]
    for exc, call, message in cases:
        def run():
            with pytest.raises(exc, match=re.escape(message)):
                call()
        leak_free(run)


# ---------------------------------------------------------------- against PyTorch

def _torch():
    return pytest.importorskip("torch")


def _t(a):
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(a))


def _same(got, want, dtype=nabla.float32, scale=1.0):
    close(got, want.detach().double().numpy(), dtype, scale)


@pytest.mark.parametrize("N,C,H,W,O,k,stride,padding,dilation,groups", [
    (2, 4, 10, 9, 6, (3, 3), 1, 1, 1, 2), (1, 3, 12, 12, 5, (5, 3), (2, 1), (2, 0), (1, 2), 1),
    (3, 8, 7, 7, 8, (3, 3), 1, "same", 1, 8), (2, 6, 9, 11, 4, (2, 4), 1, "same", (2, 1), 2),
    (2, 4, 8, 8, 4, (1, 1), 1, 0, 1, 1), (1, 2, 6, 6, 3, (3, 3), 3, 2, 2, 1),
    (4, 1, 28, 28, 8, (3, 3), 1, 0, 1, 1)])
def test_conv2d_against_torch(N, C, H, W, O, k, stride, padding, dilation, groups):
    torch = _torch()
    TF = torch.nn.functional
    x, w, b = randn(N, C, H, W), randn(O, C // groups, *k), randn(O)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = TF.conv2d(_t(x), _t(w), _t(b), stride, padding, dilation, groups)
    _same(F.conv2d(nb(x), nb(w), nb(b), stride, padding, dilation, groups), want, scale=3)
    _same(F.conv2d(strided(x), nb(w), nb(b), stride, padding, dilation, groups), want, scale=3)


@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 2, 1, 2), (1, "same", 3, 1), (3, 1, 2, 4)])
def test_conv1d_against_torch(stride, padding, dilation, groups):
    TF = _torch().nn.functional
    x, w, b = randn(3, 8, 17), randn(4, 8 // groups, 3), randn(4)
    _same(F.conv1d(nb(x), nb(w), nb(b), stride, padding, dilation, groups),
          TF.conv1d(_t(x), _t(w), _t(b), stride, padding, dilation, groups))


@pytest.mark.parametrize("stride,padding,output_padding,groups,dilation", [
    (1, 0, 0, 1, 1), (2, 1, 1, 2, 1), ((2, 3), (0, 1), (1, 2), 1, (1, 2)), (3, 2, 2, 4, 2), (1, 1, 0, 1, 3)])
def test_conv_transpose2d_against_torch(stride, padding, output_padding, groups, dilation):
    TF = _torch().nn.functional
    x, w, b = randn(2, 8, 5, 6), randn(8, 3, 3, 2), randn(3 * groups)
    want = TF.conv_transpose2d(_t(x), _t(w), _t(b), stride, padding, output_padding, groups, dilation)
    _same(F.conv_transpose2d(nb(x), nb(w), nb(b), stride, padding, output_padding, groups, dilation), want, scale=3)
    _same(F.conv_transpose2d(nb(x[0]), nb(w), nb(b), stride, padding, output_padding, groups, dilation), want[0], scale=3)


@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode", [
    (2, None, 0, 1, False), (3, 2, 1, 1, True), ((3, 5), (1, 2), (1, 2), (2, 1), False), (4, 3, 2, 1, True),
    (3, 3, 0, 2, True)])
def test_pooling_against_torch(kernel, stride, padding, dilation, ceil_mode):
    TF = _torch().nn.functional
    x = randn(2, 3, 13, 11)
    y, i = F.max_pool2d(strided(x), kernel, stride, padding, dilation, ceil_mode, return_indices=True)
    ty, ti = TF.max_pool2d(_t(x), kernel, stride, padding, dilation, ceil_mode, return_indices=True)
    _same(y, ty)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    for include_pad in (True, False):
        for divisor in (None, 7):
            _same(F.avg_pool2d(nb(x), kernel, stride, padding, ceil_mode, include_pad, divisor),
                  TF.avg_pool2d(_t(x), kernel, stride, padding, ceil_mode, include_pad, divisor))
    for out in ((5, 4), 1, (13, 11), (None, 6), (20, 3)):
        _same(F.adaptive_avg_pool2d(nb(x), out), TF.adaptive_avg_pool2d(_t(x), out))


def test_norms_against_torch():
    torch = _torch()
    TF = torch.nn.functional
    x = randn(4, 6, 5, 3) * 3 + 1
    w, b = randn(5, 3), randn(5, 3)
    _same(F.layer_norm(strided(x), (5, 3), nb(w), nb(b), 1e-3), TF.layer_norm(_t(x), (5, 3), _t(w), _t(b), 1e-3), scale=5)
    _same(F.group_norm(nb(x), 3), TF.group_norm(_t(x), 3), scale=5)
    gw, gb = randn(6), randn(6)
    _same(F.group_norm(nb(x), 2, nb(gw), nb(gb), 1e-4), TF.group_norm(_t(x), 2, _t(gw), _t(gb), 1e-4), scale=5)
    for training in (True, False):
        rm, rv = randn(6), RNG.uniform(0.5, 2, 6).astype(np.float32)
        nrm, nrv, trm, trv = nb(rm), nb(rv), _t(rm.copy()), _t(rv.copy())
        _same(F.batch_norm(nb(x), nrm, nrv, nb(gw), nb(gb), training, 0.25, 1e-4),
              TF.batch_norm(_t(x), trm, trv, _t(gw), _t(gb), training, 0.25, 1e-4), scale=5)
        _same(nrm, trm, scale=5)
        _same(nrv, trv, scale=5)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_losses_against_torch(reduction):
    torch = _torch()
    TF = torch.nn.functional
    x = randn(5, 4, 3)
    t = RNG.integers(0, 4, (5, 3))
    t[0, 0] = t[2, 1] = 2
    w = RNG.uniform(0.2, 2, 4).astype(np.float32)
    for ls in (0.0, 0.15):
        for ignore in (-100, 2):
            _same(F.cross_entropy(nb(x), nb(t), nb(w), ignore_index=ignore, reduction=reduction, label_smoothing=ls),
                  TF.cross_entropy(_t(x), _t(t), _t(w), ignore_index=ignore, reduction=reduction, label_smoothing=ls),
                  scale=5)
            _same(F.cross_entropy(nb(x), nb(t), None, ignore_index=ignore, reduction=reduction, label_smoothing=ls),
                  TF.cross_entropy(_t(x), _t(t), None, ignore_index=ignore, reduction=reduction, label_smoothing=ls),
                  scale=5)
        p = RNG.random((5, 4, 3)).astype(np.float32)
        _same(F.cross_entropy(nb(x), nb(p), nb(w), reduction=reduction, label_smoothing=ls),
              TF.cross_entropy(_t(x), _t(p), _t(w), reduction=reduction, label_smoothing=ls), scale=5)
    _same(F.nll_loss(nb(x), nb(t), nb(w), ignore_index=1, reduction=reduction),
          TF.nll_loss(_t(x), _t(t), _t(w), ignore_index=1, reduction=reduction))
    a, c = randn(3, 4), randn(3, 4)
    pr, q = RNG.uniform(0.01, 0.99, (3, 4)).astype(np.float32), RNG.random((3, 4)).astype(np.float32)
    wt = RNG.uniform(0, 2, (3, 4)).astype(np.float32)
    for name, args, kwargs in [
            ("mse_loss", (a, c), {}), ("l1_loss", (a, c), {}), ("smooth_l1_loss", (a, c), {"beta": 0.4}),
            ("huber_loss", (a, c), {"delta": 0.7}), ("mse_loss", (a, c), {"weight": wt}), ("l1_loss", (a, c), {"weight": wt}),
            ("huber_loss", (a, c), {"weight": wt}), ("binary_cross_entropy", (pr, q), {"weight": wt[0]}),
            ("binary_cross_entropy_with_logits", (a, q), {"weight": wt, "pos_weight": wt[1]}),
            ("kl_div", (a, pr), {}), ("kl_div", (a, c), {"log_target": True})]:
        nkw = {k: nb(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        tkw = {k: _t(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same(getattr(F, name)(*(nb(v) for v in args), reduction=reduction, **nkw),
                  getattr(TF, name)(*(_t(v) for v in args), reduction=reduction, **tkw), scale=3)
    _same(F.kl_div(nb(a), nb(pr), reduction="batchmean"), TF.kl_div(_t(a), _t(pr), reduction="batchmean"))


def test_embedding_and_pad_against_torch():
    torch = _torch()
    TF = torch.nn.functional
    w = randn(7, 3)
    idx = RNG.integers(0, 7, (2, 5))
    _same(F.embedding(nb(idx), nb(w), padding_idx=2), TF.embedding(_t(idx), _t(w), padding_idx=2))
    for mode, shape, pad in PAD_CASES:
        x = randn(*shape)
        value = 1.5 if mode == "constant" else None
        _same(F.pad(strided(x), pad, mode, value), TF.pad(_t(x), pad, mode, value))


def test_signatures_follow_torch():
    torch = _torch()
    import inspect
    for name in ["adaptive_avg_pool2d", "layer_norm", "batch_norm", "group_norm", "embedding", "pad", "cross_entropy",
                 "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits", "kl_div"]:
        ours = inspect.signature(getattr(F, name)).parameters
        theirs = inspect.signature(getattr(torch.nn.functional, name)).parameters
        assert list(ours) == list(theirs), name
        for p in ours:
            assert repr(ours[p].default) == repr(theirs[p].default), (name, p)
