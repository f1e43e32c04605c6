"""Matrix products (abi/ops/linalg.json) and attention (abi/ops/attention.json)."""
from __future__ import annotations

import math

import numpy as np

from .case import F64, I32, NULL, OUT, T
from .family import Family
from .reduce import softmax


def cases() -> Family:
    fam = Family("linalg")
    _products(fam)
    _attention(fam)
    return fam


def two(shape_a, shape_b, dt, fn, extra=()):
    def b(r):
        ints = dt in ("i32", "i64")
        draw = (lambda s: r.integers(-5, 6, s)) if ints else (lambda s: r.uniform(-2, 2, s))
        return [("a", dt, draw(shape_a)), ("b", dt, draw(shape_b))], [T("a"), T("b"), *extra, NULL, OUT("out")], \
            lambda a, b: {"out": fn(a, b)}
    return b


def _products(fam: Family) -> None:
    matmul_shapes = {"1d-1d": ((5,), (5,)), "2d-2d": ((3, 4), (4, 5)), "batch-broadcast": ((2, 1, 3, 4), (3, 4, 2)),
                     "1d-3d": ((4,), (2, 4, 3)), "3d-1d": ((2, 3, 4), (4,))}
    for variant, (sa, sb) in matmul_shapes.items():
        fam.forward("matmul", "f32", variant, two(sa, sb, "f32", np.matmul), tol="accumulate", grad=("a", "b"))
    for dt in ("f64", "f16", "bf16", "i64"):
        fam.forward("matmul", dt, "2d-2d", two((3, 4), (4, 5), dt, np.matmul), tol="accumulate" if dt[0] == "f" or
                    dt == "bf16" else "exact")
    simple = {"mm": ((3, 4), (4, 5), np.matmul), "bmm": ((2, 3, 4), (2, 4, 5), np.matmul),
              "mv": ((3, 4), (4,), np.matmul), "dot": ((6,), (6,), np.dot), "outer": ((3,), (4,), np.outer)}
    for op, (sa, sb, fn) in simple.items():
        for dt in ("f32", "f64", "bf16", "i32"):
            fam.forward(op, dt, "basic", two(sa, sb, dt, fn), tol="exact" if dt == "i32" or op == "outer" else
                        "accumulate", grad=("a", "b") if dt == "f32" else ())
        bad_b = tuple(n + 1 for n in sb) if op != "outer" else (4, 1)
        fam.error(op, "f32", "shape", two(sa, bad_b, "f32", fn), "NB_ERR_SHAPE")
    fam.error("matmul", "f32", "shape", two((3, 4), (5, 2), "f32", np.matmul), "NB_ERR_SHAPE")
    fam.error("matmul", "f32", "mixed-dtype", lambda r: (
        [("a", "f32", r.uniform(-1, 1, (2, 3))), ("b", "f64", r.uniform(-1, 1, (3, 2)))],
        [T("a"), T("b"), NULL, OUT("out")], None), "NB_ERR_DTYPE")
    for op, si, s1, s2 in (("addmm", (1, 5), (3, 4), (4, 5)), ("baddbmm", (2, 3, 1), (2, 3, 4), (2, 4, 5))):
        for dt in ("f32", "f64"):
            fam.forward(op, dt, "beta0.5-alpha2", lambda r, dt=dt, si=si, s1=s1, s2=s2: (
                [("input", dt, r.uniform(-2, 2, si)), ("m1", dt, r.uniform(-2, 2, s1)), ("m2", dt, r.uniform(-2, 2, s2))],
                [T("input"), T("m1"), T("m2"), F64(0.5), F64(2.0), NULL, OUT("out")],
                lambda input, m1, m2: {"out": 0.5 * input + 2.0 * np.matmul(m1, m2)}), tol="accumulate",
                grad=("input", "m1", "m2") if dt == "f32" else ())
        fam.error(op, "f32", "shape", lambda r, si=si, s1=s1, s2=s2: (
            [("input", "f32", np.zeros(si)), ("m1", "f32", np.zeros(s1)), ("m2", "f32", np.zeros(s1))],
            [T("input"), T("m1"), T("m2"), F64(1), F64(1), NULL, OUT("out")], None), "NB_ERR_SHAPE")
    for dt in ("f32", "f64", "bf16"):
        fam.forward("linear", dt, "bias", lambda r, dt=dt: (
            [("x", dt, r.uniform(-2, 2, (2, 3, 4))), ("w", dt, r.uniform(-1, 1, (5, 4))), ("bias", dt, r.uniform(-1, 1, 5))],
            [T("x"), T("w"), T("bias"), NULL, OUT("out")], lambda x, w, bias: {"out": x @ w.T + bias}),
            tol="accumulate", grad=("x", "w", "bias") if dt == "f32" else ())
    fam.forward("linear", "f32", "no-bias", lambda r: (
        [("x", "f32", r.uniform(-2, 2, (3, 4))), ("w", "f32", r.uniform(-1, 1, (2, 4)))],
        [T("x"), T("w"), NULL, NULL, OUT("out")], lambda x, w: {"out": x @ w.T}), tol="accumulate", grad=("x", "w"))
    fam.error("linear", "f32", "shape", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("w", "f32", np.zeros((5, 4)))], [T("x"), T("w"), NULL, NULL, OUT("out")],
        None), "NB_ERR_SHAPE")


