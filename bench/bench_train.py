"""Training steps: forward, loss, backward and optimizer step of small models, nabla
beside PyTorch (CPU) in one process, the same code run with either framework.

Workloads and targets (nabla/torch throughput, 2-core machine): MLP 784-256-256-10
with Adam at batch 1 and 32 >= 1.5x (host overhead dominates), at batch 512 >= 1.0x;
a LeNet-style CNN (3x3 convs with 32 and 64 channels on 28x28, max pool, two linear
layers) with SGD + momentum at batch 64 >= 1.0x; a 2-layer transformer encoder
(d=128, 4 heads, feed-forward 512, seq 64, batch 16) with AdamW >= 1.0x.

Frameworks alternate in short rounds and each keeps its best round (see harness.interleaved)."""
from __future__ import annotations

from harness import interleaved
from harness import try_import

import nabla
import numpy as np


def mlp_step(fw, batch: int):
    nn = fw.nn
    fw.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = fw.optim.Adam(model.parameters(), lr=1e-4)
    rng = np.random.default_rng(0)
    x = fw.tensor(rng.standard_normal((batch, 784)).astype(np.float32))
    y = fw.tensor(rng.integers(0, 10, batch))

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def cnn_step(fw, batch: int = 64):
    nn = fw.nn
    fw.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64 * 12 * 12, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = fw.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = fw.tensor(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    y = fw.tensor(rng.integers(0, 10, batch))

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def transformer_step(fw, batch: int = 16, seq: int = 64, d: int = 128):
    nn = fw.nn
    fw.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d, 4, dim_feedforward=512, dropout=0.1, batch_first=True)
    kwargs = {"enable_nested_tensor": False} if fw.__name__ == "torch" else {}
    model = nn.TransformerEncoder(layer, 2, **kwargs)
    opt = fw.optim.AdamW(model.parameters(), lr=1e-4)
    rng = np.random.default_rng(0)
    x = fw.tensor(rng.standard_normal((batch, seq, d)).astype(np.float32))

    def step():
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


WORKLOADS = [
    ("MLP 784-256-256-10 Adam, batch 1", lambda fw: mlp_step(fw, 1), 1, "samples/s", 1.5),
    ("MLP 784-256-256-10 Adam, batch 32", lambda fw: mlp_step(fw, 32), 32, "samples/s", 1.5),
    ("MLP 784-256-256-10 Adam, batch 512", lambda fw: mlp_step(fw, 512), 512, "samples/s", 1.0),
    ("LeNet CNN SGD-momentum, batch 64", cnn_step, 64, "samples/s", 1.0),
    ("Transformer encoder AdamW, 16x64", transformer_step, 16 * 64, "tokens/s", 1.0),
]


def main(window: float = 0.25, rounds: int = 8) -> None:
    torch = try_import("torch")
    if torch is not None:
        torch.set_num_threads(nabla.get_num_threads())
    print("\n## training steps (throughput; ratio = nabla / torch, higher is better)\n")
    print(f"| {'workload':<36} | {'nabla steps/s':>13} | {'torch steps/s':>13} | {'nabla':>16} | ratio | target |")
    print("|" + "-" * 38 + "|" + "-" * 15 + "|" + "-" * 15 + "|" + "-" * 18 + "|-------|--------|")
    for name, make, per_step, unit, target in WORKLOADS:
        fns = {"nabla": make(nabla)}
        if torch is not None:
            fns["torch"] = make(torch)
        best = interleaved(fns, window, rounds)
        ours = 1 / best["nabla"]
        theirs = 1 / best["torch"] if "torch" in best else float("nan")
        print(f"| {name:<36} | {ours:>13.1f} | {theirs:>13.1f} | {ours * per_step:>9.0f} {unit:<6} | "
              f"{ours / theirs:>5.2f} | {target:>5.1f}x |", flush=True)


if __name__ == "__main__":
    import sys
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    main()
