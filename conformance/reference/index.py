"""Gather, scatter, masks and advanced indexing (abi/ops/index.json)."""
from __future__ import annotations

import numpy as np

from .case import F64, I32, I64, NULL, OUT, T, TS
from .family import Family


def perm_rows(r, n, shape, axis):
    """Indices along `axis` with no repeat within a line (deterministic scatter)."""
    idx = np.argsort(r.random(shape[:axis] + (n,) + shape[axis + 1:]), axis=axis)
    return np.take(idx, np.arange(shape[axis]), axis=axis)


def scatter_ref(x, dim, index, src, op):
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        if op == "add":
            out[tuple(target)] += src[pos]
        else:
            out[tuple(target)] = src[pos] if np.ndim(src) else src
    return out


def scatter_reduce_ref(x, dim, index, src, reduce, include_self):
    """PyTorch's scatter_reduce in float64 (integer means round down)."""
    integral = not np.issubdtype(np.asarray(x).dtype, np.floating)
    out = np.array(x, np.float64)
    got = {}
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        got.setdefault(tuple(target), []).append(src[pos])
    for target, vals in got.items():
        vals = ([out[target]] if include_self else []) + vals
        if reduce == "mean":
            v = sum(vals) / len(vals)
            out[target] = np.floor(v) if integral else v
        else:
            out[target] = {"sum": sum, "prod": np.prod, "amax": max, "amin": min}[reduce](vals)
    return out


def cases() -> Family:
    fam = Family("index")
    _gather_scatter(fam)
    _masks(fam)
    _advanced(fam)
    return fam


