"""The nn backward kernels (abi/ops/nn_backward.json): vector-Jacobian products of the
forward references in nn.py, given the upstream gradient as an input."""
from __future__ import annotations

import numpy as np

from .case import F64, I32, I64, I64S, NULL, OUT, T, vjp
from .family import Family
from .nn import adaptive_avg_pool2d, avg_pool2d, batch_norm, conv2d, group_norm, layer_norm, max_pool2d
from .unary import _erf


def gelu_grad(x, tanh):
    """d gelu(x) / dx, exact (Phi + x phi) or of the tanh approximation."""
    if tanh:
        k, c = np.sqrt(2 / np.pi), 0.044715
        t = np.tanh(k * (x + c * x ** 3))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x)
    return 0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)


def _gelu(fam: Family) -> None:
    for tanh in (0, 1):
        variant = "tanh" if tanh else "erf"
        for dt in ("f32", "f64", "bf16"):
            fam.forward("gelu_backward", dt, variant, lambda r, tanh=tanh, dt=dt: (
                [("gy", dt, r.uniform(-1, 1, (3, 4, 5))), ("x", dt, r.uniform(-4, 4, (3, 4, 5)))],
                [T("gy"), T("x"), I32(tanh), NULL, OUT("out")], lambda gy, x: {"out": gy * gelu_grad(x, tanh)}),
                tol="transcendental", grad=("gy", "x") if dt == "f32" else ())
        fam.forward("gelu_backward", "f64", variant + "-broadcast", lambda r, tanh=tanh: (
            [("gy", "f64", r.uniform(-1, 1, (3, 4, 5))), ("x", "f64", r.uniform(-4, 4, (4, 5)))],
            [T("gy"), T("x"), I32(tanh), NULL, OUT("out")], lambda gy, x: {"out": gy * gelu_grad(x, tanh)}),
            tol="transcendental", grad=("gy", "x"))
    fam.error("gelu_backward", "f32", "shape", lambda r: (
        [("gy", "f32", np.zeros((2, 3))), ("x", "f32", np.zeros((3, 2)))], [T("gy"), T("x"), I32(0), NULL, OUT("out")],
        None), "NB_ERR_SHAPE")
    fam.error("gelu_backward", "i64", "dtype", lambda r: (
        [("gy", "i64", np.ones((2, 3))), ("x", "i64", np.ones((2, 3)))], [T("gy"), T("x"), I32(0), NULL, OUT("out")],
        None), "NB_ERR_DTYPE")


