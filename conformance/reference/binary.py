"""Binary elementwise ops (abi/ops/binary.json)."""
from __future__ import annotations

import numpy as np

from .case import F64, I32, NULL, OUT, T, round_to
from .family import Family
from .unary import away

SHAPE = (3, 4)
BCAST = ((3, 1), (1, 4))


def pair(r, shapes, kind):
    """Operands for an op family: `any` real values, `pos` positive bases, `div` divisors away from 0,
    `mod` pairs whose quotient stays 0.1 off integers, `apart` pairs at least 0.05 apart (no ties):
    drawn again until every broadcast pair qualifies."""
    sa, sb = shapes
    if kind == "pos":
        return r.uniform(0.3, 2.5, sa), r.uniform(-2, 2, sb)
    if kind == "div":
        return r.uniform(-3, 3, sa), away(r, 0.3, 2.5, sb)
    while True:
        a, b = r.uniform(-3, 3, sa), (away(r, 0.5, 2, sb) if kind == "mod" else r.uniform(-3, 3, sb))
        try:
            np.broadcast_shapes(sa, sb)
        except ValueError:
            return a, b
        if kind == "mod":
            q = a / b
            if np.all(np.abs(q - np.rint(q)) > 0.1):
                return a, b
        elif kind == "apart":
            if np.all(np.abs(a - b) > 0.05):
                return a, b
        else:
            return a, b


def floor_div(a, b):
    return np.floor_divide(a, b)


# op: (attribute args, reference, operand kind, tolerance, integer dtypes?)
ARITH = {
    "add": ([F64(2.0)], lambda a, b: a + 2.0 * b, "any", "correctly_rounded", True),
    "sub": ([F64(0.5)], lambda a, b: a - 0.5 * b, "any", "correctly_rounded", True),
    "mul": ([], lambda a, b: a * b, "any", "correctly_rounded", True),
    "div": ([I32(0)], lambda a, b: a / b, "div", "correctly_rounded", False),
    "remainder": ([], np.remainder, "mod", "exact", True),
    "fmod": ([], np.fmod, "mod", "exact", True),
    "pow": ([], np.power, "pos", "transcendental", False),
    "maximum": ([], np.maximum, "apart", "exact", True),
    "minimum": ([], np.minimum, "apart", "exact", True),
    "atan2": ([], np.arctan2, "div", "transcendental", False),
}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def binary(attrs=(), dst=None):
    return [T("a"), T("b"), *attrs, T(dst) if dst else NULL, OUT("out")]


def build(dt, attrs, fn, kind, shapes=(SHAPE, SHAPE), dts=None, ints=None):
    def b(r):
        da, db = dts or (dt, dt)
        if ints is not None:
            a, bb = r.integers(ints[0], ints[1], shapes[0]), r.integers(ints[0], ints[1], shapes[1])
        else:
            a, bb = pair(r, shapes, kind)
        return [("a", da, a), ("b", db, bb)], binary(attrs), lambda a, b: {"out": fn(a, b)}
    return b


def cases() -> Family:
    fam = Family("binary")
    with np.errstate(all="ignore"):
        _arith(fam)
        _predicates(fam)
        _igamma(fam)
        _nextafter(fam)
    return fam


def _nextafter(fam: Family) -> None:
    """Bit-exact in each format: NumPy's nextafter in float32 / float64, special values included."""
    special_a = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, 2.0, 0.5, 3.0, -2.5])
    special_b = np.array([1.0, -1.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 3.0, np.nan])
    for dt, npt in (("f32", np.float32), ("f64", np.float64)):
        fn = (lambda a, b, npt=npt: np.nextafter(a.astype(npt), b.astype(npt)).astype(np.float64))
        fam.forward("nextafter", dt, "basic", lambda r, dt=dt, fn=fn: (
            [("a", dt, r.uniform(-3, 3, SHAPE)), ("b", dt, r.uniform(-3, 3, SHAPE))], binary(),
            lambda a, b: {"out": fn(a, b)}), tol="exact")
        fam.forward("nextafter", dt, "special", lambda r, dt=dt, fn=fn: (
            [("a", dt, special_a), ("b", dt, special_b)], binary(), lambda a, b: {"out": fn(a, b)}), tol="exact")
    fam.error("nextafter", "i64", "integer", lambda r: (
        [("a", "i64", np.ones(3)), ("b", "i64", np.ones(3))], binary(), None), "NB_ERR_DTYPE")


def _regularised_gamma(upper: bool):
    """P(a, x) or Q(a, x) in float64 from mpmath (SciPy's edges: NaN for a < 0 or x < 0, P(0, x > 0) = 1)."""
    import mpmath

    def one(a, x):
        if np.isnan(a) or np.isnan(x) or a < 0 or x < 0 or (a == 0 and x == 0) or (np.isinf(a) and np.isinf(x)):
            return np.nan
        if a == 0:
            return 0.0 if upper else 1.0
        if np.isinf(a):
            return 1.0 if upper else 0.0
        lo, hi = (x, mpmath.inf) if upper else (0, x)
        return float(mpmath.gammainc(a, lo, hi, regularized=True))
    return np.vectorize(one, otypes=[np.float64])


