"""Random numbers: rand and randn of 16M float32 (numbers per second), beside
PyTorch's CPU generator and NumPy's default_rng (PCG64), plus the host cost of a
tiny draw. nabla's numbers come from Philox-4x32-10 split across OpenMP threads
(the values do not depend on the thread count); PyTorch's CPU rand/randn draw
from one mt19937 stream."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import nabla
import numpy as np

N = 1 << 24


def main() -> None:
    torch = try_import("torch")
    rng = np.random.default_rng(0)
    nabla.manual_seed(0)
    cases = {
        "rand 16M float32": {"nabla": lambda: nabla.rand(N),
                             "numpy": lambda: rng.random(N, dtype=np.float32)},
        "randn 16M float32": {"nabla": lambda: nabla.randn(N),
                              "numpy": lambda: rng.standard_normal(N, dtype=np.float32)},
        "rand 8 float32": {"nabla": lambda: nabla.rand(8), "numpy": lambda: rng.random(8, dtype=np.float32)},
    }
    if torch:
        torch.manual_seed(0)
        cases["rand 16M float32"]["torch"] = lambda: torch.rand(N)
        cases["randn 16M float32"]["torch"] = lambda: torch.randn(N)
        cases["rand 8 float32"]["torch"] = lambda: torch.rand(8)
    rows = []
    for name, fns in cases.items():
        big = "16M" in name
        rows.append((name, {k: per_call_seconds(f, min_time=0.5 if big else 0.2, repeats=3 if big else 5)
                            for k, f in fns.items()}))
    print_table("Random: time per call (lower is better)", rows[:2], unit="ms", scale=1e3)
    print_table("Random: host cost of a tiny draw", rows[2:])
    print("\n## Random: numbers per second (higher is better)\n")
    print(f"| {'case':<34} | " + " | ".join(f"{c + ' Mnum/s':>14}" for c in ("nabla", "torch", "numpy"))
          + " | nabla/torch |")
    print("|" + "-" * 36 + "|" + "|".join("-" * 16 for _ in range(3)) + "|-------------|")
    for name, times in rows[:2]:
        cells = [f"{N / times[c] / 1e6:>14.0f}" if c in times else f"{'-':>14}" for c in ("nabla", "torch", "numpy")]
        ratio = f"{times['torch'] / times['nabla']:>11.2f}x" if "torch" in times else f"{'-':>12}"
        print(f"| {name:<34} | " + " | ".join(cells) + f" | {ratio} |")


if __name__ == "__main__":
    main()