def cases() -> Family:
    fam = Family("nn_backward")
    convs = {"basic": ((2, 3, 5, 6), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
             "stride2-pad-dilation-groups2": ((1, 4, 7, 6), (2, 2, 2, 3), (2, 1), (1, 0, 2, 1), (2, 1), 2)}
    for variant, (sx, sw, st, pd, dl, g) in convs.items():
        for dt in ("f32", "f64"):
            def b_input(r, dt=dt, sx=sx, sw=sw, st=st, pd=pd, dl=dl, g=g):
                x, w = r.uniform(-1, 1, sx), r.uniform(-1, 1, sw)
                gy = r.uniform(-1, 1, conv2d(x, w, None, st, pd, dl, g).shape)
                args = [T("gy"), T("w"), I64S(sx[2:]), I64S(st), I64S(pd), I64S(dl), I64(g), NULL, OUT("out")]
                return [("gy", dt, gy), ("w", dt, w)], args, lambda gy, w: {"out": vjp(
                    lambda x: {"y": conv2d(x, w, None, st, pd, dl, g)}, {"x": np.zeros(sx)}, ["x"], {"y": gy})["x"]}
            fam.forward("conv2d_backward_input", dt, variant, b_input, tol="accumulate")

            def b_weight(r, dt=dt, sx=sx, sw=sw, st=st, pd=pd, dl=dl, g=g):
                x, w = r.uniform(-1, 1, sx), r.uniform(-1, 1, sw)
                gy = r.uniform(-1, 1, conv2d(x, w, None, st, pd, dl, g).shape)
                args = [T("gy"), T("x"), I64S(sw[2:]), I64S(st), I64S(pd), I64S(dl), I64(g), NULL, OUT("out")]
                return [("gy", dt, gy), ("x", dt, x)], args, lambda gy, x: {"out": vjp(
                    lambda w: {"y": conv2d(x, w, None, st, pd, dl, g)}, {"w": np.zeros(sw)}, ["w"], {"y": gy})["w"]}
            fam.forward("conv2d_backward_weight", dt, variant, b_weight, tol="accumulate")
    fam.error("conv2d_backward_input", "f32", "shape", lambda r: (
        [("gy", "f32", np.zeros((1, 4, 3, 3))), ("w", "f32", np.zeros((2, 3, 3, 3)))],
        [T("gy"), T("w"), I64S([5, 5]), I64S([1, 1]), I64S([0, 0, 0, 0]), I64S([1, 1]), I64(1), NULL, OUT("out")],
        None), "NB_ERR_SHAPE")
    fam.error("conv2d_backward_weight", "f32", "shape", lambda r: (
        [("gy", "f32", np.zeros((1, 4, 3, 3))), ("x", "f32", np.zeros((2, 3, 5, 5)))],
        [T("gy"), T("x"), I64S([3, 3]), I64S([1, 1]), I64S([0, 0, 0, 0]), I64S([1, 1]), I64(1), NULL, OUT("out")],
        None), "NB_ERR_SHAPE")

    def b_maxpool(r):
        sx = (2, 2, 5, 6)
        x = (r.permutation(120) / 30.0 - 2).reshape(sx)
        _, idx = max_pool2d(x, (3, 2), (2, 2), (1, 0), (1, 1), 0)
        gy = r.uniform(-1, 1, idx.shape)
        return [("gy", "f32", gy), ("idx", "i64", idx)], [T("gy"), T("idx"), I64S(sx[2:]), NULL, OUT("out")], \
            lambda gy, idx: {"out": vjp(lambda x: {"y": max_pool2d(x, (3, 2), (2, 2), (1, 0), (1, 1), 0)[0]},
                                        {"x": x}, ["x"], {"y": gy})["x"]}
    fam.forward("max_pool2d_backward", "f32", "k3x2-s2-p1x0", b_maxpool, tol="accumulate")
    fam.error("max_pool2d_backward", "f32", "index-dtype", lambda r: (
        [("gy", "f32", np.zeros((1, 1, 2, 2))), ("idx", "f32", np.zeros((1, 1, 2, 2)))],
        [T("gy"), T("idx"), I64S([4, 4]), NULL, OUT("out")], None), "NB_ERR_SHAPE")

    def b_embedding(r, dt="f32", scale=1):  # duplicates, padding_idx 2 and (scale) scale_grad_by_freq
        idx = np.array([[4, 1, 4], [0, 2, 4]])
        gy = r.uniform(-1, 1, (2, 3, 3))

        def ref(gy, idx):
            out, counts = np.zeros((5, 3)), np.bincount(idx.ravel(), minlength=5)
            for i, k in enumerate(idx.ravel()):
                if k != 2:
                    out[k] += gy.reshape(-1, 3)[i] / (counts[k] if scale else 1)
            return {"out": out}
        return [("gy", dt, gy), ("idx", "i64", idx)], [T("gy"), T("idx"), I64(5), I64(2), I32(scale), NULL,
                                                       OUT("out")], ref
    fam.forward("embedding_dense_backward", "f32", "padding-scale", b_embedding, tol="accumulate")
    # the gradient in grad_output gathers the rows back (without the frequency scale, as PyTorch's)
    fam.gradient("embedding_dense_backward", "f64", "padding",
                 lambda r: b_embedding(r, "f64", 0), wrt=["gy"])
    fam.error("embedding_dense_backward", "f32", "grad-shape", lambda r: (
        [("gy", "f32", np.zeros((2, 3))), ("idx", "i64", np.zeros(3))],
        [T("gy"), T("idx"), I64(5), I64(-1), I32(0), NULL, OUT("out")], None), "NB_ERR_SHAPE")
    for variant, (sx, k, s, p, inc, div) in {"k2": ((2, 2, 4, 6), (2, 2), None, (0, 0), 1, 0),
                                             "k3-s2-p1-exclude-pad": ((1, 2, 5, 5), (3, 3), (2, 2), (1, 1), 0, 0),
                                             "divisor5": ((1, 1, 4, 4), (2, 3), (1, 1), (0, 1), 1, 5)}.items():
        def b_avg(r, sx=sx, k=k, s=s, p=p, inc=inc, div=div):
            x = r.uniform(-1, 1, sx)
            gy = r.uniform(-1, 1, avg_pool2d(x, k, s or k, p, 0, inc, div).shape)
            args = [T("gy"), I64S(sx[2:]), I64S(k), I64S(s) if s else NULL, I64S(p), I32(inc), I64(div), NULL,
                    OUT("out")]
            return [("gy", "f32", gy)], args, lambda gy: {"out": vjp(
                lambda x: {"y": avg_pool2d(x, k, s or k, p, 0, inc, div)}, {"x": x}, ["x"], {"y": gy})["x"]}
        fam.forward("avg_pool2d_backward", "f32", variant, b_avg, tol="accumulate")
    fam.error("avg_pool2d_backward", "f32", "grad-output-size", lambda r: (  # 4 x 4, kernel 2 gives 2 x 2
        [("gy", "f32", np.zeros((1, 1, 3, 3)))], [T("gy"), I64S([4, 4]), I64S([2, 2]), NULL, I64S([0, 0]), I32(1),
                                                  I64(0), NULL, OUT("out")], None), "NB_ERR_SHAPE")
    fam.error("avg_pool2d_backward", "f32", "shape", lambda r: (
        [("gy", "f32", np.zeros((1, 3, 3)))], [T("gy"), I64S([4, 4]), I64S([2, 2]), NULL, I64S([0, 0]), I32(1),
                                                  I64(0), NULL, OUT("out")], None), "NB_ERR_SHAPE")

    def b_adaptive(r):
        x = r.uniform(-1, 1, (2, 2, 7, 5))
        gy = r.uniform(-1, 1, (2, 2, 3, 2))
        return [("gy", "f32", gy)], [T("gy"), I64S([7, 5]), NULL, OUT("out")], lambda gy: {"out": vjp(
            lambda x: {"y": adaptive_avg_pool2d(x, (3, 2))}, {"x": x}, ["x"], {"y": gy})["x"]}
    fam.forward("adaptive_avg_pool2d_backward", "f32", "7x5-to-3x2", b_adaptive, tol="accumulate")
    fam.error("adaptive_avg_pool2d_backward", "f32", "input-rank", lambda r: (
        [("gy", "f32", np.zeros((3, 2)))], [T("gy"), I64S([7, 5]), NULL, OUT("out")], None), "NB_ERR_SHAPE")
    _norms(fam)
    _gelu(fam)
    return fam


def _norm_grads(fn, x, w, gy):
    b = np.zeros_like(w)
    g = vjp(lambda x, w, b: {"y": fn(x, w, b)}, {"x": x, "w": w, "b": b}, ["x", "w", "b"], {"y": gy})
    return {"out": g["x"], "gw": g["w"], "gb": g["b"]}


def _norms(fam: Family) -> None:
    eps = 1e-5
    for dt in ("f32", "f64"):
        fam.forward("layer_norm_backward", dt, "last2", lambda r, dt=dt: (
            [("gy", dt, r.uniform(-1, 1, (2, 3, 4))), ("x", dt, r.uniform(-2, 2, (2, 3, 4))),
             ("w", dt, r.uniform(0.5, 1.5, (3, 4)))],
            [T("gy"), T("x"), I64S([3, 4]), I32(2), T("w"), F64(eps), OUT("gw"), OUT("gb"), NULL, OUT("out")],
            lambda gy, x, w: _norm_grads(lambda x, w, b: layer_norm(x, 2, w, b, eps), x, w, gy)), tol="accumulate")

        def bn(x, w, b):
            return batch_norm(x, x.mean(axis=(0, 2)), x.var(axis=(0, 2)), w, b, eps)
        fam.forward("batch_norm_backward", dt, "training", lambda r, dt=dt: (
            [("gy", dt, r.uniform(-1, 1, (4, 3, 2))), ("x", dt, r.uniform(-2, 2, (4, 3, 2))),
             ("w", dt, r.uniform(0.5, 1.5, 3))],
            [T("gy"), T("x"), T("w"), F64(eps), OUT("gw"), OUT("gb"), NULL, OUT("out")],
            lambda gy, x, w: _norm_grads(bn, x, w, gy)), tol="accumulate")
        fam.forward("group_norm_backward", dt, "groups2", lambda r, dt=dt: (
            [("gy", dt, r.uniform(-1, 1, (2, 4, 3))), ("x", dt, r.uniform(-2, 2, (2, 4, 3))),
             ("w", dt, r.uniform(0.5, 1.5, 4))],
            [T("gy"), T("x"), I64(2), T("w"), F64(eps), OUT("gw"), OUT("gb"), NULL, OUT("out")],
            lambda gy, x, w: _norm_grads(lambda x, w, b: group_norm(x, 2, w, b, eps), x, w, gy)), tol="accumulate")
    bad = [("gy", "f32", np.zeros((2, 3))), ("x", "f32", np.zeros((3, 2)))]
    fam.error("layer_norm_backward", "f32", "shape", lambda r: (bad, [
        T("gy"), T("x"), I64S([2]), I32(1), NULL, F64(eps), NULL, NULL, NULL, OUT("out")], None), "NB_ERR_SHAPE")
    fam.error("batch_norm_backward", "f32", "shape", lambda r: (bad, [
        T("gy"), T("x"), NULL, F64(eps), NULL, NULL, NULL, OUT("out")], None), "NB_ERR_SHAPE")
    fam.error("group_norm_backward", "f32", "shape", lambda r: (bad, [
        T("gy"), T("x"), I64(1), NULL, F64(eps), NULL, NULL, NULL, OUT("out")], None), "NB_ERR_SHAPE")
