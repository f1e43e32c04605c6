"""Hogwild: several processes train one model whose parameters live in shared
memory, each updating them without locks (PyTorch's mnist_hogwild example,
on a synthetic regression task so it needs no download).

    python examples/hogwild.py [--processes 2] [--epochs 5]

Written against PyTorch's API (`import nabla as torch` style): nn.Linear,
optim.SGD, loss.backward(), Module.share_memory() and nabla.multiprocessing.
"""
from __future__ import annotations

import argparse

import nabla
import nabla.multiprocessing as mp
from nabla import nn
from nabla.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        return self.fc2(nabla.relu(self.fc1(x)))


def make_data(n: int, seed: int) -> TensorDataset:
    g = nabla.Generator().manual_seed(seed)
    x = nabla.randn(n, 16, generator=g)
    w = nabla.linspace(-1, 1, 16).reshape(16, 1)
    y = x @ w + 0.1 * nabla.randn(n, 1, generator=g)
    return TensorDataset(x, y)


def train(rank: int, model: Net, args) -> None:
    nabla.manual_seed(args.seed + rank)
    loader = DataLoader(make_data(2048, args.seed + rank), batch_size=32, shuffle=True)
    optimizer = nabla.optim.SGD(model.parameters(), lr=args.lr)
    for _ in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()  # writes straight into the shared parameters


def evaluate(model: Net, seed: int) -> float:
    x, y = make_data(1024, seed + 1000).tensors
    with nabla.no_grad():
        return nn.functional.mse_loss(model(x), y).item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    nabla.manual_seed(args.seed)
    model = Net()
    before = evaluate(model, args.seed)
    model.share_memory()  # parameters move to shared memory; the workers write into them
    workers = [mp.Process(target=train, args=(rank, model, args)) for rank in range(args.processes)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"worker {p.pid} failed with exit code {p.exitcode}")
    after = evaluate(model, args.seed)
    print(f"test mse: {before:.4f} before, {after:.4f} after {args.processes} processes x {args.epochs} epochs")


if __name__ == "__main__":
    main()