def _gather_scatter(fam: Family) -> None:
    for dt in ("f32", "f64", "bf16", "i64"):
        g = dt == "f32"
        fam.forward("gather", dt, "dim1", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (3, 5))), ("index", "i64", r.integers(0, 5, (3, 4)))],
            [T("x"), I64(1), T("index"), OUT("out")],
            lambda x, index: {"out": np.take_along_axis(x, index, axis=1)}), tol="exact", grad=("x",) if g else ())
        for op in ("scatter", "scatter_add"):
            fam.forward(op, dt, "dim0", lambda r, dt=dt, op=op: (
                [("x", dt, r.uniform(-3, 3, (4, 3))), ("index", "i64", perm_rows(r, 4, (2, 3), 0)),
                 ("src", dt, r.uniform(-3, 3, (2, 3)))], [T("x"), I64(0), T("index"), T("src"), NULL, OUT("out")],
                lambda x, index, src: {"out": scatter_ref(x, 0, index, src, "add" if op == "scatter_add" else "set")}),
                tol="exact" if op == "scatter" else "correctly_rounded", grad=("x", "src") if g else ())
        fam.forward("scatter_value", dt, "dim1", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (3, 4))), ("index", "i64", perm_rows(r, 4, (3, 2), 1)),
             ("value", dt, np.array(1.5 if dt != "i64" else 7))],
            [T("x"), I64(1), T("index"), T("value"), NULL, OUT("out")],
            lambda x, index, value: {"out": scatter_ref(x, 1, index, value, "set")}), tol="exact",
            grad=("x",) if g else ())
        fam.forward("index_select", dt, "dim0-repeats", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (4, 3))), ("index", "i64", np.array([3, 0, 3, 1]))],
            [T("x"), I64(0), T("index"), OUT("out")], lambda x, index: {"out": x[index]}), tol="exact",
            grad=("x",) if g else ())
        fam.forward("index_add", dt, "dim1-alpha2", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (3, 4))), ("index", "i64", np.array([1, 3, 1])),
             ("source", dt, r.uniform(-3, 3, (3, 3)))], [T("x"), I64(1), T("index"), T("source"), F64(2.0), NULL,
                                                         OUT("out")],
            lambda x, index, source: {"out": _index_add(x, index, source, 2.0)}), tol="accumulate",
            grad=("x", "source") if g else ())
    for code, reduce in enumerate(("sum", "prod", "mean", "amax", "amin")):
        for include_self in (1, 0):
            for dt in ("f32", "i64"):
                sample = (lambda r, s: r.uniform(-2, 2, s)) if dt == "f32" else (lambda r, s: r.integers(-5, 6, s))
                fam.forward("scatter_reduce", dt, f"{reduce}-self{include_self}", lambda r, dt=dt, sample=sample,
                            code=code, reduce=reduce, inc=include_self: (
                    [("x", dt, sample(r, (4, 3))), ("index", "i64", r.integers(0, 4, (5, 2))),
                     ("src", dt, sample(r, (5, 3)))],
                    [T("x"), I64(0), T("index"), T("src"), I32(code), I32(inc), NULL, OUT("out")],
                    lambda x, index, src: {"out": scatter_reduce_ref(x, 0, index, src, reduce, inc)}),
                    tol="exact" if reduce in ("amax", "amin") or dt == "i64" else "accumulate",
                    grad=("x", "src") if dt == "f32" else ())
    fam.error("scatter_reduce", "f32", "reduce-code", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("index", "i64", np.array([[0, 1]])), ("src", "f32", np.ones((1, 2)))],
        [T("x"), I64(1), T("index"), T("src"), I32(7), I32(1), NULL, OUT("out")], None), "NB_ERR_INVALID_ARGUMENT")
    bad = lambda args: lambda r: (  # noqa: E731  an index past the end of dim 1 (size 3)
        [("x", "f32", np.zeros((2, 3))), ("index", "i64", np.array([[0, 3]])), ("src", "f32", np.ones((1, 2))),
         ("value", "f32", np.array(1.0))], args, None)
    fam.error("gather", "f32", "index-range", bad([T("x"), I64(1), T("index"), OUT("out")]), "NB_ERR_INDEX")
    fam.error("scatter", "f32", "index-range", bad([T("x"), I64(1), T("index"), T("src"), NULL, OUT("out")]),
              "NB_ERR_INDEX")
    fam.error("scatter_add", "f32", "index-range", bad([T("x"), I64(1), T("index"), T("src"), NULL, OUT("out")]),
              "NB_ERR_INDEX")
    fam.error("scatter_reduce", "f32", "index-range", bad([T("x"), I64(1), T("index"), T("src"), I32(3), I32(1), NULL,
                                                           OUT("out")]), "NB_ERR_INDEX")
    fam.error("scatter_value", "f32", "index-range", bad([T("x"), I64(1), T("index"), T("value"), NULL, OUT("out")]),
              "NB_ERR_INDEX")
    fam.error("index_select", "f32", "index-range", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("index", "i64", np.array([0, 2]))], [T("x"), I64(0), T("index"),
                                                                               OUT("out")], None), "NB_ERR_INDEX")
    fam.error("index_add", "f32", "index-range", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("index", "i64", np.array([5])), ("source", "f32", np.ones((2, 1)))],
        [T("x"), I64(1), T("index"), T("source"), F64(1.0), NULL, OUT("out")], None), "NB_ERR_INDEX")
    for dt in ("f32", "i64"):
        fam.forward("take_along_dim", dt, "dim0", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (3, 4))), ("indices", "i64", r.integers(0, 3, (2, 4)))],
            [T("x"), T("indices"), I64(0), I32(1), OUT("out")],
            lambda x, indices: {"out": np.take_along_axis(x, indices, 0)}), tol="exact",
            grad=("x",) if dt == "f32" else ())
    fam.forward("take_along_dim", "f32", "flat", lambda r: (
        [("x", "f32", r.uniform(-3, 3, (3, 4))), ("indices", "i64", r.integers(0, 12, (5,)))],
        [T("x"), T("indices"), I64(0), I32(0), OUT("out")], lambda x, indices: {"out": x.reshape(-1)[indices]}),
        tol="exact", grad=("x",))
    fam.error("take_along_dim", "f32", "index-range", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("indices", "i64", np.array([[0, 2, 1]]))],
        [T("x"), T("indices"), I64(0), I32(1), OUT("out")], None), "NB_ERR_INDEX")
    fam.forward("one_hot", "i64", "classes5", lambda r: (
        [("x", "i64", r.integers(0, 5, (2, 3)))], [T("x"), I64(5), OUT("out")],
        lambda x: {"out": np.eye(5, dtype=np.int64)[x]}), tol="exact")
    fam.forward("one_hot", "i64", "inferred", lambda r: (
        [("x", "i64", np.array([0, 3, 1]))], [T("x"), I64(-1), OUT("out")],
        lambda x: {"out": np.eye(4, dtype=np.int64)[x]}), tol="exact")
    fam.error("one_hot", "i64", "class-range", lambda r: (
        [("x", "i64", np.array([0, 5]))], [T("x"), I64(5), OUT("out")], None), "NB_ERR_INVALID_ARGUMENT")


def _index_add(x, index, source, alpha):
    out = x.astype(np.float64)
    for j, i in enumerate(index):
        out[:, i] += alpha * source[:, j]
    return out


