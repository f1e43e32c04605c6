"""GEMM: nabla against PyTorch on square and training shapes, both transposes,
float32, bfloat16 and float16.

    python bench/bench_gemm.py            # every shape
    python bench/bench_gemm.py --quick    # 256..1024 square and the training shapes
    python bench/bench_gemm.py --threads 1
    python bench/bench_gemm.py --dtype bf16   # one table: f32, bf16 or f16

Each row times nabla and PyTorch in alternation in one process, with a pause
before each batch so the other framework's idle threads stop spinning, and
prints the speed ratio torch time / nabla time (>= 1.0: nabla at least as
fast) with both GFLOP/s."""
from __future__ import annotations

import sys

from harness import against_torch, interleaved_settled, print_ratio_table

import nabla
import numpy as np


def shapes(quick: bool) -> list[tuple[str, int, int, int]]:
    """(name, M, K, N) of C[M, N] = A[M, K] @ B[K, N]."""
    sq = [256, 512, 1024] if quick else [256, 512, 1024, 2048, 4096]
    out = [(f"{n}^3", n, n, n) for n in sq]
    out += [  # the training shapes: the MLP's first layer and its gradients, a transformer's projections
        ("mlp fwd 128x784 @ 784x256", 128, 784, 256),
        ("mlp fwd 512x784 @ 784x256", 512, 784, 256),
        ("mlp dW 784x128 @ 128x256", 784, 128, 256),
        ("mlp dX 128x256 @ 256x784", 128, 256, 784),
        ("qkv 2048x512 @ 512x1536", 2048, 512, 1536),
        ("attn out 2048x512 @ 512x512", 2048, 512, 512),
        ("ffn up 2048x512 @ 512x2048", 2048, 512, 2048),
        ("ffn down 2048x2048 @ 2048x512", 2048, 2048, 512),
    ]
    return out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    torch, quick, threads = against_torch("bench_gemm", argv)
    if torch is None:
        return
    only = argv[argv.index("--dtype") + 1] if "--dtype" in argv else None
    rng = np.random.default_rng(0)
    rounds = 3 if quick else 5
    print(f"\nthreads: {threads}")
    for dname, ndt, tdt in (("f32", nabla.float32, torch.float32), ("bf16", nabla.bfloat16, torch.bfloat16),
                            ("f16", nabla.float16, torch.float16)):
        if only is not None and dname != only:
            continue
        rows = []
        for name, m, k, n in shapes(quick):
            if dname != "f32" and m * k * n > 2048 ** 3:
                continue
            for trans in ("nn", "tn", "nt"):
                if trans != "nn" and (dname == "f16" or (quick and "^3" not in name)):
                    continue
                a = rng.standard_normal((k, m) if trans == "tn" else (m, k)).astype(np.float32)
                b = rng.standard_normal((n, k) if trans == "nt" else (k, n)).astype(np.float32)
                na, nb_ = nabla.from_numpy(a).to(ndt), nabla.from_numpy(b).to(ndt)
                ta, tb = torch.from_numpy(a).to(tdt), torch.from_numpy(b).to(tdt)
                if trans == "tn":
                    na, ta = na.t(), ta.t()
                if trans == "nt":
                    nb_, tb = nb_.t(), tb.t()
                t = interleaved_settled({"nabla": lambda: na @ nb_, "torch": lambda: ta @ tb}, rounds=rounds,
                                        batch_seconds=0.05)
                flops = 2.0 * m * k * n
                note = f"{flops / t['nabla'] / 1e9:.0f} vs {flops / t['torch'] / 1e9:.0f} GFLOP/s"
                rows.append((f"{name} {trans}", t["nabla"], t["torch"], note))
        print_ratio_table(f"GEMM {dname} (speed = torch time / nabla time; >= 1.0: nabla faster)", rows)


if __name__ == "__main__":
    main()
