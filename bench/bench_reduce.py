"""Reductions and softmax: throughput on large float32 tensors.

Targets (2-core machine): sum of a 16M-element float32 tensor and softmax /
log_softmax over the last dim of a [4096, 1024] float32 tensor reach at least
PyTorch's throughput (nabla/torch time <= 1.0). The other rows show reductions
over an outer dim and the reduction family's other members for reference."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import nabla
import numpy as np


def main() -> None:
    torch = try_import("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 24).astype(np.float32)
    m = rng.standard_normal((4096, 1024)).astype(np.float32)
    z = x.reshape(4096, 4096)
    nx, nm, nz = nabla.tensor(x), nabla.tensor(m), nabla.tensor(z)
    cases = {
        "sum (16M f32)": {"nabla": lambda: nx.sum(), "numpy": lambda: x.sum()},
        "sum [4096, 4096] dim 0": {"nabla": lambda: nz.sum(0), "numpy": lambda: z.sum(0)},
        "sum [4096, 4096] dim 1": {"nabla": lambda: nz.sum(1), "numpy": lambda: z.sum(1)},
        "amax (16M f32)": {"nabla": lambda: nx.amax(), "numpy": lambda: x.max()},
        "var (16M f32)": {"nabla": lambda: nx.var(), "numpy": lambda: x.var(ddof=1)},
        "max [4096, 4096] dim 1": {"nabla": lambda: nz.max(1), "numpy": lambda: (z.max(1), z.argmax(1))},
        "cumsum (16M f32)": {"nabla": lambda: nx.cumsum(0), "numpy": lambda: np.cumsum(x)},
        "softmax [4096, 1024] dim -1": {"nabla": lambda: nabla.softmax(nm, -1)},
        "log_softmax [4096, 1024] dim -1": {"nabla": lambda: nabla.log_softmax(nm, -1)},
        "softmax [4096, 1024] dim 0": {"nabla": lambda: nabla.softmax(nm, 0)},
    }
    if torch:
        tx, tm, tz = torch.from_numpy(x.copy()), torch.from_numpy(m.copy()), torch.from_numpy(z.copy())
        cases["sum (16M f32)"]["torch"] = lambda: tx.sum()
        cases["sum [4096, 4096] dim 0"]["torch"] = lambda: tz.sum(0)
        cases["sum [4096, 4096] dim 1"]["torch"] = lambda: tz.sum(1)
        cases["amax (16M f32)"]["torch"] = lambda: tx.amax()
        cases["var (16M f32)"]["torch"] = lambda: tx.var()
        cases["max [4096, 4096] dim 1"]["torch"] = lambda: tz.max(1)
        cases["cumsum (16M f32)"]["torch"] = lambda: tx.cumsum(0)
        cases["softmax [4096, 1024] dim -1"]["torch"] = lambda: torch.softmax(tm, -1)
        cases["log_softmax [4096, 1024] dim -1"]["torch"] = lambda: torch.log_softmax(tm, -1)
        cases["softmax [4096, 1024] dim 0"]["torch"] = lambda: torch.softmax(tm, 0)
    rows = [(name, {k: per_call_seconds(f, min_time=0.3) for k, f in fns.items()}) for name, fns in cases.items()]
    print_table("Reductions and softmax: time per call (lower is better)", rows)


if __name__ == "__main__":
    main()
