"""LAPACK ops (abi/ops/linalg_decomp.json). Expectations that do not depend on the
sign conventions of singular and eigen vectors: inverses, solutions, determinants,
Cholesky factors, eigen and singular values, and QR of upper triangular inputs
(Householder leaves those untouched: Q = I, R = A). Gradients of the ops that read
one triangle are checked against the symmetric part, as PyTorch's tests do."""
from __future__ import annotations

import numpy as np

from .case import I32, NULL, OUT, T
from .family import Family


def _sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def _spd(r, shape):
    a = r.uniform(-1, 1, shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _square(r, shape):
    return r.uniform(-1, 1, shape) + 2 * np.eye(shape[-1])  # well away from singular


def cases() -> Family:
    fam = Family("linalg_decomp")
    for dt in ("f32", "f64"):
        g = ("A",) if dt == "f64" else ()
        fam.forward("linalg_inv", dt, "batched", lambda r, dt=dt: (
            [("A", dt, _square(r, (2, 3, 3)))], [T("A"), OUT("out")], lambda A: {"out": np.linalg.inv(A)}),
            tol="accumulate", grad=g)
        fam.forward("linalg_det", dt, "batched", lambda r, dt=dt: (
            [("A", dt, _square(r, (2, 3, 3)))], [T("A"), OUT("out")], lambda A: {"out": np.linalg.det(A)}),
            tol="accumulate", grad=g)
        fam.forward("linalg_slogdet", dt, "basic", lambda r, dt=dt: (
            [("A", dt, _square(r, (3, 3)) - 2.5 * np.eye(3))], [T("A"), OUT("sign"), OUT("logabsdet")],
            lambda A: dict(zip(("sign", "logabsdet"), np.linalg.slogdet(A)))), tol="accumulate", grad=g,
            grad_outputs=("logabsdet",))
        for left in (1, 0):
            fam.forward("linalg_solve", dt, f"left{left}", lambda r, dt=dt, left=left: (
                [("A", dt, _square(r, (2, 3, 3))), ("B", dt, r.uniform(-1, 1, (2, 3, 2) if left else (2, 2, 3)))],
                [T("A"), T("B"), I32(left), OUT("out")],
                lambda A, B: {"out": np.linalg.solve(A, B) if left else
                              np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)}),
                tol="accumulate", grad=("A", "B") if dt == "f64" else ())
        fam.forward("linalg_solve", dt, "vector-broadcast", lambda r, dt=dt: (
            [("A", dt, _square(r, (3, 3))), ("B", dt, r.uniform(-1, 1, (3,)))], [T("A"), T("B"), I32(1), OUT("out")],
            lambda A, B: {"out": np.linalg.solve(A, B)}), tol="accumulate")
        for upper in (0, 1):
            fam.forward("linalg_cholesky", dt, f"upper{upper}", lambda r, dt=dt, upper=upper: (
                [("A", dt, _spd(r, (2, 3, 3)))], [T("A"), I32(upper), OUT("out")],
                lambda A: {"out": _chol(_sym(A), upper)}), tol="accumulate", grad=g)
        fam.forward("linalg_eigh", dt, "values", lambda r, dt=dt: (  # eigenvalues well apart
            [("A", dt, (_spd(r, (2, 4, 4)) + np.diag([0.0, 3.0, 6.0, 9.0])) / 8)], [T("A"), I32(0), OUT("eigenvalues"), NULL],
            lambda A: {"eigenvalues": np.linalg.eigvalsh(_sym(A))}), tol="accumulate", grad=g)
        for shape in ((4, 3), (2, 5)):
            fam.forward("linalg_svd", dt, f"values-{shape[0]}x{shape[1]}", lambda r, dt=dt, shape=shape: (
                [("A", dt, r.uniform(-1, 1, shape) + np.eye(*shape))], [T("A"), I32(0), NULL, OUT("S"), NULL],
                lambda A: {"S": np.linalg.svd(A, compute_uv=False)}), tol="accumulate", grad=g)
        for mode, name in ((0, "reduced"), (1, "complete")):
            fam.forward("linalg_qr", dt, f"{name}-triangular", lambda r, dt=dt, mode=mode: (
                [("A", dt, np.vstack([np.triu(r.uniform(-2, 2, (3, 3))), np.zeros((1, 3))]))],
                [T("A"), I32(mode), OUT("Q"), OUT("R")],
                lambda A: {"Q": np.eye(4)[:, :4 if mode else 3], "R": A[:4 if mode else 3]}),
                tol="accumulate")  # (LAPACK's Q holds -0.0 where the identity has 0.0)
    fam.error("linalg_inv", "f64", "singular", lambda r: (
        [("A", "f64", np.array([[1.0, 2.0], [2.0, 4.0]]))], [T("A"), OUT("out")], None), "NB_ERR_LINALG")
    fam.error("linalg_solve", "f64", "singular", lambda r: (
        [("A", "f64", np.zeros((2, 2))), ("B", "f64", np.ones(2))], [T("A"), T("B"), I32(1), OUT("out")], None),
        "NB_ERR_LINALG")
    fam.error("linalg_det", "f64", "not-square", lambda r: (
        [("A", "f64", np.ones((2, 3)))], [T("A"), OUT("out")], None), "NB_ERR_SHAPE")
    fam.error("linalg_slogdet", "i64", "dtype", lambda r: (
        [("A", "i64", np.eye(2))], [T("A"), OUT("sign"), OUT("logabsdet")], None), "NB_ERR_DTYPE")
    fam.error("linalg_cholesky", "f64", "not-positive-definite", lambda r: (
        [("A", "f64", -np.eye(3))], [T("A"), I32(0), OUT("out")], None), "NB_ERR_LINALG")
    fam.error("linalg_eigh", "f64", "vector", lambda r: (
        [("A", "f64", np.ones(3))], [T("A"), I32(0), OUT("eigenvalues"), NULL], None), "NB_ERR_SHAPE")
    fam.error("linalg_svd", "f64", "half-vectors", lambda r: (
        [("A", "f64", np.ones((2, 2)))], [T("A"), I32(0), OUT("U"), OUT("S"), NULL], None), "NB_ERR_INVALID_ARGUMENT")
    fam.error("linalg_qr", "f64", "mode", lambda r: (
        [("A", "f64", np.ones((2, 2)))], [T("A"), I32(9), OUT("Q"), OUT("R")], None), "NB_ERR_INVALID_ARGUMENT")
    return fam


def _chol(a, upper):
    low = np.linalg.cholesky(a)
    return np.swapaxes(low, -1, -2) if upper else low
