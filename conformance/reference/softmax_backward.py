"""The fused softmax backward kernels (abi/ops/softmax_backward.json), differentiable
themselves (double backward)."""
from __future__ import annotations

import numpy as np

from .case import I64, NULL, OUT, T
from .family import Family
from .reduce import softmax

OPS = {
    "softmax_backward": (lambda gy, y, d: y * (gy - np.sum(gy * y, axis=d, keepdims=True)), softmax),
    "log_softmax_backward": (lambda gy, y, d: gy - np.exp(y) * np.sum(gy, axis=d, keepdims=True),
                             lambda x, d: np.log(softmax(x, d))),
}


def cases() -> Family:
    fam = Family("softmax_backward")
    for op, (fn, forward) in OPS.items():
        for dt in ("f32", "f64", "bf16"):
            for dim in (1, -1):
                fam.forward(op, dt, f"dim{dim}", lambda r, dt=dt, dim=dim, fn=fn, forward=forward: (
                    [("gy", dt, r.uniform(-1, 1, (3, 4, 5))), ("y", dt, forward(r.uniform(-2, 2, (3, 4, 5)), dim))],
                    [T("gy"), T("y"), I64(dim), NULL, OUT("out")], lambda gy, y: {"out": fn(gy, y, dim)}),
                    tol="accumulate", grad=("gy", "y") if dt == "f32" else ())
        fam.error(op, "f32", "shape", lambda r: (
            [("gy", "f32", np.zeros((2, 3))), ("y", "f32", np.zeros((3, 2)))], [T("gy"), T("y"), I64(1), NULL,
                                                                               OUT("out")], None), "NB_ERR_SHAPE")
    return fam
