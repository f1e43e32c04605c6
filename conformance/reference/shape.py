"""Shape ops, sorting and unique (abi/ops/shape.json)."""
from __future__ import annotations

import numpy as np

from .case import I32, I64, I64S, NULL, OUT, T, TS
from .family import Family

DTS = ("f32", "f64", "bf16", "i64", "bool")


def sample(r, dt, shape):
    if dt == "bool":
        return r.random(shape) < 0.5
    if dt in ("i64", "i32", "u8"):
        return r.integers(0, 100, shape)
    return r.uniform(-3, 3, shape)


def distinct(r, shape):
    n = int(np.prod(shape))
    return (r.permutation(n) / 4.0 - n / 8.0).reshape(shape)


def cases() -> Family:
    fam = Family("shape")
    _joins(fam)
    _rearrange(fam)
    _sorting(fam)
    return fam


def _joins(fam: Family) -> None:
    for dt in DTS:
        fam.forward("cat", dt, "dim1", lambda r, dt=dt: (
            [("a", dt, sample(r, dt, (2, 3))), ("b", dt, sample(r, dt, (2, 1))), ("c", dt, sample(r, dt, (2, 2)))],
            [TS(["a", "b", "c"]), I32(3), I64(1), NULL, OUT("out")],
            lambda a, b, c: {"out": np.concatenate([a, b, c], axis=1)}), tol="exact",
            grad=("a", "b", "c") if dt == "f32" else ())
        fam.forward("stack", dt, "dim-1", lambda r, dt=dt: (
            [("a", dt, sample(r, dt, (2, 3))), ("b", dt, sample(r, dt, (2, 3)))], [TS(["a", "b"]), I32(2), I64(-1),
                                                                                  NULL, OUT("out")],
            lambda a, b: {"out": np.stack([a, b], axis=-1)}), tol="exact", grad=("a", "b") if dt == "f32" else ())
    fam.forward("cat", "f32", "promote", lambda r: (
        [("a", "i32", sample(r, "i32", (2, 2))), ("b", "f32", sample(r, "f32", (1, 2)))],
        [TS(["a", "b"]), I32(2), I64(0), NULL, OUT("out")], lambda a, b: {"out": np.concatenate([a, b])}),
        tol="exact")
    fam.error("cat", "f32", "shape", lambda r: (
        [("a", "f32", np.zeros((2, 3))), ("b", "f32", np.zeros((3, 3)))], [TS(["a", "b"]), I32(2), I64(1), NULL,
                                                                         OUT("out")], None), "NB_ERR_SHAPE")
    fam.error("stack", "f32", "shape", lambda r: (
        [("a", "f32", np.zeros((2, 3))), ("b", "f32", np.zeros((3, 2)))], [TS(["a", "b"]), I32(2), I64(0), NULL,
                                                                         OUT("out")], None), "NB_ERR_SHAPE")


def _rearrange(fam: Family) -> None:
    shape = (2, 3, 4)
    for dt in DTS:
        g = ("x",) if dt == "f32" else ()
        fam.forward("flip", dt, "dims0-2", lambda r, dt=dt: (
            [("x", dt, sample(r, dt, shape))], [T("x"), I64S([0, 2]), I32(2), OUT("out")],
            lambda x: {"out": np.flip(x, axis=(0, 2))}), tol="exact", grad=g)
        fam.forward("roll", dt, "two-dims", lambda r, dt=dt: (
            [("x", dt, sample(r, dt, shape))], [T("x"), I64S([1, -5]), I32(2), I64S([0, 2]), I32(2), OUT("out")],
            lambda x: {"out": np.roll(x, (1, -5), axis=(0, 2))}), tol="exact", grad=g)
        fam.forward("repeat", dt, "grow-rank", lambda r, dt=dt: (
            [("x", dt, sample(r, dt, (2, 3)))], [T("x"), I64S([2, 1, 2]), I32(3), OUT("out")],
            lambda x: {"out": np.tile(x, (2, 1, 2))}), tol="exact", grad=g)
        for op, fn in (("tril", np.tril), ("triu", np.triu)):
            for k in (0, -1, 2):
                fam.forward(op, dt, f"diagonal{k}", lambda r, dt=dt, fn=fn, k=k: (
                    [("x", dt, sample(r, dt, (2, 3, 4)))], [T("x"), I64(k), NULL, OUT("out")],
                    lambda x: {"out": fn(x, k)}), tol="exact", grad=g if k == 0 else ())
    fam.forward("roll", "f32", "flat", lambda r: (
        [("x", "f32", sample(r, "f32", (3, 4)))], [T("x"), I64S([5]), I32(1), NULL, I32(0), OUT("out")],
        lambda x: {"out": np.roll(x, 5)}), tol="exact")
    fam.error("flip", "f32", "dim-range", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64S([2]), I32(1), OUT("out")], None), "NB_ERR_INDEX")
    fam.error("roll", "f32", "dim-range", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64S([1]), I32(1), I64S([3]), I32(1), OUT("out")], None),
        "NB_ERR_INDEX")
    fam.error("repeat", "f32", "too-few-repeats", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64S([2]), I32(1), OUT("out")], None), "NB_ERR_SHAPE")
    for op in ("tril", "triu"):
        fam.error(op, "f32", "one-dim", lambda r: (
            [("x", "f32", np.zeros(3))], [T("x"), I64(0), NULL, OUT("out")], None), "NB_ERR_SHAPE")


