"""Matrix products: GEMM throughput and the host + compute time of small products.

Targets: float32 GEMM 2048^3 >= 0.95x PyTorch's GFLOP/s (OpenBLAS against
PyTorch's MKL, same thread count); small products (64x64, a batch of 32 64x64)
close to PyTorch's time per call."""
from __future__ import annotations

from harness import interleaved_settled, print_table, try_import

import nabla
import numpy as np


def _gflops(seconds: float, flops: float) -> float:
    return flops / seconds / 1e9


def main() -> None:
    torch = try_import("torch")
    rng = np.random.default_rng(0)

    # ---- large GEMM: throughput ----
    gemm_rows = []
    for n, layout in ((2048, "a @ b"), (2048, "a.T @ b")):
        xa = rng.standard_normal((n, n)).astype(np.float32)
        xb = rng.standard_normal((n, n)).astype(np.float32)
        na, nb_ = nabla.tensor(xa), nabla.tensor(xb)
        fns = {}
        if layout == "a @ b":
            fns["nabla"] = lambda: na @ nb_
            fns["numpy"] = lambda: xa @ xb
            if torch:
                ta, tb = torch.from_numpy(xa.copy()), torch.from_numpy(xb.copy())
                fns["torch"] = lambda: ta @ tb
        else:  # a transposed view: BLAS reads it in place (Trans), no copy
            nat = na.t()
            fns["nabla"] = lambda: nat @ nb_
            fns["numpy"] = lambda: xa.T @ xb
            if torch:
                tat, tb = torch.from_numpy(xa.copy()).t(), torch.from_numpy(xb.copy())
                fns["torch"] = lambda: tat @ tb
        times = interleaved_settled(fns, rounds=10, settle=0.2)
        gemm_rows.append((f"f32 GEMM {n}^3, {layout}", times, 2.0 * n ** 3))
    print("\n## GEMM throughput (higher is better)\n")
    print(f"| {'case':<34} | {'nabla GF/s':>12} | {'torch GF/s':>12} | {'numpy GF/s':>12} | nabla/torch |")
    print("|" + "-" * 36 + "|" + "|".join("-" * 14 for _ in range(3)) + "|-------------|")
    for case, times, flops in gemm_rows:
        cells = [f"{_gflops(times[c], flops):>12.1f}" if c in times else f"{'-':>12}" for c in ("nabla", "torch", "numpy")]
        ratio = f"{times['torch'] / times['nabla']:>11.3f}" if "torch" in times else f"{'-':>11}"
        print(f"| {case:<34} | " + " | ".join(cells) + f" | {ratio} |")

    # ---- small products: host + compute time per call ----
    rows = []
    xa, xb = rng.standard_normal((64, 64)).astype(np.float32), rng.standard_normal((64, 64)).astype(np.float32)
    ya, yb = (rng.standard_normal((32, 64, 64)).astype(np.float32), rng.standard_normal((32, 64, 64)).astype(np.float32))
    za, zw = rng.standard_normal((32, 128, 256)).astype(np.float32), rng.standard_normal((256, 256)).astype(np.float32)
    zbias = rng.standard_normal(256).astype(np.float32)
    na, nb_, nya, nyb = nabla.tensor(xa), nabla.tensor(xb), nabla.tensor(ya), nabla.tensor(yb)
    nza, nzw, nzb = nabla.tensor(za), nabla.tensor(zw), nabla.tensor(zbias)
    cases = {
        "matmul 64x64 @ 64x64": {"nabla": lambda: na @ nb_, "numpy": lambda: xa @ xb},
        "bmm 32 x (64x64 @ 64x64)": {"nabla": lambda: nabla.bmm(nya, nyb), "numpy": lambda: ya @ yb},
        "linear [32,128,256] x [256,256]": {"nabla": lambda: nabla.linear(nza, nzw, nzb),
                                             "numpy": lambda: za @ zw.T + zbias},
    }
    if torch:
        ta, tb, tya, tyb = (torch.from_numpy(x.copy()) for x in (xa, xb, ya, yb))
        tza, tzw, tzb = (torch.from_numpy(x.copy()) for x in (za, zw, zbias))
        cases["matmul 64x64 @ 64x64"]["torch"] = lambda: ta @ tb
        cases["bmm 32 x (64x64 @ 64x64)"]["torch"] = lambda: torch.bmm(tya, tyb)
        cases["linear [32,128,256] x [256,256]"]["torch"] = lambda: torch.nn.functional.linear(tza, tzw, tzb)
    for name, fns in cases.items():
        rows.append((name, interleaved_settled(fns, rounds=25)))
    print_table("Small matrix products: time per call, host + compute (lower is better)", rows)


if __name__ == "__main__":
    main()
