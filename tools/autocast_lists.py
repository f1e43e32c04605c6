#!/usr/bin/env python3
"""Writes the "autocast" field of the op entries in abi/ops/*.json: which ops autocast runs
in the low-precision dtype ("lower"), in float32 ("fp32") or in the widest floating type of
their inputs ("promote"), per device type where CPU and CUDA differ (PyTorch's lists of
aten/src/ATen/autocast_mode.cpp for the ops nabla has). Re-run after a merge touches the
op files; it rewrites only that field and keeps one op a line.

    python tools/autocast_lists.py && python abi/gen.py write
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "abi"))
import gen  # noqa: E402

LOWER = ["matmul", "mm", "bmm", "addmm", "baddbmm", "linear", "conv1d", "conv2d", "conv_transpose2d",
         "scaled_dot_product_attention"]
FP32 = ["prod", "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
        "binary_cross_entropy_with_logits", "kl_div"]
PROMOTE = ["cat", "stack"]
CPU_ONLY = {"fp32": ["binary_cross_entropy", "linalg_inv", "linalg_solve", "linalg_cholesky", "linalg_qr",
                     "linalg_eigh", "linalg_svd", "linalg_inv_ex", "linalg_cholesky_ex"]}
CUDA_ONLY = {"lower": ["mv"],
             "fp32": ["acos", "asin", "cosh", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
                      "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "norm", "logsumexp", "cumprod",
                      "cumsum", "sum", "softmax", "log_softmax"],
             "promote": ["dot", "atan2", "scatter_add", "index_put"]}


def policies() -> dict[str, object]:
    out: dict[str, dict] = {}
    for policy, names in (("lower", LOWER), ("fp32", FP32), ("promote", PROMOTE)):
        for n in names:
            out[n] = {"cpu": policy, "cuda": policy}
    for devices, table in (("cpu", CPU_ONLY), ("cuda", CUDA_ONLY)):
        for policy, names in table.items():
            for n in names:
                out.setdefault(n, {})[devices] = policy
    return {n: (p["cpu"] if p.get("cpu") == p.get("cuda") else p) for n, p in out.items()}


def main() -> int:
    want = policies()
    seen = set()
    for path in sorted((ROOT / "abi" / "ops").glob("*.json")):
        family = json.loads(path.read_text())
        for op in family["ops"]:
            name = op["name"][3:]
            op.pop("autocast", None)
            if name in want:
                op["autocast"] = want[name]
                seen.add(name)
        path.write_text(gen.family_text(family))
    missing = sorted(set(want) - seen)
    if missing:
        print("no such op:", ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
