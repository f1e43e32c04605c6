"""Reductions, scans and softmax (abi/ops/reduce.json)."""
from __future__ import annotations

import numpy as np

from .case import F64, I32, I64, I64S, NULL, OUT, T
from .family import Family

SHAPE = (3, 4, 5)
# variant: (dims or None for every dim, keepdim)
DIMS = {"dim1": ([1], 0), "dims0-2-keepdim": ([0, -1], 1), "all": (None, 0)}


def axes(dims):
    return None if dims is None else tuple(dims)


def dims_args(dims):
    return [I64S(dims), I32(len(dims))] if dims is not None else [NULL, I32(0)]


def lse(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis) if axis is not None else r.reshape(())


def softmax(x, d):
    e = np.exp(x - np.max(x, axis=d, keepdims=True))
    return e / np.sum(e, axis=d, keepdims=True)


# op: (extra args after dims/keepdim builder, reference(x, axis, keepdims), sampler, tol)
def _norm(p):
    def f(x, axis, keepdims):
        a = np.abs(x)
        if p == np.inf:
            return np.max(a, axis=axis, keepdims=keepdims)
        return np.sum(a ** p, axis=axis, keepdims=keepdims) ** (1 / p)
    return f


def cases() -> Family:
    fam = Family("reduce")
    _reductions(fam)
    _index_reductions(fam)
    _scans(fam)
    return fam


def _reduction(fam, op, args_fn, ref, tol, sampler=lambda r: r.uniform(-2, 2, SHAPE), dts=("f32", "f64", "f16",
               "bf16"), grad=True, out_dt=None):
    for variant, (dims, keep) in DIMS.items():
        for dt in dts if variant == "dim1" else ("f32",):
            fam.forward(op, dt, variant, lambda r, dims=dims, keep=keep, dt=dt: (
                [("x", dt, sampler(r))], [T("x"), *args_fn(dims, keep), NULL, OUT("out")],
                lambda x: {"out": ref(x, axes(dims), bool(keep))}), tol=tol, out_dt=out_dt,
                grad=("x",) if grad and dt == "f32" else ())
    fam.error(op, "f32", "dim-range", lambda r: (
        [("x", "f32", r.uniform(-1, 1, (2, 3)))], [T("x"), *args_fn([2], 0), NULL, OUT("out")], None), "NB_ERR_INDEX")


