"""LAPACK ops (abi/ops/linalg_decomp.json). Expectations that do not depend on the
sign conventions of singular and eigen vectors: inverses, solutions, determinants,
Cholesky factors, eigen and singular values, and QR of upper triangular inputs
(Householder leaves those untouched: Q = I, R = A). Gradients of the ops that read
one triangle are checked against the symmetric part, as PyTorch's tests do; QR's
against NumPy's QR (the same Householder signs) of well-conditioned inputs."""
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
        _ex_cases(fam, dt, g)
        _ldl_cases(fam, dt)
    for shape in ((4, 3), (3, 5)):
        fam.gradient("linalg_qr", "f64", f"reduced-{shape[0]}x{shape[1]}", lambda r, shape=shape: (
            [("A", "f64", r.uniform(-1, 1, shape) + 2 * np.eye(*shape))], [T("A"), I32(0), OUT("Q"), OUT("R")],
            lambda A: dict(zip(("Q", "R"), np.linalg.qr(A)))), wrt=("A",))
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


def _tri_solve(A, B, upper, left, unit):
    t = np.triu(A) if upper else np.tril(A)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(len(t))
    return np.linalg.solve(t, B) if left else np.linalg.solve(t.T, B.T).T


def _ex_cases(fam: Family, dt: str, g: tuple) -> None:
    """inv_ex, solve_ex, cholesky_ex (info 0, and a failing matrix's info) and solve_triangular."""
    info = {"info": "i32"}
    fam.forward("linalg_inv_ex", dt, "batched", lambda r: (
        [("A", dt, _square(r, (2, 3, 3)))], [T("A"), OUT("inverse"), OUT("info")],
        lambda A: {"inverse": np.linalg.inv(A), "info": np.zeros(2, np.int32)}), tol="accumulate", out_dt=info,
        grad=g, grad_outputs=("inverse",))
    fam.forward("linalg_solve_ex", dt, "left1", lambda r: (
        [("A", dt, _square(r, (2, 3, 3))), ("B", dt, r.uniform(-1, 1, (2, 3, 2)))],
        [T("A"), T("B"), I32(1), OUT("result"), OUT("info")],
        lambda A, B: {"result": np.linalg.solve(A, B), "info": np.zeros(2, np.int32)}), tol="accumulate",
        out_dt=info, grad=("A", "B") if g else (), grad_outputs=("result",))
    fam.forward("linalg_cholesky_ex", dt, "upper0", lambda r: (
        [("A", dt, _spd(r, (2, 3, 3)))], [T("A"), I32(0), OUT("L"), OUT("info")],
        lambda A: {"L": _chol(_sym(A), 0), "info": np.zeros(2, np.int32)}), tol="accumulate", out_dt=info,
        grad=g, grad_outputs=("L",))
    fam.forward("linalg_cholesky_ex", dt, "not-positive-definite", lambda r: (
        [("A", dt, np.stack([np.eye(2), np.diag([1.0, -1.0])]))], [T("A"), I32(0), OUT("L"), OUT("info")],
        lambda A: {"L": A, "info": np.array([0, 2], np.int32)}), tol="accumulate", out_dt=info)
    for upper, left, unit in ((1, 1, 0), (0, 0, 1)):
        fam.forward("linalg_solve_triangular", dt, f"upper{upper}-left{left}-unit{unit}",
                    lambda r, upper=upper, left=left, unit=unit: (
                        [("A", dt, _square(r, (3, 3))), ("B", dt, r.uniform(-1, 1, (3, 2) if left else (2, 3)))],
                        [T("A"), T("B"), I32(upper), I32(left), I32(unit), OUT("out")],
                        lambda A, B: {"out": _tri_solve(A, B, upper, left, unit)}),
                    tol="accumulate", grad=("A", "B") if g else ())
    if dt == "f64":
        fam.error("linalg_inv_ex", dt, "not-square", lambda r: (
            [("A", dt, np.ones((2, 3)))], [T("A"), OUT("inverse"), OUT("info")], None), "NB_ERR_SHAPE")
        fam.error("linalg_solve_ex", dt, "dtype", lambda r: (
            [("A", dt, np.eye(2)), ("B", "f32", np.ones(2))], [T("A"), T("B"), I32(1), OUT("result"), OUT("info")],
            None), "NB_ERR_DTYPE")
        fam.error("linalg_cholesky_ex", dt, "vector", lambda r: (
            [("A", dt, np.ones(3))], [T("A"), I32(0), OUT("L"), OUT("info")], None), "NB_ERR_SHAPE")
        fam.error("linalg_solve_triangular", dt, "vector-B", lambda r: (
            [("A", dt, np.eye(3)), ("B", dt, np.ones(3))], [T("A"), T("B"), I32(1), I32(1), I32(0), OUT("out")],
            None), "NB_ERR_SHAPE")


def _ldl_cases(fam: Family, dt: str) -> None:
    """ldl_factor_ex on inputs whose factors do not depend on LAPACK's blocking (a positive diagonal: no
    interchange; [[0, 1], [1, 0]]: one 2x2 block) and ldl_solve with those factors."""
    out_dt = {"pivots": "i32", "info": "i32"}
    fam.forward("linalg_ldl_factor_ex", dt, "diagonal", lambda r: (
        [("A", dt, np.stack([np.diag(r.uniform(1, 2, 3)) for _ in range(2)]))],
        [T("A"), I32(0), OUT("LD"), OUT("pivots"), OUT("info")],
        lambda A: {"LD": A, "pivots": np.tile(np.arange(1, 4, dtype=np.int32), (2, 1)),
                   "info": np.zeros(2, np.int32)}), tol="exact", out_dt=out_dt)
    fam.forward("linalg_ldl_factor_ex", dt, "2x2-block", lambda r: (
        [("A", dt, np.array([[0.0, 1.0], [1.0, 0.0]]))], [T("A"), I32(1), OUT("LD"), OUT("pivots"), OUT("info")],
        lambda A: {"LD": np.array([[0.0, 0.0], [1.0, 0.0]]), "pivots": np.array([-2, -2], np.int32),
                   "info": np.zeros((), np.int32)}), tol="exact", out_dt=out_dt)
    fam.forward("linalg_ldl_solve", dt, "diagonal", lambda r: (
        [("LD", dt, np.diag(r.uniform(1, 2, 3))), ("pivots", "i32", np.arange(1, 4)), ("B", dt, r.uniform(-1, 1, (3, 2)))],
        [T("LD"), T("pivots"), T("B"), I32(0), OUT("out")],
        lambda LD, pivots, B: {"out": B / np.diag(LD)[:, None]}), tol="accumulate")
    if dt == "f64":
        fam.error("linalg_ldl_factor_ex", dt, "not-square", lambda r: (
            [("A", dt, np.ones((2, 3)))], [T("A"), I32(0), OUT("LD"), OUT("pivots"), OUT("info")], None),
            "NB_ERR_SHAPE")
        fam.error("linalg_ldl_solve", dt, "float-pivots", lambda r: (
            [("LD", dt, np.eye(2)), ("pivots", dt, np.ones(2)), ("B", dt, np.ones((2, 1)))],
            [T("LD"), T("pivots"), T("B"), I32(0), OUT("out")], None), "NB_ERR_DTYPE")


def _chol(a, upper):
    low = np.linalg.cholesky(a)
    return np.swapaxes(low, -1, -2) if upper else low