def _igamma(fam: Family) -> None:
    def values(r, shapes):
        return r.uniform(0.2, 30.0, shapes[0]), r.uniform(0.05, 40.0, shapes[1])
    for op in ("igamma", "igammac"):
        fn = _regularised_gamma(op == "igammac")
        for dt in ("f32", "f64", "bf16"):
            fam.forward(op, dt, "basic", lambda r, dt=dt, fn=fn: (
                [("a", dt, values(r, (SHAPE, SHAPE))[0]), ("b", dt, values(r, (SHAPE, SHAPE))[1])], binary(),
                lambda a, b: {"out": fn(a, b)}), tol="transcendental")
        fam.forward(op, "f64", "broadcast", lambda r, fn=fn: (
            [("a", "f64", values(r, ((2, 3, 1), ()))[0]), ("b", "f64", values(r, ((), (3, 4)))[1])], binary(),
            lambda a, b: {"out": fn(a, b)}), tol="transcendental", grad=("b",))
        fam.forward(op, "f64", "large-a", lambda r, fn=fn: (
            [("a", "f64", np.array([25.0, 150.0, 400.0, 1e4])), ("b", "f64", np.array([27.0, 140.0, 410.0, 1.01e4]))],
            binary(), lambda a, b: {"out": fn(a, b)}), tol="transcendental")
        fam.forward(op, "f64", "edges", lambda r, fn=fn: (
            [("a", "f64", np.array([-1.0, 1.0, 0.0, 0.0, 2.0, np.inf, np.inf, 3.0, np.nan])),
             ("b", "f64", np.array([1.0, -1.0, 0.0, 2.0, 0.0, 1.0, np.inf, np.inf, 1.0]))],
            binary(), lambda a, b: {"out": fn(a, b)}), tol="transcendental")
        fam.error(op, "f32", "shape", lambda r: (
            [("a", "f32", np.ones((2, 3))), ("b", "f32", np.ones(4))], binary(), None), "NB_ERR_SHAPE")
        fam.error(op, "i32", "integer", lambda r: (
            [("a", "i32", np.ones(3)), ("b", "i32", np.ones(3))], binary(), None), "NB_ERR_DTYPE")


def _arith(fam: Family) -> None:
    for op, (attrs, fn, kind, tol, ints) in ARITH.items():
        for dt in ("f32", "f64", "f16", "bf16"):
            fam.forward(op, dt, "basic", build(dt, attrs, fn, kind), tol=tol)
        fam.forward(op, "f32", "broadcast", build("f32", attrs, fn, kind, BCAST), tol=tol, grad=("a", "b"))
        fam.forward(op, "f64", "broadcast", build("f64", attrs, fn, kind, ((2, 3, 1), (3, 4))), tol=tol,
                    grad=("a", "b"))
        if ints:
            lo = 1 if kind == "mod" else -20
            fn_int = (lambda a, b, fn=fn: fn(a, np.where(b == 0, 1, b))) if kind == "mod" else fn
            attrs_int = attrs
            if attrs:  # integer tensors take an integral alpha
                attrs_int, fn_int = [F64(2.0)], (lambda a, b, op=op: a + 2 * b if op == "add" else a - 2 * b)
            fam.forward(op, "i32", "basic", build("i32", attrs_int, fn_int, kind, ints=(lo, 20)), tol="exact")
            fam.forward(op, "u8", "basic", build("u8", attrs_int, fn_int, kind, ints=(1, 15)), tol="exact")
        fam.forward(op, "f32", "promote-i32", build("f32", attrs, fn, kind, dts=("i32", "f32"),
                                                    ints=(1, 9)), tol=tol)
        # the result dtype is float32, so the float64 0-dim operand is rounded to it first
        fam.forward(op, "f32", "zerodim-f64", build("f32", attrs, lambda a, b, fn=fn: fn(a, round_to(b, "f32")),
                                                    kind, ((3, 4), ()), dts=("f32", "f64")), tol=tol)
        fam.forward(op, "f64", "inplace", lambda r, attrs=attrs, fn=fn, kind=kind: (
            [("a", "f64", pair(r, (SHAPE, SHAPE), kind)[0]), ("b", "f64", pair(r, (SHAPE, SHAPE), kind)[1])],
            binary(attrs, dst="a"), lambda a, b: {"a": fn(a, b), "out": fn(a, b)}), tol=tol)
        fam.error(op, "f32", "shape", build("f32", attrs, fn, kind, ((2, 3), (4,))), "NB_ERR_SHAPE")
    fam.forward("div", "i32", "true", build("i32", [I32(0)], lambda a, b: a / b, "div", ints=(1, 20)),
                tol="correctly_rounded", out_dt="f32")
    for mode, fn in ((1, lambda a, b: np.trunc(a / b)), (2, floor_div)):
        name = "trunc" if mode == 1 else "floor"
        fam.forward("div", "f32", name, build("f32", [I32(mode)], fn, "mod"), tol="exact")
        fam.forward("div", "i64", name, build("i64", [I32(mode)], lambda a, b, fn=fn: fn(a, b).astype(np.int64),
                                              "mod", ints=(-30, 30), shapes=(SHAPE, SHAPE)), tol="exact")
    fam.error("div", "i64", "zero-divisor", lambda r: (
        [("a", "i64", np.arange(6).reshape(2, 3)), ("b", "i64", np.array([1, 0, 2]))], binary([I32(2)]), None),
        "NB_ERR_INVALID_ARGUMENT")
    for dt in ("f32", "f64", "bf16"):
        fam.forward("floor_divide", dt, "basic", build(dt, [], floor_div, "mod"), tol="exact")
    fam.forward("floor_divide", "i32", "basic", lambda r: (
        [("a", "i32", r.integers(-20, 20, SHAPE)), ("b", "i32", away(r, 1, 5).astype(int))], binary(),
        lambda a, b: {"out": floor_div(a, b)}), tol="exact")
    fam.error("floor_divide", "f32", "shape", build("f32", [], floor_div, "mod", ((3,), (2,))), "NB_ERR_SHAPE")
    fam.forward("pow", "i64", "basic", lambda r: (
        [("a", "i64", r.integers(-4, 5, SHAPE)), ("b", "i64", r.integers(0, 6, SHAPE))], binary(),
        lambda a, b: {"out": np.power(a, b)}), tol="exact")
    fam.forward("pow", "f32", "special", lambda r: (
        [("a", "f32", np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0])),
         ("b", "f32", np.array([0.0, -1.0, -2.0, 3.0, 0.0, np.nan, np.inf, 0.5]))], binary(),
        lambda a, b: {"out": np.power(a, b)}), tol="transcendental")
    fam.forward("maximum", "f32", "nan", lambda r: (
        [("a", "f32", np.array([np.nan, 1.0, -np.inf, 2.0])), ("b", "f32", np.array([0.0, np.nan, 3.0, np.inf]))],
        binary(), lambda a, b: {"out": np.maximum(a, b)}), tol="exact")
    fam.forward("minimum", "f32", "nan", lambda r: (
        [("a", "f32", np.array([np.nan, 1.0, -np.inf, 2.0])), ("b", "f32", np.array([0.0, np.nan, 3.0, np.inf]))],
        binary(), lambda a, b: {"out": np.minimum(a, b)}), tol="exact")