def _reductions(fam: Family) -> None:
    std_args = lambda dims, keep: [*dims_args(dims), I32(keep), I32(-1)]  # noqa: E731
    _reduction(fam, "sum", std_args, lambda x, a, k: np.sum(x, axis=a, keepdims=k), "accumulate")
    _reduction(fam, "mean", std_args, lambda x, a, k: np.mean(x, axis=a, keepdims=k), "accumulate")
    _reduction(fam, "prod", std_args, lambda x, a, k: np.prod(x, axis=a, keepdims=k), "accumulate",
               sampler=lambda r: r.choice([-1, 1], SHAPE) * r.uniform(0.7, 1.4, SHAPE))
    for dt in ("i32", "u8", "bool"):
        fam.forward("sum", dt, "dim1-int64", lambda r, dt=dt: (
            [("x", dt, r.integers(0, 2 if dt == "bool" else 50, SHAPE))], [T("x"), I64S([1]), I32(1), I32(0), I32(-1),
                                                                           NULL, OUT("out")],
            lambda x: {"out": np.sum(x.astype(np.int64), axis=1)}), tol="exact", out_dt="i64")
    fam.forward("sum", "f64", "dtype-f64-from-f32", lambda r: (
        [("x", "f32", r.uniform(-2, 2, SHAPE))], [T("x"), I64S([2]), I32(1), I32(0), I32(1), NULL, OUT("out")],
        lambda x: {"out": np.sum(x, axis=2)}), tol="accumulate", out_dt="f64")
    fam.forward("mean", "f32", "empty", lambda r: (
        [("x", "f32", np.zeros((0, 3)))], [T("x"), I64S([0]), I32(1), I32(0), I32(-1), NULL, OUT("out")],
        lambda x: {"out": np.full(3, np.nan)}), tol="accumulate")
    plain = lambda dims, keep: [*dims_args(dims), I32(keep)]  # noqa: E731
    distinct = lambda r: r.permutation(60).reshape(SHAPE) / 7.0 - 4  # noqa: E731  (no ties)
    _reduction(fam, "amax", plain, lambda x, a, k: np.max(x, axis=a, keepdims=k), "exact", sampler=distinct)
    _reduction(fam, "amin", plain, lambda x, a, k: np.min(x, axis=a, keepdims=k), "exact", sampler=distinct)
    _reduction(fam, "logsumexp", plain, lse, "accumulate")
    for op in ("all", "any"):
        fn = np.all if op == "all" else np.any
        _reduction(fam, op, plain, lambda x, a, k, fn=fn: fn(x != 0, axis=a, keepdims=k), "exact",
                   sampler=lambda r: r.random(SHAPE) < 0.8, dts=("bool", "f32", "i32"), grad=False, out_dt="bool")
    for op, fn in (("var", np.var), ("std", np.std)):
        for corr in (1, 0):
            args = lambda dims, keep, c=corr: [*dims_args(dims), F64(c), I32(keep)]  # noqa: E731
            for variant, (dims, keep) in DIMS.items():
                fam.forward(op, "f32", f"{variant}-correction{corr}", lambda r, dims=dims, keep=keep, args=args, c=corr,
                            fn=fn: ([("x", "f32", r.uniform(-2, 2, SHAPE))], [T("x"), *args(dims, keep), NULL,
                                                                               OUT("out")],
                                    lambda x: {"out": fn(x, axis=axes(dims), ddof=c, keepdims=bool(keep))}),
                            tol="accumulate", grad=("x",))
        fam.forward(op, "f64", "dim1-correction1", lambda r, fn=fn: (
            [("x", "f64", r.uniform(-2, 2, SHAPE))], [T("x"), I64S([1]), I32(1), F64(1), I32(0), NULL, OUT("out")],
            lambda x: {"out": fn(x, axis=1, ddof=1)}), tol="accumulate")
        fam.error(op, "f32", "dim-range", lambda r: (
            [("x", "f32", r.uniform(-1, 1, (2, 3)))], [T("x"), I64S([5]), I32(1), F64(1), I32(0), NULL, OUT("out")],
            None), "NB_ERR_INDEX")
    for pname, p in (("2", 2.0), ("1", 1.0), ("inf", np.inf), ("3", 3.0)):
        args = lambda dims, keep, p=p: [F64(p), *dims_args(dims), I32(keep), I32(-1)]  # noqa: E731
        for variant, (dims, keep) in DIMS.items():
            fam.forward("norm", "f32", f"p{pname}-{variant}", lambda r, dims=dims, keep=keep, args=args, p=p: (
                [("x", "f32", r.choice([-1, 1], SHAPE) * r.uniform(0.1, 2, SHAPE) if p != np.inf else distinct(r))],
                [T("x"), *args(dims, keep), NULL, OUT("out")],
                lambda x: {"out": _norm(p)(x, axes(dims), bool(keep))}), tol="accumulate", grad=("x",))
    fam.error("norm", "i64", "dtype", lambda r: (
        [("x", "i64", r.integers(0, 5, (2, 3)))], [T("x"), F64(2), NULL, I32(0), I32(0), I32(-1), NULL, OUT("out")],
        None), "NB_ERR_DTYPE")


