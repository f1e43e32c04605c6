"""Neural-network kernels: convolution forward and layer_norm throughput.

Targets (2-core machine): conv2d forward of a LeNet layer (batch 64, 1 -> 32
channels, 3x3 on 28x28) and of a ResNet 3x3 layer (batch 32, 64 -> 64 channels
on 56x56, padding 1) at >= 0.8x PyTorch's throughput, i.e. a nabla/torch time
ratio <= 1.25; layer_norm over [4096, 1024] at >= 1.0x (time ratio <= 1.0).

The frameworks are timed in many short alternating rounds and each keeps its
best round, so that load from other processes on a shared machine hits both
alike."""
from __future__ import annotations

from harness import interleaved, print_table, try_import

import nabla
import nabla.nn.functional as F
import numpy as np


def main() -> None:
    torch = try_import("torch")
    TF = torch.nn.functional if torch else None
    rng = np.random.default_rng(0)
    rows, extra = [], []

    def conv_case(name, n, c, hw, o, padding, rounds, window):
        x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
        w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(c * 9)).astype(np.float32)
        b = rng.standard_normal(o).astype(np.float32)
        nx, nw, nb_ = nabla.tensor(x), nabla.tensor(w), nabla.tensor(b)
        fns = {"nabla": lambda: F.conv2d(nx, nw, nb_, padding=padding)}
        if torch:
            tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
            fns["torch"] = lambda: TF.conv2d(tx, tw, tb, padding=padding)
        times = interleaved(fns, window, rounds)
        out_hw = hw + 2 * padding - 2
        flops = 2.0 * n * o * out_hw * out_hw * c * 9
        rows.append((name, times))
        extra.append((name, {k: flops / t / 1e9 for k, t in times.items()}, "GFLOP/s"))

    conv_case("conv2d LeNet 64x1x28x28 -> 32, 3x3", 64, 1, 28, 32, 0, rounds=30, window=0.02)
    conv_case("conv2d ResNet 32x64x56x56 -> 64", 32, 64, 56, 64, 1, rounds=12, window=0.1)

    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    g, beta = rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)
    nx, ng, nbeta = nabla.tensor(x), nabla.tensor(g), nabla.tensor(beta)
    fns = {"nabla": lambda: F.layer_norm(nx, (1024,), ng, nbeta)}
    if torch:
        tx, tg, tbeta = torch.from_numpy(x), torch.from_numpy(g), torch.from_numpy(beta)
        fns["torch"] = lambda: TF.layer_norm(tx, (1024,), tg, tbeta)
    times = interleaved(fns, 0.02, rounds=30)
    rows.append(("layer_norm [4096, 1024]", times))
    extra.append(("layer_norm [4096, 1024]", {k: 2 * x.nbytes / t / 1e9 for k, t in times.items()}, "GB/s"))

    print_table("NN kernels: time per call (lower is better)", rows, unit="ms", scale=1e3, columns=("nabla", "torch"))
    print("\n| case | nabla | torch | throughput nabla/torch |")
    print("|---|---|---|---|")
    for name, rate, unit in extra:
        ratio = f"{rate['nabla'] / rate['torch']:.2f}" if "torch" in rate else "-"
        cells = " | ".join(f"{rate[k]:.1f} {unit}" if k in rate else "-" for k in ("nabla", "torch"))
        print(f"| {name} | {cells} | {ratio} |")


if __name__ == "__main__":
    main()