def _sorting(fam: Family) -> None:
    shape = (3, 5)
    for dt in ("f32", "f64", "i64", "bf16"):
        g = ("x",) if dt == "f32" else ()
        for desc in (0, 1):
            fam.forward("sort", dt, f"descending{desc}", lambda r, dt=dt, desc=desc: (
                [("x", dt, distinct(r, shape))], [T("x"), I64(-1), I32(desc), I32(1), OUT("values"), OUT("indices")],
                lambda x: _sort(x, desc)), tol="exact", out_dt={"indices": "i64"}, grad=g)
            fam.forward("argsort", dt, f"descending{desc}", lambda r, dt=dt, desc=desc: (
                [("x", dt, distinct(r, shape))], [T("x"), I64(0), I32(desc), I32(1), OUT("out")],
                lambda x: {"out": _sort(x, desc, 0)["indices"]}), tol="exact", out_dt="i64")
        for largest in (1, 0):
            fam.forward("topk", dt, f"largest{largest}", lambda r, dt=dt, largest=largest: (
                [("x", dt, distinct(r, shape))], [T("x"), I64(2), I64(1), I32(largest), I32(1), OUT("values"),
                                                  OUT("indices")],
                lambda x: {k: v[:, :2] for k, v in _sort(x, largest).items()}), tol="exact",
                out_dt={"indices": "i64"}, grad=g)
    fam.forward("sort", "f32", "stable-ties-nan", lambda r: (
        [("x", "f32", np.array([2.0, np.nan, 1.0, 2.0, -np.inf, 1.0, np.nan, 0.0]))],
        [T("x"), I64(0), I32(0), I32(1), OUT("values"), OUT("indices")], lambda x: _sort(x, 0, 0)),
        tol="exact", out_dt={"indices": "i64"})
    for dt in ("f32", "f64", "i64", "bf16"):
        for right in (0, 1):
            fam.forward("searchsorted", dt, f"right{right}", lambda r, dt=dt, right=right: (
                [("b", dt, np.sort(r.integers(-9, 9, 12)).astype(np.float64)),
                 ("v", dt, r.integers(-10, 10, (3, 4)).astype(np.float64))],
                [T("b"), T("v"), I32(right), I32(0), OUT("out")],
                lambda b, v: {"out": np.searchsorted(b, v, side="right" if right else "left")}),
                tol="exact", out_dt="i64")
    fam.forward("searchsorted", "f32", "batched-int32", lambda r: (
        [("b", "f32", np.sort(r.standard_normal((3, 7)), axis=1)), ("v", "f32", r.standard_normal((3, 5)))],
        [T("b"), T("v"), I32(0), I32(1), OUT("out")],
        lambda b, v: {"out": np.stack([np.searchsorted(b[i], v[i]) for i in range(3)]).astype(np.int32)}),
        tol="exact", out_dt="i32")
    fam.error("searchsorted", "f32", "zero-dim-boundaries", lambda r: (
        [("b", "f32", np.array(1.0)), ("v", "f32", np.zeros(2))], [T("b"), T("v"), I32(0), I32(0), OUT("out")],
        None), "NB_ERR_SHAPE")
    fam.error("searchsorted", "f32", "mixed-dtypes", lambda r: (
        [("b", "f32", np.zeros(3)), ("v", "i64", np.zeros(2))], [T("b"), T("v"), I32(0), I32(0), OUT("out")],
        None), "NB_ERR_DTYPE")
    fam.error("sort", "f32", "dim-range", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64(2), I32(0), I32(1), OUT("values"), OUT("indices")], None),
        "NB_ERR_INDEX")
    fam.error("argsort", "f32", "dim-range", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64(-3), I32(0), I32(1), OUT("out")], None), "NB_ERR_INDEX")
    fam.error("topk", "f32", "k-too-large", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64(4), I64(1), I32(1), I32(1), OUT("values"), OUT("indices")],
        None), "NB_ERR_INVALID_ARGUMENT")
    for dt in ("f32", "i64", "bool"):
        fam.forward("unique", dt, "all-outputs", lambda r, dt=dt: (
            [("x", dt, r.integers(0, 2 if dt == "bool" else 5, (3, 4)))],
            [T("x"), I32(1), OUT("values"), OUT("inverse"), OUT("counts")],
            lambda x: dict(zip(("values", "inverse", "counts"), _unique(x)))), tol="exact",
            out_dt={"inverse": "i64", "counts": "i64"})
    fam.forward("unique", "f32", "values-only", lambda r: (
        [("x", "f32", np.array([3.0, -1.0, 3.0, 0.0, -0.0, 7.5]))], [T("x"), I32(1), OUT("values"), NULL, NULL],
        lambda x: {"values": np.unique(x)}), tol="exact")
    fam.error("unique", "f32", "null-input", lambda r: ([], [NULL, I32(1), OUT("values"), NULL, NULL], None),
              "NB_ERR_INVALID_ARGUMENT")
    for dt in ("f32", "i64", "bool"):
        for dim in (0, 1):
            fam.forward("unique_dim", dt, f"dim{dim}", lambda r, dt=dt, dim=dim: (
                [("x", dt, r.integers(0, 2, (4, 3)))],
                [T("x"), I64(dim), I32(1), OUT("values"), OUT("inverse"), OUT("counts")],
                lambda x: dict(zip(("values", "inverse", "counts"),
                                   np.unique(x, axis=dim, return_inverse=True, return_counts=True)))),
                tol="exact", out_dt={"inverse": "i64", "counts": "i64"})
        fam.forward("unique_consecutive", dt, "flat", lambda r, dt=dt: (
            [("x", dt, r.integers(0, 2, (3, 4)))], [T("x"), I64(0), I32(0), OUT("values"), OUT("inverse"),
                                                    OUT("counts")],
            lambda x: dict(zip(("values", "inverse", "counts"), _runs(x.reshape(-1, 1), x.shape)))),
            tol="exact", out_dt={"inverse": "i64", "counts": "i64"})
        fam.forward("unique_consecutive", dt, "dim1", lambda r, dt=dt: (
            [("x", dt, r.integers(0, 2, (2, 6)))], [T("x"), I64(1), I32(1), OUT("values"), OUT("inverse"),
                                                    OUT("counts")],
            lambda x: dict(zip(("values", "inverse", "counts"), _runs(x.T, None, axis=1)))),
            tol="exact", out_dt={"inverse": "i64", "counts": "i64"})
    fam.error("unique_dim", "f32", "zero-sized-dim", lambda r: (
        [("x", "f32", np.zeros((2, 0)))], [T("x"), I64(0), I32(1), OUT("values"), NULL, NULL], None),
        "NB_ERR_INVALID_ARGUMENT")
    fam.error("unique_consecutive", "f32", "dim-range", lambda r: (
        [("x", "f32", np.zeros((2, 3)))], [T("x"), I64(2), I32(1), OUT("values"), NULL, NULL], None),
        "NB_ERR_INDEX")