def _index_reductions(fam: Family) -> None:
    distinct = lambda r: r.permutation(60).reshape(SHAPE) / 7.0 - 4  # noqa: E731
    for op, fv, fi in (("max_dim", np.max, np.argmax), ("min_dim", np.min, np.argmin)):
        for dt in ("f32", "f64", "bf16", "i32"):
            for dim, keep in ((1, 0), (-1, 1)):
                fam.forward(op, dt, f"dim{dim}-keepdim{keep}", lambda r, dim=dim, keep=keep, dt=dt, fv=fv, fi=fi: (
                    [("x", dt, distinct(r) * (7 if dt == "i32" else 1))],
                    [T("x"), I64(dim), I32(keep), NULL, NULL, OUT("values"), OUT("indices")],
                    lambda x: {"values": fv(x, axis=dim, keepdims=bool(keep)),
                               "indices": fi(x, axis=dim, keepdims=bool(keep))}),
                    tol="exact", out_dt={"indices": "i64"}, grad=("x",) if dt == "f32" else ())
        fam.error(op, "f32", "dim-range", lambda r: (
            [("x", "f32", r.uniform(-1, 1, (2, 3)))], [T("x"), I64(2), I32(0), NULL, NULL, OUT("values"),
                                                       OUT("indices")], None), "NB_ERR_INDEX")
    for op, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        for dt in ("f32", "f64", "i64"):
            fam.forward(op, dt, "dim1", lambda r, dt=dt, fn=fn: (
                [("x", dt, distinct(r) * (7 if dt == "i64" else 1))], [T("x"), I64S([1]), I32(0), NULL, OUT("out")],
                lambda x: {"out": fn(x, axis=1)}), tol="exact", out_dt="i64")
        fam.forward(op, "f32", "flat", lambda r, fn=fn: (
            [("x", "f32", distinct(r))], [T("x"), NULL, I32(0), NULL, OUT("out")], lambda x: {"out": fn(x)}),
            tol="exact", out_dt="i64")
        fam.forward(op, "f32", "ties-nan", lambda r, fn=fn: (
            [("x", "f32", np.array([[1.0, 3.0, 3.0, -1.0, -1.0], [0.0, np.nan, 5.0, np.nan, -9.0]]))],
            [T("x"), I64S([1]), I32(1), NULL, OUT("out")], lambda x: {"out": fn(x, axis=1, keepdims=True)}),
            tol="exact", out_dt="i64")
        fam.error(op, "f32", "empty", lambda r: (
            [("x", "f32", np.zeros((0, 3)))], [T("x"), I64S([0]), I32(0), NULL, OUT("out")], None),
            "NB_ERR_INDEX")


def _scans(fam: Family) -> None:
    for op, fn in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
        sampler = (lambda r: r.uniform(-2, 2, SHAPE)) if op == "cumsum" else \
            (lambda r: r.choice([-1, 1], SHAPE) * r.uniform(0.6, 1.5, SHAPE))
        for dt in ("f32", "f64", "bf16"):
            for dim in (1, -1):
                fam.forward(op, dt, f"dim{dim}", lambda r, dt=dt, dim=dim, fn=fn, s=sampler: (
                    [("x", dt, s(r))], [T("x"), I64(dim), I32(-1), NULL, OUT("out")],
                    lambda x: {"out": fn(x, axis=dim)}), tol="accumulate", grad=("x",) if dt == "f32" else ())
        fam.forward(op, "i32", "dim0-int64", lambda r, fn=fn: (
            [("x", "i32", r.integers(-3, 4, (4, 3)))], [T("x"), I64(0), I32(-1), NULL, OUT("out")],
            lambda x: {"out": fn(x, axis=0)}), tol="exact", out_dt="i64")
        fam.error(op, "f32", "dim-range", lambda r: (
            [("x", "f32", r.uniform(-1, 1, (2, 3)))], [T("x"), I64(2), I32(-1), NULL, OUT("out")], None),
            "NB_ERR_INDEX")
    for op in ("softmax", "log_softmax"):
        fn = (lambda x, d: softmax(x, d)) if op == "softmax" else (lambda x, d: np.log(softmax(x, d)))
        for dt in ("f32", "f64", "f16", "bf16"):
            for dim in (1, -1):
                fam.forward(op, dt, f"dim{dim}", lambda r, dt=dt, dim=dim, fn=fn: (
                    [("x", dt, r.uniform(-3, 3, SHAPE))], [T("x"), I64(dim), I32(-1), NULL, OUT("out")],
                    lambda x: {"out": fn(x, dim)}), tol="accumulate", grad=("x",) if dt == "f32" else ())
        fam.forward(op, "f32", "large", lambda r, fn=fn: (
            [("x", "f32", r.uniform(-3, 3, (2, 6)) + np.array([[1000.0], [-1000.0]]))],
            [T("x"), I64(1), I32(-1), NULL, OUT("out")], lambda x: {"out": fn(x, 1)}), tol="accumulate")
        fam.error(op, "i64", "dtype", lambda r: (
            [("x", "f32", r.uniform(-1, 1, (2, 3)))], [T("x"), I64(1), I32(7), NULL, OUT("out")], None),
            "NB_ERR_DTYPE")
        fam.error(op, "f32", "dim-range", lambda r: (
            [("x", "f32", r.uniform(-1, 1, (2, 3)))], [T("x"), I64(-3), I32(-1), NULL, OUT("out")], None),
            "NB_ERR_INDEX")
