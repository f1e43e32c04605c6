"""nabla's demo: train a small CNN on the UCI 8x8 handwritten digits (1,797 images,
shipped in examples/data), save a checkpoint and reload it; then a C program built
against the installed library. Run: python examples/demo.py [--epochs N] [--device cpu|cuda]
(the default device is CUDA when nabla finds one).

The training code is PyTorch's own idiom: `import nabla as torch` would read the same."""
from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import nabla as nb
import nabla.nn as nn
import nabla.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "digits.csv.gz"

try:
    from nabla.utils.data import DataLoader, TensorDataset
except ImportError:  # the data toolkit is not in this build: the same batches from a tiny local loader
    class TensorDataset:
        def __init__(self, *tensors):
            self.tensors = tensors

        def __len__(self):
            return self.tensors[0].shape[0]

    class DataLoader:
        def __init__(self, dataset, batch_size=1, shuffle=False, generator=None):
            self.dataset, self.batch_size, self.shuffle, self.generator = dataset, batch_size, shuffle, generator

        def __len__(self):
            return (len(self.dataset) + self.batch_size - 1) // self.batch_size

        def __iter__(self):
            n = len(self.dataset)
            order = nb.randperm(n, generator=self.generator) if self.shuffle else nb.arange(n)
            for i in range(0, n, self.batch_size):
                idx = order[i:i + self.batch_size]
                yield tuple(t[idx] for t in self.dataset.tensors)


def load_digits():
    """(images [1797, 1, 8, 8] float32 in [0, 1], labels [1797] int64)."""
    with gzip.open(DATA, "rt") as f:
        raw = np.loadtxt(f, delimiter=",", dtype=np.float32)
    images = nb.tensor(raw[:, :64].reshape(-1, 1, 8, 8) / 16.0)
    labels = nb.tensor(raw[:, 64].astype(np.int64))
    return images, labels


class DigitsCNN(nn.Module):
    """[N, 1, 8, 8] -> two 3x3 conv layers -> 2x2 max pool -> MLP head -> [N, 10] logits."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.25),
                                  nn.Linear(128, 10))

    def forward(self, x: nb.Tensor) -> nb.Tensor:
        return self.head(self.features(x))


def progress(epoch: int, epochs: int, done: int, total: int, loss: float, width: int = 30) -> None:
    filled = width * done // total
    bar = "#" * filled + "." * (width - filled)
    print(f"\repoch {epoch:2d}/{epochs} [{bar}] {done:4d}/{total} loss {loss:.4f}", end="", flush=True)


def evaluate(model: nn.Module, images: nb.Tensor, labels: nb.Tensor, device: nb.device) -> float:
    model.eval()
    with nb.no_grad():
        correct = (model(images.to(device)).argmax(1) == labels.to(device)).sum().item()
    return correct / labels.shape[0]


def train(epochs: int, checkpoint: Path, device: nb.device) -> float:
    nb.manual_seed(0)
    images, labels = load_digits()
    perm = nb.randperm(labels.shape[0])
    test_idx, train_idx = perm[:360], perm[360:]  # 20% held out
    train_set = TensorDataset(images[train_idx], labels[train_idx])
    loader = DataLoader(train_set, batch_size=32, shuffle=True, generator=nb.Generator().manual_seed(1))
    model = DigitsCNN().to(device)
    opt = nb.optim.Adam(model.parameters(), lr=2e-3)
    sched = nb.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader))
    print(f"training {type(model).__name__} ({sum(p.numel() for p in model.parameters()):,} parameters) on "
          f"{len(train_set)} digits, testing on {test_idx.shape[0]}, on {device}")
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        model.train()
        total, seen = nb.zeros((), device=device), 0  # the loss summed on the device: no read per batch
        for batch, (x, y) in enumerate(loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.detach() * y.shape[0]
            seen += y.shape[0]
            if batch % 8 == 7 or seen == len(train_set):
                progress(epoch, epochs, seen, len(train_set), total.item() / seen)
        acc = evaluate(model, images[test_idx], labels[test_idx], device)
        print(f"  held-out accuracy {acc:.2%}  ({time.perf_counter() - start:.1f} s)")
    nb.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epochs}, checkpoint)
    restored = DigitsCNN().to(device)
    restored.load_state_dict(nb.load(checkpoint)["model"])
    reloaded = evaluate(restored, images[test_idx], labels[test_idx], device)
    print(f"checkpoint saved to {checkpoint} and reloaded: held-out accuracy {reloaded:.2%}")
    return reloaded


def c_tour() -> None:
    src = ROOT / "bindings" / "c_examples" / "hello_tensor.c"
    flags = subprocess.run([sys.executable, "-m", "nabla.config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "hello_tensor"
        print("\n$ cc -std=c11 bindings/c_examples/hello_tensor.c $(python -m nabla.config --cflags --libs) "
              "-o hello_tensor && ./hello_tensor")
        subprocess.run(["cc", "-std=c11", str(src), *flags, "-o", str(exe)], check=True)
        sys.stdout.flush()
        subprocess.run([str(exe)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--checkpoint", type=Path, default=Path(tempfile.gettempdir()) / "nabla_digits_cnn.safetensors")
    parser.add_argument("--device", default="cuda" if nb.cuda.is_available() else "cpu",
                        help="where to train (default: cuda when available, else cpu)")
    parser.add_argument("--no-c", action="store_true", help="skip building the C example")
    args = parser.parse_args()
    print(f"nabla {nb.__version__}")
    train(args.epochs, args.checkpoint, nb.device(args.device))
    if not args.no_c:
        c_tour()
    return 0


if __name__ == "__main__":
    sys.exit(main())