def _predicates(fam: Family) -> None:
    def ties(dt, fn, shapes=(SHAPE, SHAPE), dts=None):
        def b(r):
            da, db = dts or (dt, dt)
            a = r.integers(-2, 3, shapes[0]).astype(float)
            bb = r.integers(-2, 3, shapes[1]).astype(float)
            if da in ("f32", "f64", "f16", "bf16"):
                a[..., 0] = np.nan if a.ndim else a
            return [("a", da, a), ("b", db, bb)], binary(), lambda a, b: {"out": fn(a, b)}
        return b
    for op, fn in COMPARE.items():
        for dt in ("f32", "f64", "f16", "bf16", "i32", "u8", "bool"):
            fam.forward(op, dt, "basic", ties(dt, fn) if dt != "bool" else build("bool", [], fn, "any", ints=(0, 2)),
                        tol="exact", out_dt="bool")
        fam.forward(op, "f32", "broadcast-promote", ties("f32", fn, BCAST, ("i64", "f32")), tol="exact",
                    out_dt="bool")
        fam.error(op, "f32", "shape", ties("f32", fn, ((2,), (3,))), "NB_ERR_SHAPE")
    for op, fn in LOGICAL.items():
        for dt in ("bool", "f32", "i32"):
            fam.forward(op, dt, "basic", build(dt, [], fn, "any", ints=(0, 3)), tol="exact", out_dt="bool")
        fam.error(op, "bool", "shape", build("bool", [], fn, "any", ((2,), (3,)), ints=(0, 2)), "NB_ERR_SHAPE")
    for op, fn in BITWISE.items():
        for dt in ("i32", "i64", "u8", "bool"):
            fam.forward(op, dt, "basic", build(dt, [], fn, "any", ints=(0, 2) if dt == "bool" else (-100, 100)),
                        tol="exact")
        fam.error(op, "f32", "dtype", build("f32", [], fn, "any"), "NB_ERR_DTYPE")
    for op, fn in (("bitwise_left_shift", np.left_shift), ("bitwise_right_shift", np.right_shift)):
        for dt in ("i32", "i64", "u8"):
            fam.forward(op, dt, "basic", lambda r, dt=dt, fn=fn: (
                [("a", dt, r.integers(0 if dt == "u8" else -50, 50, SHAPE)), ("b", dt, r.integers(0, 5, SHAPE))],
                binary(), lambda a, b: {"out": fn(a, b)}), tol="exact")
        fam.error(op, "f32", "dtype", build("f32", [], fn, "any"), "NB_ERR_DTYPE")
