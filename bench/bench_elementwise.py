"""Elementwise ops: host time for tiny tensors, throughput for large ones.

Targets (2-core machine): 8-element add <= 0.7x PyTorch's time; add of two
16M-element float32 tensors >= 1.0x PyTorch's throughput."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import nabla
import numpy as np


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


if __name__ == "__main__":
    main()