def _masks(fam: Family) -> None:
    for dt in ("f32", "f64", "i32", "bool"):
        g = ("x",) if dt == "f32" else ()
        sample = (lambda r, s: r.random(s) < 0.5) if dt == "bool" else (lambda r, s: r.uniform(-3, 3, s))
        fam.forward("masked_fill", dt, "broadcast-mask", lambda r, dt=dt, sample=sample: (
            [("x", dt, sample(r, (3, 4))), ("mask", "bool", r.random((1, 4)) < 0.5),
             ("value", dt, np.array(True if dt == "bool" else -2.0))], [T("x"), T("mask"), T("value"), NULL,
                                                                         OUT("out")],
            lambda x, mask, value: {"out": np.where(mask, value, x)}), tol="exact", grad=g)
        fam.forward("masked_select", dt, "broadcast-mask", lambda r, dt=dt, sample=sample: (
            [("x", dt, sample(r, (3, 4))), ("mask", "bool", r.random((3, 1)) < 0.6)],
            [T("x"), T("mask"), OUT("out")], lambda x, mask: {"out": x[np.broadcast_to(mask, x.shape)]}),
            tol="exact", grad=g)
        fam.forward("nonzero", dt, "basic", lambda r, dt=dt: (
            [("x", dt, r.integers(0, 2, (3, 4)))], [T("x"), OUT("out")],
            lambda x: {"out": np.argwhere(x)}), tol="exact", out_dt="i64")
    fam.error("masked_fill", "f32", "mask-dtype", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("mask", "f32", np.ones((2, 3))), ("value", "f32", np.array(1.0))],
        [T("x"), T("mask"), T("value"), NULL, OUT("out")], None), "NB_ERR_DTYPE")
    fam.error("masked_select", "f32", "shape", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("mask", "bool", np.ones((2, 2)))], [T("x"), T("mask"), OUT("out")], None),
        "NB_ERR_SHAPE")
    fam.error("nonzero", "f32", "null-input", lambda r: ([], [NULL, OUT("out")], None), "NB_ERR_INVALID_ARGUMENT")


def _advanced(fam: Family) -> None:
    for dt in ("f32", "i64"):
        g = ("x",) if dt == "f32" else ()
        fam.forward("index", dt, "two-index-tensors", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (3, 4, 2))), ("i", "i64", np.array([[0, 2], [1, -1]])),
             ("j", "i64", np.array([3, 0]))], [T("x"), TS(["i", "j"]), I32(2), OUT("out")],
            lambda x, i, j: {"out": x[i, j]}), tol="exact", grad=g)
        fam.forward("index", dt, "slice-then-mask", lambda r, dt=dt: (
            [("x", dt, r.uniform(-3, 3, (2, 3, 4))), ("m", "bool", np.array([[1, 0, 1, 1], [0, 0, 1, 0],
                                                                             [1, 1, 0, 0]], bool))],
            [T("x"), TS(["_", "m"]), I32(2), OUT("out")], lambda x, m: {"out": x[:, m]}), tol="exact", grad=g)
        for acc in (0, 1):
            fam.forward("index_put", dt, f"accumulate{acc}", lambda r, dt=dt, acc=acc: (
                [("x", dt, r.uniform(-3, 3, (4, 3))), ("i", "i64", np.array([2, 0] if not acc else [2, 0, 2])),
                 ("values", dt, r.uniform(-3, 3, (2 + acc, 3)))],
                [T("x"), TS(["i"]), I32(1), T("values"), I32(acc), NULL, OUT("out")],
                lambda x, i, values: {"out": _index_put(x, i, values, acc)}),
                tol="accumulate" if acc else "exact", grad=("x", "values") if dt == "f32" else ())
    fam.error("index", "f32", "index-range", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("i", "i64", np.array([2]))], [T("x"), TS(["i"]), I32(1), OUT("out")],
        None), "NB_ERR_INDEX")
    fam.error("index_put", "f32", "index-range", lambda r: (
        [("x", "f32", np.zeros((2, 3))), ("i", "i64", np.array([-3])), ("values", "f32", np.ones(3))],
        [T("x"), TS(["i"]), I32(1), T("values"), I32(0), NULL, OUT("out")], None), "NB_ERR_INDEX")


def _index_put(x, i, values, acc):
    out = x.astype(np.float64)
    if acc:
        np.add.at(out, i, values)
    else:
        out[i] = values
    return out
