"""Elementwise ops: host time for tiny tensors, throughput for large ones.

Targets (2-core machine): 8-element add <= 0.7x PyTorch's time; add of two
16M-element float32 tensors >= 1.0x PyTorch's throughput; every unary float op
on [256, 1000] float32 and float64, contiguous or strided, <= 1.0x PyTorch's
time (`python bench/bench_elementwise.py unary` runs only those)."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import sys

import nabla
import numpy as np

UNARY = ["exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "tanh", "sigmoid", "sin", "cos", "erf", "silu", "gelu"]


def _unary_fn(lib, name):
    if name in ("silu", "gelu"):
        return getattr(lib.nn.functional, name)
    return getattr(lib, name)


def unary(torch) -> None:
    """Unary float ops on [256, 1000] (inputs in (0.1, 0.9), every op's domain), one
    row per op, dtype and layout; strided is every other column of [256, 2000]."""
    rows = []
    base = np.random.default_rng(0).uniform(0.1, 0.9, (256, 2000))
    for dtype in ("float32", "float64"):
        a = base.astype(dtype)
        for layout in ("contiguous", "strided"):
            na = nabla.tensor(a)[:, ::2] if layout == "strided" else nabla.tensor(np.ascontiguousarray(a[:, :1000]))
            ta = (torch.from_numpy(a)[:, ::2] if layout == "strided"
                  else torch.from_numpy(np.ascontiguousarray(a[:, :1000]))) if torch else None
            for name in UNARY:
                fns = {"nabla": (lambda f=_unary_fn(nabla, name): f(na))}
                if torch:
                    fns["torch"] = lambda f=_unary_fn(torch, name): f(ta)
                rows.append((f"{name} {dtype} {layout}", {k: per_call_seconds(f, min_time=0.1) for k, f in fns.items()}))
    print_table("Unary float ops, [256, 1000]: time per call (lower is better)", rows)


def main() -> None:
    torch = try_import("torch")
    rng = np.random.default_rng(0)
    rows = []
    for n, label in ((8, "8 elements"), (1 << 24, "16M elements")):
        xa, xb = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        na, nb_ = nabla.tensor(xa), nabla.tensor(xb)
        cases = {
            f"a + b ({label})": {"nabla": lambda: na + nb_, "numpy": lambda: xa + xb},
            f"a * 2.0 ({label})": {"nabla": lambda: na * 2.0, "numpy": lambda: xa * np.float32(2.0)},
            f"a > b ({label})": {"nabla": lambda: na > nb_, "numpy": lambda: xa > xb},
        }
        if torch:
            ta, tb = torch.from_numpy(xa.copy()), torch.from_numpy(xb.copy())
            cases[f"a + b ({label})"]["torch"] = lambda: ta + tb
            cases[f"a * 2.0 ({label})"]["torch"] = lambda: ta * 2.0
            cases[f"a > b ({label})"]["torch"] = lambda: ta > tb
        for name, fns in cases.items():
            rows.append((name, {k: per_call_seconds(f, min_time=0.3 if n > 8 else 0.2) for k, f in fns.items()}))
    print_table("Elementwise: time per call (lower is better)", rows)
    unary(torch)


if __name__ == "__main__":
    if sys.argv[1:] == ["unary"]:
        unary(try_import("torch"))
    else:
        main()
