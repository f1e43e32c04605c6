"""ABI-level cases: procedures every runner implements (README, "ABI-level cases"),
and device cases that need CUDA."""
from __future__ import annotations

import numpy as np

from .case import NULL, OUT, T, F64, Case, rng
from .family import Family


def _case(fam, case_id, call, kind="abi", needs=(), tol=None):
    c = Case(case_id, call, kind, tol=tol, needs=needs)
    fam.cases.append(c)
    return c


def cases() -> Family:
    fam = Family("abi")
    _case(fam, "abi/-/version", "version")
    for dt in ("f32", "i64", "bool"):
        c = _case(fam, f"refcount/{dt}/view-outlives-base", "refcount")
        c.input("x", dt, rng(c.id).integers(0, 2, (2, 3)) if dt == "bool" else rng(c.id).uniform(-9, 9, (2, 3)))
    c = _case(fam, "refcount/f32/autograd-graph", "refcount_autograd")
    c.input("x", "f32", rng(c.id).uniform(-1, 1, (3, 2)))
    c = _case(fam, "error/f32/propagation", "error")
    c.input("a", "f32", np.zeros((2, 3)))
    c.input("b", "f32", np.zeros(4))
    c.line("status NB_ERR_SHAPE")
    for dt in ("f32", "f64", "f16", "bf16", "i8", "i32", "u8", "bool"):
        for flavour in ("versioned", "legacy"):
            c = _case(fam, f"dlpack/{dt}/{flavour}-round-trip", "dlpack")
            x = rng(c.id).integers(0, 2, (2, 3, 2)) if dt == "bool" else rng(c.id).uniform(-100, 100, (2, 3, 2))
            c.input("x", dt, x)
    # On a device: inputs live on CUDA, results are compared on the host.
    for op, fn in (("add", lambda a, b: a + b), ("mul", lambda a, b: a * b)):
        c = _case(fam, f"{op}/f32/cuda", f"nb_{op}", kind="forward", needs=("cuda",), tol="correctly_rounded")
        c.line("device cuda")
        r = rng(c.id)
        a = c.input("a", "f32", r.uniform(-3, 3, (4, 5)))
        b = c.input("b", "f32", r.uniform(-3, 3, (4, 5)))
        c.args(T("a"), T("b"), *([F64(1.0)] if op == "add" else []), NULL, OUT("out"))
        c.expect("out", "f32", fn(a, b))
    return fam
