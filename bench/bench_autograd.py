"""Autograd: engine overhead and a small network's backward, beside PyTorch.

Targets (2-core machine): forward + backward of three ops on 8-element tensors
at most 0.3x PyTorch's time (most of PyTorch's ~28 us is engine overhead); the
backward of a 3-layer MLP (784-256-256-10, ReLU, batch 32) at most 1.0x."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import nabla
import numpy as np


def _three_ops(lib):
    x = lib.ones(8, requires_grad=True)
    y = lib.ones(8, requires_grad=True)

    def step():
        ((x * y).exp() + x).sum().backward()
    return step


def _mlp(lib, weights, batch: int):
    """(forward + backward, backward only) closures for an MLP with the given weights."""
    ws = [lib.tensor(w, requires_grad=True) for w in weights]
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((batch, weights[0].shape[1])).astype(np.float32))
    F = lib.nn.functional

    def loss():
        h = F.relu(F.linear(x, ws[0]))
        h = F.relu(F.linear(h, ws[1]))
        return F.linear(h, ws[2]).square().mean()

    def both():
        loss().backward()

    def backward_only():
        l = loss()
        t0 = __import__("time").perf_counter()
        l.backward()
        return __import__("time").perf_counter() - t0
    return both, backward_only


def _backward_seconds(fn, repeats: int = 200) -> float:
    fn()
    return min(sorted(fn() for _ in range(repeats))[: repeats // 4])


def main() -> None:
    torch = try_import("torch")
    libs = {"nabla": nabla, **({"torch": torch} if torch else {})}
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in ((256, 784), (256, 256), (10, 256))]
    rows = [("fwd+bwd, 3 ops on 8 elements", {k: per_call_seconds(_three_ops(m)) for k, m in libs.items()})]
    mlps = {k: _mlp(m, weights, 32) for k, m in libs.items()}
    rows.append(("MLP 784-256-256-10 b32 fwd+bwd", {k: per_call_seconds(f[0]) for k, f in mlps.items()}))
    rows.append(("MLP 784-256-256-10 b32 backward", {k: _backward_seconds(f[1]) for k, f in mlps.items()}))
    print_table("autograd (time per step; nabla/torch <= 0.3 for the 8-element row, <= 1.0 for the MLP)", rows,
                columns=("nabla", "torch"))


if __name__ == "__main__":
    main()