def _sort(x, descending, axis=-1):
    """Stable sort; NaN sorts as the largest value (PyTorch's order)."""
    key = np.where(np.isnan(x), np.inf, x) if x.dtype.kind == "f" else x
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    # lexicographic: (nan flag, value), stable; descending reverses the keys, not the ties
    order = np.lexsort((-key if descending else key, ~nan if descending else nan), axis=axis) if x.ndim == 1 else \
        np.argsort(-key if descending else key, axis=axis, kind="stable")
    return {"values": np.take_along_axis(x, order, axis=axis), "indices": order}


def _runs(rows, shape, axis=0):
    """unique_consecutive of the rows of a 2-D array: the kept rows (back along axis), inverse, counts."""
    keep, inverse, counts = [], [], []
    for j, row in enumerate(rows):
        if not keep or not np.array_equal(rows[keep[-1]], row):
            keep.append(j)
            counts.append(0)
        counts[-1] += 1
        inverse.append(len(keep) - 1)
    values = rows[keep].reshape(-1) if shape is not None else np.moveaxis(rows[keep], 0, axis)
    inverse = np.array(inverse).reshape(shape) if shape is not None else np.array(inverse)
    return values, inverse, np.array(counts)


def _unique(x):
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    return values, inverse.reshape(x.shape), counts
