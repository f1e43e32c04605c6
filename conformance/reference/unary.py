"""Unary elementwise ops (abi/ops/unary.json)."""
from __future__ import annotations

import math

import numpy as np

from .case import F64, I32, NULL, OUT, T
from .family import Family

SHAPE = (3, 4)
_erf = np.vectorize(math.erf, otypes=[float])
_erfc = np.vectorize(math.erfc, otypes=[float])


def away(r, lo, hi, shape=SHAPE, gap=0.05):
    """Uniform magnitudes in [lo, hi] with random signs, at least `gap` from 0 (no kinks)."""
    return r.choice([-1.0, 1.0], shape) * r.uniform(max(lo, gap), hi, shape)


def off_grid(r, lo, hi, shape=SHAPE):
    """Values whose fractional part stays in (0.1, 0.4) or (0.6, 0.9): away from integers and halves."""
    k = r.integers(lo, hi, shape).astype(float)
    f = r.uniform(0.1, 0.4, shape) + 0.5 * r.integers(0, 2, shape)
    return k + f


def gelu(x, tanh):
    if tanh:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def softplus(x, beta, threshold):
    with np.errstate(over="ignore"):
        return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


# op: (reference, sampler(r), tolerance class, differentiable)
FLOAT_OPS = {
    "exp": (np.exp, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "exp2": (np.exp2, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "expm1": (np.expm1, lambda r: r.uniform(-2, 2, SHAPE), "transcendental"),
    "log": (np.log, lambda r: r.uniform(0.1, 4, SHAPE), "transcendental"),
    "log2": (np.log2, lambda r: r.uniform(0.1, 4, SHAPE), "transcendental"),
    "log10": (np.log10, lambda r: r.uniform(0.1, 4, SHAPE), "transcendental"),
    "log1p": (np.log1p, lambda r: r.uniform(-0.5, 3, SHAPE), "transcendental"),
    "sqrt": (np.sqrt, lambda r: r.uniform(0.1, 4, SHAPE), "correctly_rounded"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), lambda r: r.uniform(0.1, 4, SHAPE), "transcendental"),
    "sin": (np.sin, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "cos": (np.cos, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "tan": (np.tan, lambda r: r.uniform(-1.2, 1.2, SHAPE), "transcendental"),
    "asin": (np.arcsin, lambda r: r.uniform(-0.9, 0.9, SHAPE), "transcendental"),
    "acos": (np.arccos, lambda r: r.uniform(-0.9, 0.9, SHAPE), "transcendental"),
    "atan": (np.arctan, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "sinh": (np.sinh, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "cosh": (np.cosh, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "tanh": (np.tanh, lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), lambda r: r.uniform(-4, 4, SHAPE), "transcendental"),
    "erf": (_erf, lambda r: r.uniform(-2, 2, SHAPE), "transcendental"),
    "erfc": (_erfc, lambda r: r.uniform(-2, 2, SHAPE), "transcendental"),
    "reciprocal": (lambda x: 1 / x, lambda r: away(r, 0.2, 3), "correctly_rounded"),
    "silu": (lambda x: x / (1 + np.exp(-x)), lambda r: r.uniform(-4, 4, SHAPE), "transcendental"),
    "neg": (np.negative, lambda r: r.uniform(-3, 3, SHAPE), "exact"),
    "abs": (np.abs, lambda r: away(r, 0, 3), "exact"),
    "sign": (np.sign, lambda r: away(r, 0, 3), "exact"),
    "relu": (lambda x: np.maximum(x, 0), lambda r: away(r, 0, 3), "exact"),
    "square": (np.square, lambda r: r.uniform(-3, 3, SHAPE), "correctly_rounded"),
    "floor": (np.floor, lambda r: off_grid(r, -3, 3), "exact"),
    "ceil": (np.ceil, lambda r: off_grid(r, -3, 3), "exact"),
    "round": (np.rint, lambda r: off_grid(r, -3, 3), "exact"),
    "trunc": (np.trunc, lambda r: off_grid(r, -3, 3), "exact"),
}

# Ops with attributes: op -> [(variant, attribute args, reference, sampler, tol)]
ATTR_OPS = {
    "gelu": [("erf", [I32(0)], lambda x: gelu(x, False), lambda r: r.uniform(-3, 3, SHAPE), "transcendental"),
             ("tanh", [I32(1)], lambda x: gelu(x, True), lambda r: r.uniform(-3, 3, SHAPE), "transcendental")],
    "leaky_relu": [("slope0.1", [F64(0.1)], lambda x: np.where(x > 0, x, 0.1 * x), lambda r: away(r, 0, 3),
                    "correctly_rounded")],
    "elu": [("alpha1.5", [F64(1.5)], lambda x: np.where(x > 0, x, 1.5 * np.expm1(x)), lambda r: away(r, 0, 3),
             "transcendental")],
    "softplus": [("default", [F64(1.0), F64(20.0)], lambda x: softplus(x, 1.0, 20.0),
                  lambda r: r.uniform(-4, 4, SHAPE), "transcendental"),
                 ("beta2-threshold1", [F64(2.0), F64(1.0)], lambda x: softplus(x, 2.0, 1.0),
                  lambda r: away(r, 0, 2) + 0.5, "transcendental")],
    "clamp": [("both", [F64(-0.5), F64(0.75)], lambda x: np.clip(x, -0.5, 0.75),
               lambda r: r.choice([-1.5, -0.1, 0.3, 1.2], SHAPE) + r.uniform(-0.08, 0.08, SHAPE), "exact"),
              ("max-only", [F64(float("-inf")), F64(0.5)], lambda x: np.minimum(x, 0.5),
               lambda r: r.choice([-1.0, 0.2, 1.0], SHAPE) + r.uniform(-0.1, 0.1, SHAPE), "exact")],
    "nan_to_num": [("special", [F64(0.0), F64(100.0), F64(-100.0)],
                    lambda x: np.nan_to_num(x, nan=0.0, posinf=100.0, neginf=-100.0),
                    lambda r: np.where(r.random(SHAPE) < 0.4, r.choice([np.nan, np.inf, -np.inf], SHAPE),
                                       r.uniform(-3, 3, SHAPE)), "exact")],
}

SPECIAL = np.array([[np.nan, np.inf, -np.inf, -0.0], [0.0, 1e-30, -2.5, 0.5], [1.0, -1.0, 3.0, 100.0]])
SPECIAL_OPS = ["exp", "log", "sqrt", "neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc",
               "sigmoid", "tanh", "reciprocal", "square"]
INT_OPS = {"neg": np.negative, "abs": np.abs, "sign": np.sign, "square": np.square}
PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


def unary(x_name="x", attrs=(), dst=False):
    return [T(x_name), *attrs, T("d") if dst else NULL, OUT("out")]


def simple(fn, sampler, dt, attrs=(), x=None):
    def build(r):
        xv = sampler(r) if x is None else x
        return [("x", dt, xv)], unary(attrs=attrs), lambda x: {"out": fn(x)}
    return build


def cases() -> Family:
    fam = Family("unary")
    with np.errstate(all="ignore"):
        _float_ops(fam)
        _other_ops(fam)
    return fam


def _float_ops(fam: Family) -> None:
    for op, (fn, sampler, tol) in FLOAT_OPS.items():
        for dt in ("f32", "f64", "f16", "bf16"):
            fam.forward(op, dt, "basic", simple(fn, sampler, dt), tol=tol, grad=("x",) if dt == "f32" else ())
        if op in SPECIAL_OPS:
            fam.forward(op, "f32", "special", simple(fn, None, "f32", x=SPECIAL), tol=tol)
        fam.error(op, "f32", "dst-dtype", lambda r: (
            [("x", "f32", r.uniform(0.5, 1, (2, 3))), ("d", "i64", np.zeros((2, 3)))], unary(dst=True), None),
            "NB_ERR_DTYPE")
    for op in ("exp", "neg"):  # an out= tensor of another shape is resized (an empty one without a warning)
        fam.forward(op, "f32", "dst-resize", lambda r, fn=FLOAT_OPS[op][0]: (
            [("x", "f32", r.uniform(0.5, 1, (2, 3))), ("d", "f32", np.zeros((0,)))], unary(dst=True),
            lambda x, d: {"d": fn(x), "out": fn(x)}), tol=FLOAT_OPS[op][2])
    for op in ("floor", "ceil", "round", "trunc", "neg", "abs"):
        fam.forward(op, "f64", "inplace", lambda r, fn=FLOAT_OPS[op][0], s=FLOAT_OPS[op][1]: (
            [("x", "f64", s(r))], [T("x"), T("x"), OUT("out")], lambda x: {"x": fn(x), "out": fn(x)}), tol="exact")
    for op, variants in ATTR_OPS.items():
        for variant, attrs, fn, sampler, tol in variants:
            for dt in ("f32", "f64", "bf16"):
                fam.forward(op, dt, variant, simple(fn, sampler, dt, attrs), tol=tol,
                            grad=("x",) if dt == "f32" else ())
        attrs = variants[0][1]
        fam.error(op, "i64", "dtype", lambda r, attrs=attrs: (
            [("x", "f32", r.uniform(-1, 1, (2, 3))), ("d", "i64", np.zeros((2, 3)))], unary(attrs=attrs, dst=True),
            None), "NB_ERR_DTYPE")
    fam.error("clamp", "f32", "nan-bound", simple(None, lambda r: r.uniform(-1, 1, SHAPE), "f32",
                                                    [F64(float("nan")), F64(1.0)]), "NB_ERR_INVALID_ARGUMENT")
    for op, fn in INT_OPS.items():
        for dt in ("i32", "i64", "i8"):
            fam.forward(op, dt, "basic", simple(fn, lambda r: r.integers(-9, 9, SHAPE), dt), tol="exact")


def _other_ops(fam: Family) -> None:
    for dt in ("i32", "u8", "bool"):
        fam.forward("bitwise_not", dt, "basic",
                    simple(lambda x: ~x if x.dtype == bool else ~x.astype(np.int64), lambda r: r.integers(0, 100, SHAPE)
                           if dt != "bool" else r.integers(0, 2, SHAPE), dt), tol="exact")
    fam.error("bitwise_not", "f32", "dtype", simple(None, lambda r: r.uniform(0, 1, SHAPE), "f32"), "NB_ERR_DTYPE")
    for dt in ("f32", "i32", "bool"):
        fam.forward("logical_not", dt, "basic", simple(lambda x: ~(x != 0), lambda r: r.integers(0, 3, SHAPE), dt),
                    tol="exact", out_dt="bool")
    fam.error("logical_not", "f32", "null-input", lambda r: ([], [NULL, NULL, OUT("out")], None),
              "NB_ERR_INVALID_ARGUMENT")
    for op, fn in PREDICATES.items():
        for dt in ("f32", "f16", "f64"):
            fam.forward(op, dt, "special", simple(fn, None, dt, x=SPECIAL), tol="exact", out_dt="bool")
        fam.forward(op, "i32", "basic", simple(fn, lambda r: r.integers(-5, 5, SHAPE), "i32"), tol="exact",
                    out_dt="bool")
        fam.error(op, "f32", "null-input", lambda r: ([], [NULL, NULL, OUT("out")], None), "NB_ERR_INVALID_ARGUMENT")
    _where(fam)


def _where(fam: Family) -> None:
    def build(dt, shapes):
        def b(r):
            cs, as_, bs = shapes
            ins = [("c", "bool", r.random(cs) < 0.5), ("a", dt, r.uniform(-3, 3, as_)), ("b", dt, r.uniform(-3, 3, bs))]
            return ins, [T("c"), T("a"), T("b"), NULL, OUT("out")], lambda c, a, b: {"out": np.where(c, a, b)}
        return b
    for dt in ("f32", "f64", "bf16", "i64"):
        fam.forward("where", dt, "basic", build(dt, [(3, 4)] * 3), tol="exact")
    fam.forward("where", "f32", "broadcast", build("f32", [(3, 1), (1, 4), (4,)]), tol="exact", grad=("a", "b"))
    fam.error("where", "f32", "shape", build("f32", [(3,), (2,), (3,)]), "NB_ERR_SHAPE")
