"""Backward passes of the matrix products, indexing and attention beside PyTorch's.

    python bench/run.py backward_linalg

Target: the backward of a 3-layer MLP (linear + relu, batch 32) <= 1.0x
PyTorch's time. Each case builds its graph untimed and times backward() alone;
nabla and PyTorch alternate call by call (load from other processes hits both
alike) and the best of many calls is kept."""
from __future__ import annotations

import time

import numpy as np

from harness import print_table, try_import

import nabla
import nabla.nn.functional as NF


def _best_backward(make_loss, calls: int) -> float:
    best = float("inf")
    for _ in range(calls):
        loss = make_loss()
        t0 = time.perf_counter()
        loss.backward()
        best = min(best, time.perf_counter() - t0)
    return best


def _mlp(lib, fn, params, x):
    def loss():
        h = x
        for i, (w, b) in enumerate(params):
            h = fn.linear(h, w, b)
            h = fn.relu(h) if i < len(params) - 1 else h
        return h.sum()
    return loss


def _cases(rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    cases = []
    for dims in ((784, 256, 256, 10), (512, 512, 512, 512), (128, 128, 128, 10)):
        arrays = [(f32(dims[i + 1], dims[i]) * 0.05, f32(dims[i + 1]) * 0.05) for i in range(3)]
        cases.append((f"MLP {'-'.join(map(str, dims))}, batch 32", f32(32, dims[0]),
                      lambda lib, fn, x, arrays=arrays: _mlp(lib, fn, [(lib.tensor(w).requires_grad_(),
                                                                        lib.tensor(b).requires_grad_())
                                                                       for w, b in arrays], lib.tensor(x))))

    def single(build, *shapes):
        arrays = [f32(*s) for s in shapes]
        return lambda lib, fn, _x: (lambda ts: (lambda: build(lib, fn, *ts).sum()))(
            [lib.tensor(a).requires_grad_() for a in arrays])

    cases += [
        ("linear [8,64,256] x [256,256] + bias", None,
         single(lambda lib, fn, x, w, b: fn.linear(x, w, b), (8, 64, 256), (256, 256), (256,))),
        ("matmul [8,1,64,64] @ [4,64,64]", None, single(lambda lib, fn, a, b: a @ b, (8, 1, 64, 64), (4, 64, 64))),
        ("bmm [32,64,64] @ [32,64,64]", None, single(lambda lib, fn, a, b: lib.bmm(a, b), (32, 64, 64), (32, 64, 64))),
        ("sdpa q, k, v [4,8,128,64]", None,
         single(lambda lib, fn, q, k, v: fn.scaled_dot_product_attention(q, k, v), *[(4, 8, 128, 64)] * 3)),
        ("sdpa causal [4,8,128,64]", None,
         single(lambda lib, fn, q, k, v: fn.scaled_dot_product_attention(q, k, v, is_causal=True),
                *[(4, 8, 128, 64)] * 3)),
    ]
    rows = rng.integers(0, 1000, 4096)
    cols = rng.integers(0, 512, (256, 64))
    mask = rng.random((512, 512)) < 0.5
    cases += [
        ("x[idx], x [1000,128], 4096 rows", None, single(lambda lib, fn, x: x[lib.tensor(rows)], (1000, 128))),
        ("index_select, same", None, single(lambda lib, fn, x: lib.index_select(x, 0, lib.tensor(rows)), (1000, 128))),
        ("gather dim 1, [256,512] by [256,64]", None, single(lambda lib, fn, x: x.gather(1, lib.tensor(cols)),
                                                             (256, 512))),
        ("x[mask], [512,512]", None, single(lambda lib, fn, x: x[lib.tensor(mask)], (512, 512))),
    ]
    return cases


def main() -> None:
    torch = try_import("torch")
    rng = np.random.default_rng(0)
    table = []
    for name, x, setup in _cases(rng):
        libs = {"nabla": (nabla, NF)}
        if torch:
            libs["torch"] = (torch, torch.nn.functional)
        makers = {k: setup(lib, fn, x) for k, (lib, fn) in libs.items()}
        best = {k: float("inf") for k in makers}
        for _ in range(40):
            for k, make in makers.items():
                best[k] = min(best[k], _best_backward(make, 3))
        table.append((name, best))
    print_table("backward() of products, indexing and attention (float32)", table, columns=("nabla", "torch"))


if __name__ == "__main__":
    main()
