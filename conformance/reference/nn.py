"""Convolution, pooling, normalization, losses, embedding and pad (abi/ops/nn.json)."""
from __future__ import annotations

import numpy as np

from .case import F64, I32, I64, I64S, NULL, OUT, T
from .family import Family
from .reduce import softmax

NONE, MEAN, SUM = 0, 1, 2


def conv2d(x, w, b, stride, pad, dil, groups):
    """x [N, C, H, W], w [O, C / groups, kh, kw]; pad (top, left, bottom, right)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    _, _, H, W = xp.shape
    O, Cg, kh, kw = w.shape
    OH = (H - dil[0] * (kh - 1) - 1) // stride[0] + 1
    OW = (W - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((x.shape[0], O, OH, OW))
    og = O // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * Cg:(g + 1) * Cg, i * dil[0]:i * dil[0] + stride[0] * (OH - 1) + 1:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * (OW - 1) + 1:stride[1]]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    return out if b is None else out + b[None, :, None, None]


def conv_transpose2d(x, w, b, stride, pad, out_pad, dil, groups):
    """x [N, C_in, H, W], w [C_in, C_out / groups, kh, kw]: the adjoint of conv2d."""
    N, Cin, H, W = x.shape
    _, Og, kh, kw = w.shape
    full = ((H - 1) * stride[0] + dil[0] * (kh - 1) + 1 + out_pad[0], (W - 1) * stride[1] + dil[1] * (kw - 1) + 1 +
            out_pad[1])
    buf = np.zeros((N, Og * groups) + full)
    cg = Cin // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg, :, i, j])
                buf[:, g * Og:(g + 1) * Og, i * dil[0]:i * dil[0] + stride[0] * (H - 1) + 1:stride[0],
                    j * dil[1]:j * dil[1] + stride[1] * (W - 1) + 1:stride[1]] += contrib
    OH = (H - 1) * stride[0] - 2 * pad[0] + dil[0] * (kh - 1) + out_pad[0] + 1
    OW = (W - 1) * stride[1] - 2 * pad[1] + dil[1] * (kw - 1) + out_pad[1] + 1
    out = buf[:, :, pad[0]:pad[0] + OH, pad[1]:pad[1] + OW]
    return out if b is None else out + b[None, :, None, None]


def pool_size(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def max_pool2d(x, k, s, p, d, ceil):
    N, C, H, W = x.shape
    OH, OW = pool_size(H, k[0], s[0], p[0], d[0], ceil), pool_size(W, k[1], s[1], p[1], d[1], ceil)
    vals, idx = np.full((N, C, OH, OW), -np.inf), np.zeros((N, C, OH, OW), np.int64)
    for oh in range(OH):
        for ow in range(OW):
            for i in range(k[0]):
                for j in range(k[1]):
                    h, w = oh * s[0] - p[0] + i * d[0], ow * s[1] - p[1] + j * d[1]
                    if 0 <= h < H and 0 <= w < W:
                        v = x[:, :, h, w]
                        better = v > vals[:, :, oh, ow]
                        vals[:, :, oh, ow] = np.where(better, v, vals[:, :, oh, ow])
                        idx[:, :, oh, ow] = np.where(better, h * W + w, idx[:, :, oh, ow])
    return vals, idx


def avg_pool2d(x, k, s, p, ceil, include_pad, divisor):
    N, C, H, W = x.shape
    OH, OW = pool_size(H, k[0], s[0], p[0], 1, ceil), pool_size(W, k[1], s[1], p[1], 1, ceil)
    out = np.zeros((N, C, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
            h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
            pool = (h1 - h0) * (w1 - w0)
            hs, ws = max(h0, 0), max(w0, 0)
            he, we = min(h1, H), min(w1, W)
            total = x[:, :, hs:he, ws:we].sum(axis=(2, 3))
            div = divisor or (pool if include_pad else (he - hs) * (we - ws))
            out[:, :, oh, ow] = total / div
    return out


def adaptive_avg_pool2d(x, size):
    N, C, H, W = x.shape
    out = np.zeros((N, C) + tuple(size))
    for i in range(size[0]):
        for j in range(size[1]):
            h0, h1 = (i * H) // size[0], -(-((i + 1) * H) // size[0])
            w0, w1 = (j * W) // size[1], -(-((j + 1) * W) // size[1])
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def reduce_loss(loss, reduction, weight_sum=None):
    if reduction == NONE:
        return loss
    if reduction == SUM:
        return np.sum(loss)
    return np.sum(loss) / (weight_sum if weight_sum is not None else loss.size)


def cases() -> Family:
    fam = Family("nn")
    _convolutions(fam)
    _pooling(fam)
    _norms(fam)
    _losses(fam)
    _misc(fam)
    return fam


def _convolutions(fam: Family) -> None:
    variants = {  # (x shape, w shape, stride, padding tblr, dilation, groups, bias)
        "basic": ((2, 3, 5, 6), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1, True),
        "stride2-pad1": ((1, 2, 6, 5), (3, 2, 3, 2), (2, 2), (1, 1, 1, 1), (1, 1), 1, True),
        "asym-pad-dilation": ((1, 2, 6, 6), (2, 2, 2, 3), (1, 2), (1, 0, 2, 1), (2, 1), 1, False),
        "groups2": ((2, 4, 4, 4), (6, 2, 2, 2), (1, 1), (0, 0, 0, 0), (1, 1), 2, True),
    }
    for variant, (sx, sw, st, pd, dl, g, bias) in variants.items():
        for dt in ("f32", "f64", "bf16") if variant == "basic" else ("f32",):
            def build(r, dt=dt, sx=sx, sw=sw, st=st, pd=pd, dl=dl, g=g, bias=bias):
                ins = [("x", dt, r.uniform(-1, 1, sx)), ("w", dt, r.uniform(-1, 1, sw))]
                if bias:
                    ins.append(("b", dt, r.uniform(-1, 1, sw[0])))
                args = [T("x"), T("w"), T("b") if bias else NULL, I64S(st), I64S(pd), I64S(dl), I64(g), NULL, OUT("out")]
                return ins, args, lambda x, w, b=None: {"out": conv2d(x, w, b, st, pd, dl, g)}
            fam.forward("conv2d", dt, variant, build, tol="accumulate",
                        grad=(("x", "w", "b") if bias else ("x", "w")) if dt == "f32" else ())
    fam.error("conv2d", "f32", "input-rank", lambda r: (
        [("x", "f32", np.zeros((3, 5, 5))), ("w", "f32", np.zeros((2, 3, 3, 3)))],
        [T("x"), T("w"), NULL, I64S([1, 1]), I64S([0, 0, 0, 0]), I64S([1, 1]), I64(1), NULL, OUT("out")], None),
        "NB_ERR_SHAPE")
    for variant, (sx, sw, st, pl, pr, dl, g) in {"basic": ((2, 3, 7), (4, 3, 3), 1, 0, 0, 1, 1),
                                                  "same-pad-stride2": ((1, 2, 8), (2, 2, 4), 2, 1, 2, 1, 1),
                                                  "dilation2-groups2": ((1, 4, 9), (2, 2, 3), 1, 0, 0, 2, 2)}.items():
        for dt in ("f32", "f64") if variant == "basic" else ("f32",):
            fam.forward("conv1d", dt, variant, lambda r, dt=dt, sx=sx, sw=sw, st=st, pl=pl, pr=pr, dl=dl, g=g: (
                [("x", dt, r.uniform(-1, 1, sx)), ("w", dt, r.uniform(-1, 1, sw)), ("b", dt, r.uniform(-1, 1, sw[0]))],
                [T("x"), T("w"), T("b"), I64(st), I64(pl), I64(pr), I64(dl), I64(g), NULL, OUT("out")],
                lambda x, w, b: {"out": conv2d(x[:, :, None], w[:, :, None], b, (1, st), (0, pl, 0, pr), (1, dl),
                                               g)[:, :, 0]}), tol="accumulate", grad=("x", "w", "b") if dt == "f32" else ())
    fam.error("conv1d", "f32", "channels", lambda r: (
        [("x", "f32", np.zeros((1, 3, 5))), ("w", "f32", np.zeros((2, 2, 3)))],
        [T("x"), T("w"), NULL, I64(1), I64(0), I64(0), I64(1), I64(1), NULL, OUT("out")], None), "NB_ERR_SHAPE")
    tvariants = {  # (x, w, stride, padding, output_padding, dilation, groups)
        "basic": ((2, 3, 4, 3), (3, 2, 3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1),
        "stride2-pad1-outpad1": ((1, 2, 3, 4), (2, 3, 3, 2), (2, 2), (1, 1), (1, 1), (1, 1), 1),
        "dilation2-groups2": ((1, 4, 3, 3), (4, 1, 2, 2), (1, 1), (0, 1), (0, 0), (2, 2), 2),
    }
    for variant, (sx, sw, st, pd, op, dl, g) in tvariants.items():
        for dt in ("f32", "f64") if variant == "basic" else ("f32",):
            fam.forward("conv_transpose2d", dt, variant, lambda r, dt=dt, sx=sx, sw=sw, st=st, pd=pd, op=op, dl=dl, g=g: (
                [("x", dt, r.uniform(-1, 1, sx)), ("w", dt, r.uniform(-1, 1, sw)),
                 ("b", dt, r.uniform(-1, 1, sw[1] * g))],
                [T("x"), T("w"), T("b"), I64S(st), I64S(pd), I64S(op), I64S(dl), I64(g), NULL, OUT("out")],
                lambda x, w, b: {"out": conv_transpose2d(x, w, b, st, pd, op, dl, g)}), tol="accumulate",
                grad=("x", "w", "b") if dt == "f32" else ())
    fam.error("conv_transpose2d", "f32", "channels", lambda r: (
        [("x", "f32", np.zeros((1, 3, 4, 4))), ("w", "f32", np.zeros((2, 2, 3, 3)))],
        [T("x"), T("w"), NULL, I64S([1, 1]), I64S([0, 0]), I64S([0, 0]), I64S([1, 1]), I64(1), NULL, OUT("out")],
        None), "NB_ERR_SHAPE")


def _distinct(r, shape):
    n = int(np.prod(shape))
    return (r.permutation(n) / n * 4 - 2).reshape(shape)


def _pooling(fam: Family) -> None:
    pools = {  # (x shape, kernel, stride or None, padding, dilation or None, ceil_mode)
        "k2": ((2, 2, 4, 6), (2, 2), None, (0, 0), None, 0),
        "k3-s2-p1": ((1, 3, 5, 6), (3, 3), (2, 2), (1, 1), None, 0),
        "k2-dilation2-ceil": ((1, 2, 7, 6), (2, 2), (2, 2), (0, 1), (2, 2), 1),
    }
    for variant, (sx, k, s, p, d, ceil) in pools.items():
        for dt in ("f32", "f64") if variant == "k2" else ("f32",):
            fam.forward("max_pool2d", dt, variant, lambda r, dt=dt, sx=sx, k=k, s=s, p=p, d=d, ceil=ceil: (
                [("x", dt, _distinct(r, sx))],
                [T("x"), I64S(k), I64S(s) if s else NULL, I64S(p), I64S(d) if d else NULL, I32(ceil), OUT("indices"),
                 NULL, OUT("out")],
                lambda x: dict(zip(("out", "indices"), max_pool2d(x, k, s or k, p, d or (1, 1), ceil)))),
                tol="exact", out_dt={"indices": "i64"}, grad=("x",) if dt == "f32" else (), grad_outputs=("out",))
    for dt in ("i32", "u8"):  # integers too, as PyTorch's CPU kernel
        fam.forward("max_pool2d", dt, "k3-s2-p1", lambda r, dt=dt: (
            [("x", dt, r.permutation(60).reshape(1, 2, 5, 6))],
            [T("x"), I64S((3, 3)), I64S((2, 2)), I64S((1, 1)), NULL, I32(0), OUT("indices"), NULL, OUT("out")],
            lambda x: dict(zip(("out", "indices"), max_pool2d(x, (3, 3), (2, 2), (1, 1), (1, 1), 0)))),
            tol="exact", out_dt={"indices": "i64"})
    fam.error("max_pool2d", "bool", "dtype", lambda r: (
        [("x", "bool", np.ones((1, 1, 4, 4)))], [T("x"), I64S([2, 2]), NULL, I64S([0, 0]), NULL, I32(0), NULL, NULL,
                                                 OUT("out")], None), "NB_ERR_NOT_IMPLEMENTED")
    fam.error("max_pool2d", "f32", "pad-too-large", lambda r: (
        [("x", "f32", np.zeros((1, 1, 4, 4)))], [T("x"), I64S([2, 2]), NULL, I64S([2, 2]), NULL, I32(0), NULL, NULL,
                                                 OUT("out")], None), "NB_ERR_INVALID_ARGUMENT")
    avgs = {  # (x, kernel, stride, padding, ceil, count_include_pad, divisor)
        "k2": ((2, 2, 4, 6), (2, 2), None, (0, 0), 0, 1, 0),
        "k3-s2-p1-include-pad": ((1, 2, 5, 5), (3, 3), (2, 2), (1, 1), 0, 1, 0),
        "k3-s2-p1-exclude-pad-ceil": ((1, 2, 6, 5), (3, 3), (2, 2), (1, 1), 1, 0, 0),
        "divisor5": ((1, 1, 4, 4), (2, 3), (1, 1), (0, 1), 0, 1, 5),
    }
    for variant, (sx, k, s, p, ceil, inc, div) in avgs.items():
        for dt in ("f32", "f64", "bf16") if variant == "k2" else ("f32",):
            fam.forward("avg_pool2d", dt, variant, lambda r, dt=dt, sx=sx, k=k, s=s, p=p, ceil=ceil, inc=inc, div=div: (
                [("x", dt, r.uniform(-2, 2, sx))],
                [T("x"), I64S(k), I64S(s) if s else NULL, I64S(p), I32(ceil), I32(inc), I64(div), NULL, OUT("out")],
                lambda x: {"out": avg_pool2d(x, k, s or k, p, ceil, inc, div)}), tol="accumulate",
                grad=("x",) if dt == "f32" else ())
    fam.forward("avg_pool2d", "i64", "k3-s2-p1-truncating", lambda r: (  # int64 sums divide toward zero
        [("x", "i64", r.integers(-20, 20, (1, 2, 5, 5)))],
        [T("x"), I64S((3, 3)), I64S((2, 2)), I64S((1, 1)), I32(0), I32(1), I64(0), NULL, OUT("out")],
        lambda x: {"out": np.trunc(avg_pool2d(x, (3, 3), (2, 2), (1, 1), 0, 1, 0))}), tol="exact")
    fam.error("avg_pool2d", "i32", "dtype", lambda r: (
        [("x", "i32", np.ones((1, 1, 4, 4)))], [T("x"), I64S([2, 2]), NULL, I64S([0, 0]), I32(0), I32(1), I64(0), NULL,
                                                OUT("out")], None), "NB_ERR_NOT_IMPLEMENTED")
    fam.error("avg_pool2d", "f32", "input-rank", lambda r: (
        [("x", "f32", np.zeros((4, 4)))], [T("x"), I64S([2, 2]), NULL, I64S([0, 0]), I32(0), I32(1), I64(0), NULL,
                                           OUT("out")], None), "NB_ERR_SHAPE")
    for variant, (sx, size) in {"7x5-to-3x2": ((2, 2, 7, 5), (3, 2)), "global": ((1, 3, 4, 4), (1, 1))}.items():
        for dt in ("f32", "f64"):
            fam.forward("adaptive_avg_pool2d", dt, variant, lambda r, dt=dt, sx=sx, size=size: (
                [("x", dt, r.uniform(-2, 2, sx))], [T("x"), I64S(size), NULL, OUT("out")],
                lambda x: {"out": adaptive_avg_pool2d(x, size)}), tol="accumulate", grad=("x",) if dt == "f32" else ())
    fam.error("adaptive_avg_pool2d", "f32", "input-rank", lambda r: (
        [("x", "f32", np.zeros((4, 4)))], [T("x"), I64S([2, 2]), NULL, OUT("out")], None), "NB_ERR_SHAPE")


def layer_norm(x, nd, w, b, eps):
    ax = tuple(range(x.ndim - nd, x.ndim))
    y = (x - x.mean(axis=ax, keepdims=True)) / np.sqrt(x.var(axis=ax, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def batch_norm(x, mean, var, w, b, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return y * (1 if w is None else w.reshape(shape)) + (0 if b is None else b.reshape(shape))


def group_norm(x, groups, w, b, eps):
    N, C = x.shape[:2]
    xg = x.reshape(N, groups, -1)
    y = ((xg - xg.mean(axis=2, keepdims=True)) / np.sqrt(xg.var(axis=2, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return y * w.reshape(shape) + b.reshape(shape)


def _norms(fam: Family) -> None:
    for dt in ("f32", "f64", "bf16"):
        fam.forward("layer_norm", dt, "last2-affine", lambda r, dt=dt: (
            [("x", dt, r.uniform(-2, 2, (2, 3, 4))), ("w", dt, r.uniform(0.5, 1.5, (3, 4))),
             ("b", dt, r.uniform(-1, 1, (3, 4)))], [T("x"), I64S([3, 4]), I32(2), T("w"), T("b"), F64(1e-5), NULL,
                                                    OUT("out")],
            lambda x, w, b: {"out": layer_norm(x, 2, w, b, 1e-5)}), tol="accumulate",
            grad=("x", "w", "b") if dt == "f32" else ())
    fam.forward("layer_norm", "f32", "last1-plain", lambda r: (
        [("x", "f32", r.uniform(-2, 2, (3, 5)))], [T("x"), I64S([5]), I32(1), NULL, NULL, F64(0.1), NULL, OUT("out")],
        lambda x: {"out": layer_norm(x, 1, None, None, 0.1)}), tol="accumulate", grad=("x",))
    fam.error("layer_norm", "f32", "shape", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64S([4]), I32(1), NULL, NULL, F64(1e-5), NULL, OUT("out")], None),
        "NB_ERR_SHAPE")
    for dt in ("f32", "f64"):
        def train(r, dt=dt):
            ins = [("x", dt, r.uniform(-2, 2, (4, 3, 2))), ("rm", dt, r.uniform(-1, 1, 3)),
                   ("rv", dt, r.uniform(0.5, 2, 3)), ("w", dt, r.uniform(0.5, 1.5, 3)), ("b", dt, r.uniform(-1, 1, 3))]
            args = [T("x"), T("rm"), T("rv"), T("w"), T("b"), I32(1), F64(0.1), F64(1e-5), NULL, OUT("out")]

            def ref(x, rm, rv, w, b):
                mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
                n = x.size / x.shape[1]
                return {"out": batch_norm(x, mean, var, w, b, 1e-5), "rm": 0.9 * rm + 0.1 * mean,
                        "rv": 0.9 * rv + 0.1 * var * n / (n - 1)}
            return ins, args, ref
        fam.forward("batch_norm", dt, "training", train, tol="accumulate",
                    grad=("x", "w", "b") if dt == "f32" else (), grad_outputs=("out",))
        fam.forward("batch_norm", dt, "eval", lambda r, dt=dt: (
            [("x", dt, r.uniform(-2, 2, (4, 3))), ("rm", dt, r.uniform(-1, 1, 3)), ("rv", dt, r.uniform(0.5, 2, 3)),
             ("w", dt, r.uniform(0.5, 1.5, 3)), ("b", dt, r.uniform(-1, 1, 3))],
            [T("x"), T("rm"), T("rv"), T("w"), T("b"), I32(0), F64(0.1), F64(1e-5), NULL, OUT("out")],
            lambda x, rm, rv, w, b: {"out": batch_norm(x, rm, rv, w, b, 1e-5)}), tol="accumulate",
            grad=("x", "w", "b") if dt == "f32" else (), grad_outputs=("out",))
    fam.error("batch_norm", "f32", "eval-without-stats", lambda r: (
        [("x", "f32", np.zeros((4, 3)))], [T("x"), NULL, NULL, NULL, NULL, I32(0), F64(0.1), F64(1e-5), NULL,
                                           OUT("out")], None), "NB_ERR_INVALID_ARGUMENT")
    for dt in ("f32", "f64"):
        fam.forward("group_norm", dt, "groups2", lambda r, dt=dt: (
            [("x", dt, r.uniform(-2, 2, (2, 4, 3))), ("w", dt, r.uniform(0.5, 1.5, 4)), ("b", dt, r.uniform(-1, 1, 4))],
            [T("x"), I64(2), T("w"), T("b"), F64(1e-5), NULL, OUT("out")],
            lambda x, w, b: {"out": group_norm(x, 2, w, b, 1e-5)}), tol="accumulate",
            grad=("x", "w", "b") if dt == "f32" else ())
    fam.error("group_norm", "f32", "groups-divide", lambda r: (
        [("x", "f32", np.zeros((2, 4, 3)))], [T("x"), I64(3), NULL, NULL, F64(1e-5), NULL, OUT("out")], None),
        "NB_ERR_SHAPE")


def nll(logp, target, weight, ignore, reduction):
    w = np.ones(logp.shape[1]) if weight is None else weight
    t = np.where(target == ignore, 0, target)
    picked = -np.take_along_axis(logp, t[:, None], 1)[:, 0] * w[t]
    wt = np.where(target == ignore, 0.0, w[t])
    loss = np.where(target == ignore, 0.0, picked)
    return reduce_loss(loss, reduction, np.sum(wt))


def _losses(fam: Family) -> None:
    N, C = 5, 4
    for red in (NONE, MEAN, SUM):
        rn = ("none", "mean", "sum")[red]

        def nll_build(r, red=red):
            ins = [("x", "f32", np.log(softmax(r.uniform(-2, 2, (N, C)), 1))), ("t", "i64", np.array([0, 3, 1, 3, 2])),
                   ("w", "f32", r.uniform(0.5, 2, C))]
            return ins, [T("x"), T("t"), T("w"), I64(1), I32(red), NULL, OUT("out")], \
                lambda x, t, w: {"out": nll(x, t, w, 1, red)}
        fam.forward("nll_loss", "f32", f"weight-ignore1-{rn}", nll_build, tol="accumulate", grad=("x",))
        for ls in (0.0, 0.2):
            def ce_build(r, red=red, ls=ls):
                ins = [("x", "f32", r.uniform(-2, 2, (N, C))), ("t", "i64", np.array([0, 3, 1, 3, 2]))]
                args = [T("x"), T("t"), NULL, I64(-100), I32(red), F64(ls), NULL, OUT("out")]

                def ref(x, t):
                    logp = np.log(softmax(x, 1))
                    smooth = -logp.mean(axis=1)
                    loss = (1 - ls) * -np.take_along_axis(logp, t[:, None], 1)[:, 0] + ls * smooth
                    return {"out": reduce_loss(loss, red)}
                return ins, args, ref
            fam.forward("cross_entropy", "f32", f"smoothing{ls}-{rn}", ce_build, tol="accumulate", grad=("x",))
        pairs = lambda r: [("x", "f32", r.uniform(-2, 2, (3, 4))), ("y", "f32", r.uniform(-2, 2, (3, 4)))]  # noqa
        fam.forward("mse_loss", "f32", rn, lambda r, red=red: (
            pairs(r), [T("x"), T("y"), NULL, I32(red), NULL, OUT("out")],
            lambda x, y: {"out": reduce_loss((x - y) ** 2, red)}), tol="accumulate", grad=("x", "y"))
        fam.forward("l1_loss", "f32", rn, lambda r, red=red: (
            pairs(r), [T("x"), T("y"), NULL, I32(red), NULL, OUT("out")],
            lambda x, y: {"out": reduce_loss(np.abs(x - y), red)}), tol="accumulate", grad=("x", "y"))
        fam.forward("smooth_l1_loss", "f32", f"beta0.5-{rn}", lambda r, red=red: (
            pairs(r), [T("x"), T("y"), I32(red), F64(0.5), NULL, OUT("out")],
            lambda x, y: {"out": reduce_loss(_smooth(np.abs(x - y), 0.5), red)}), tol="accumulate", grad=("x", "y"))
        fam.forward("huber_loss", "f32", f"delta0.7-{rn}", lambda r, red=red: (
            pairs(r), [T("x"), T("y"), NULL, I32(red), F64(0.7), NULL, OUT("out")],
            lambda x, y: {"out": reduce_loss(0.7 * _smooth(np.abs(x - y), 0.7), red)}), tol="accumulate",
            grad=("x", "y"))
        fam.forward("binary_cross_entropy", "f32", f"weight-{rn}", lambda r, red=red: (
            [("x", "f32", r.uniform(0.05, 0.95, (3, 4))), ("y", "f32", r.uniform(0, 1, (3, 4))),
             ("w", "f32", r.uniform(0.5, 2, (4,)))], [T("x"), T("y"), T("w"), I32(red), NULL, OUT("out")],
            lambda x, y, w: {"out": reduce_loss(-w * (y * np.log(x) + (1 - y) * np.log(1 - x)), red)}),
            tol="accumulate", grad=("x", "y"))
        fam.forward("binary_cross_entropy_with_logits", "f32", f"pos-weight-{rn}", lambda r, red=red: (
            [("x", "f32", r.uniform(-3, 3, (3, 4))), ("y", "f32", r.uniform(0, 1, (3, 4))),
             ("pw", "f32", r.uniform(0.5, 2, (4,)))], [T("x"), T("y"), NULL, T("pw"), I32(red), NULL, OUT("out")],
            lambda x, y, pw: {"out": reduce_loss(-(pw * y * -np.logaddexp(0, -x) + (1 - y) * -np.logaddexp(0, x)),
                                                 red)}), tol="accumulate", grad=("x", "y"))
        for lt in (0, 1):
            fam.forward("kl_div", "f32", f"log-target{lt}-{rn}", lambda r, red=red, lt=lt: (
                [("x", "f32", np.log(softmax(r.uniform(-2, 2, (3, 4)), 1))),
                 ("y", "f32", softmax(r.uniform(-2, 2, (3, 4)), 1) if not lt else np.log(softmax(r.uniform(-2, 2, (3, 4)),
                                                                                                  1)))],
                [T("x"), T("y"), I32(red), I32(lt), NULL, OUT("out")],
                lambda x, y: {"out": reduce_loss(np.exp(y) * (y - x) if lt else y * (np.log(y) - x), red)}),
                tol="accumulate", grad=("x", "y"))
    fam.forward("cross_entropy", "f32", "probabilities", lambda r: (
        [("x", "f32", r.uniform(-2, 2, (3, 4))), ("p", "f32", softmax(r.uniform(-2, 2, (3, 4)), 1))],
        [T("x"), T("p"), NULL, I64(-100), I32(MEAN), F64(0), NULL, OUT("out")],
        lambda x, p: {"out": np.mean(-(p * np.log(softmax(x, 1))).sum(axis=1))}), tol="accumulate", grad=("x", "p"))
    fam.forward("mse_loss", "f64", "mean", lambda r: (
        [("x", "f64", r.uniform(-2, 2, (3, 4))), ("y", "f64", r.uniform(-2, 2, (4,)))],
        [T("x"), T("y"), NULL, I32(MEAN), NULL, OUT("out")], lambda x, y: {"out": np.mean((x - y) ** 2)}),
        tol="accumulate")
    bad = lambda args, t=np.array([0, 4]): lambda r: (  # noqa: E731
        [("x", "f32", np.zeros((2, 4))), ("t", "i64", t), ("y", "f32", np.zeros((3, 4)))], args, None)
    fam.error("nll_loss", "f32", "target-range", bad([T("x"), T("t"), NULL, I64(-100), I32(1), NULL, OUT("out")]),
              "NB_ERR_INDEX")
    fam.error("cross_entropy", "f32", "target-range", bad([T("x"), T("t"), NULL, I64(-100), I32(1), F64(0), NULL,
                                                           OUT("out")]), "NB_ERR_INDEX")
    for op, args in (("mse_loss", [T("x"), T("y"), NULL, I32(1), NULL, OUT("out")]),
                     ("l1_loss", [T("x"), T("y"), NULL, I32(1), NULL, OUT("out")]),
                     ("smooth_l1_loss", [T("x"), T("y"), I32(1), F64(1), NULL, OUT("out")]),
                     ("huber_loss", [T("x"), T("y"), NULL, I32(1), F64(1), NULL, OUT("out")]),
                     ("binary_cross_entropy", [T("x"), T("y"), NULL, I32(1), NULL, OUT("out")]),
                     ("binary_cross_entropy_with_logits", [T("x"), T("y"), NULL, NULL, I32(1), NULL, OUT("out")]),
                     ("kl_div", [T("x"), T("y"), I32(1), I32(0), NULL, OUT("out")])):
        fam.error(op, "f32", "shape", bad(args), "NB_ERR_SHAPE")


def _smooth(z, beta):
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)


def _misc(fam: Family) -> None:
    for dt in ("f32", "f64", "i64"):
        fam.forward("embedding", dt, "2d-indices", lambda r, dt=dt: (
            [("w", dt, r.uniform(-2, 2, (5, 3))), ("i", "i64", np.array([[4, 0, 4], [1, 2, 0]]))],
            [T("w"), T("i"), I64(-1), NULL, OUT("out")], lambda w, i: {"out": w[i]}), tol="exact",
            grad=("w",) if dt == "f32" else ())
    fam.forward("embedding", "f32", "padding-idx0", lambda r: (
        [("w", "f32", r.uniform(-2, 2, (4, 2))), ("i", "i64", np.array([0, 3, 0, 1]))],
        [T("w"), T("i"), I64(0), NULL, OUT("out")], lambda w, i: {"out": w[i]}), tol="exact", grad=())
    fam.error("embedding", "f32", "index-range", lambda r: (
        [("w", "f32", np.zeros((4, 2))), ("i", "i64", np.array([4]))], [T("w"), T("i"), I64(-1), NULL, OUT("out")],
        None), "NB_ERR_INDEX")
    modes = {"constant": (0, "constant"), "reflect": (1, "reflect"), "replicate": (2, "edge"), "circular": (3, "wrap")}
    for name, (mode, np_mode) in modes.items():
        for dt in ("f32", "f64", "i64") if name == "constant" else ("f32",):
            fam.forward("pad", dt, name, lambda r, dt=dt, mode=mode, np_mode=np_mode: (
                [("x", dt, r.uniform(-2, 2, (1, 2, 3, 4)))], [T("x"), I64S([1, 2, 2, 1]), I32(4), I32(mode), F64(1.5),
                                                               NULL, OUT("out")],
                lambda x: {"out": np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 2)), np_mode,
                                         **({"constant_values": 1.5} if np_mode == "constant" else {}))}),
                tol="exact", grad=("x",) if dt == "f32" else ())
    fam.forward("pad", "f32", "constant-crop", lambda r: (
        [("x", "f32", r.uniform(-2, 2, (3, 5)))], [T("x"), I64S([-1, 2]), I32(2), I32(0), F64(0), NULL, OUT("out")],
        lambda x: {"out": np.pad(x[:, 1:], ((0, 0), (0, 2)))}), tol="exact", grad=("x",))
    fam.error("pad", "f32", "reflect-too-wide", lambda r: (
        [("x", "f32", np.zeros((1, 2, 3)))], [T("x"), I64S([3, 0]), I32(2), I32(1), F64(0), NULL, OUT("out")], None),
        "NB_ERR_SHAPE")