def sdpa(q, k, v, mask=None, causal=False, scale=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        L, S = s.shape[-2:]
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    return softmax(s, -1) @ v


def _attention(fam: Family) -> None:
    qkv = lambda r, dt, L=3, S=4: [("q", dt, r.uniform(-1, 1, (2, L, 4))), ("k", dt, r.uniform(-1, 1, (2, S, 4))),  # noqa
                                   ("v", dt, r.uniform(-1, 1, (2, S, 3)))]
    nan = F64(float("nan"))
    for dt in ("f32", "f64", "bf16"):
        fam.forward("scaled_dot_product_attention", dt, "plain", lambda r, dt=dt: (
            qkv(r, dt), [T("q"), T("k"), T("v"), NULL, F64(0), I32(0), nan, NULL, OUT("out")],
            lambda q, k, v: {"out": sdpa(q, k, v)}), tol="accumulate", grad=("q", "k", "v") if dt == "f32" else ())
    fam.forward("scaled_dot_product_attention", "f32", "causal-scale0.3", lambda r: (
        qkv(r, "f32", 4, 4), [T("q"), T("k"), T("v"), NULL, F64(0), I32(1), F64(0.3), NULL, OUT("out")],
        lambda q, k, v: {"out": sdpa(q, k, v, causal=True, scale=0.3)}), tol="accumulate", grad=("q", "k", "v"))
    fam.forward("scaled_dot_product_attention", "f32", "bool-mask", lambda r: (
        qkv(r, "f32") + [("mask", "bool", np.array([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 1, 1]], bool))],
        [T("q"), T("k"), T("v"), T("mask"), F64(0), I32(0), nan, NULL, OUT("out")],
        lambda q, k, v, mask: {"out": sdpa(q, k, v, mask)}), tol="accumulate", grad=("q", "k", "v"))
    fam.forward("scaled_dot_product_attention", "f32", "float-mask", lambda r: (
        qkv(r, "f32") + [("mask", "f32", r.uniform(-1, 1, (3, 4)))],
        [T("q"), T("k"), T("v"), T("mask"), F64(0), I32(0), nan, NULL, OUT("out")],
        lambda q, k, v, mask: {"out": sdpa(q, k, v, mask)}), tol="accumulate", grad=("q", "k", "v", "mask"))
    fam.error("scaled_dot_product_attention", "f32", "shape", lambda r: (
        [("q", "f32", np.zeros((2, 3, 4))), ("k", "f32", np.zeros((2, 4, 5))), ("v", "f32", np.zeros((2, 4, 3)))],
        [T("q"), T("k"), T("v"), NULL, F64(0), I32(0), nan, NULL, OUT("out")], None), "NB_ERR_SHAPE")
