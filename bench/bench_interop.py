"""Interop: DLPack and NumPy exchange (time per exchange; zero copy, so the size
must not matter), and a DataLoader with 2 worker processes over a 28x28 image
dataset (batches per second; higher is better), nabla beside PyTorch.

    python bench/run.py interop"""
from __future__ import annotations

import time

import numpy as np
from harness import per_call_seconds, print_table, try_import

import nabla


def dlpack_cases(torch):
    t = nabla.zeros(256)  # 1 KB
    a = np.zeros(256, np.float32)
    x = torch.zeros(256) if torch else None
    rows = []

    def row(name, nb_fn, torch_fn=None, np_fn=None):
        times = {"nabla": per_call_seconds(nb_fn)}
        if torch and torch_fn:
            times["torch"] = per_call_seconds(torch_fn)
        if np_fn:
            times["numpy"] = per_call_seconds(np_fn)
        rows.append((name, times))

    row("from_dlpack(own tensor) round trip", lambda: nabla.from_dlpack(t), lambda: torch.from_dlpack(x),
        lambda: np.from_dlpack(a))
    row("np.from_dlpack(tensor)", lambda: np.from_dlpack(t), lambda: np.from_dlpack(x))
    row("from_dlpack(ndarray)", lambda: nabla.from_dlpack(a), lambda: torch.from_dlpack(a))
    row("from_numpy(ndarray)", lambda: nabla.from_numpy(a), lambda: torch.from_numpy(a))
    row("tensor.numpy()", lambda: t.numpy(), lambda: x.numpy())
    row("np.asarray(tensor)", lambda: np.asarray(t), lambda: np.asarray(x))
    if torch:
        rows.append(("torch.from_dlpack(nabla tensor)", {"nabla": per_call_seconds(lambda: torch.from_dlpack(t))}))
        rows.append(("nabla.from_dlpack(torch tensor)", {"nabla": per_call_seconds(lambda: nabla.from_dlpack(x))}))
    print_table("DLPack / NumPy exchange, 1 KB float32 (time per exchange)", rows)

    big = nabla.empty(1 << 28)  # 1 GiB of float32, never touched
    small = nabla.empty(256)
    sizes = [("1 KB", small), ("1 GB", big)]
    rows = []
    for name, tensor in sizes:
        times = {"nabla": per_call_seconds(lambda: nabla.from_dlpack(tensor))}
        if torch:
            xt = torch.empty(tensor.numel())
            times["torch"] = per_call_seconds(lambda: torch.from_dlpack(xt))
            del xt
        rows.append((f"from_dlpack round trip, {name}", times))
    print_table("Exchange cost does not depend on size", rows)
    del big


def _dataset(framework, n: int):
    """n float32 images [1, 28, 28] with int64 labels, as a TensorDataset of the framework."""
    gen = np.random.default_rng(0)
    images = gen.standard_normal((n, 1, 28, 28)).astype(np.float32)
    labels = gen.integers(0, 10, n)
    return framework.utils.data.TensorDataset(framework.from_numpy(images), framework.from_numpy(labels))


def _batches_per_second(framework, dataset, epochs: int = 3, **kwargs) -> tuple[float, float]:
    """(first epoch including worker start, best steady epoch) in batches per second."""
    loader = framework.utils.data.DataLoader(dataset, persistent_workers=True, **kwargs)
    rates = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        n = 0
        for images, labels in loader:
            n += 1
        rates.append(n / (time.perf_counter() - t0))
    del loader
    return rates[0], max(rates[1:])


def dataloader_cases(torch):
    settings = dict(batch_size=64, shuffle=True, num_workers=2)
    rows_first, rows_steady = [], []
    frameworks = [("nabla", nabla)] + ([("torch", torch)] if torch else [])
    results = {}
    for name, fw in frameworks:
        ds = _dataset(fw, 20000)
        results[name] = _batches_per_second(fw, ds, **settings)
    rows_first.append(("first epoch (starts 2 workers)", {k: 1 / v[0] for k, v in results.items()}))
    rows_steady.append(("steady epoch", {k: 1 / v[1] for k, v in results.items()}))
    print_table("DataLoader, 20000 images 1x28x28, batch 64, shuffle, 2 workers (ms per batch)",
                rows_first + rows_steady, unit="ms", scale=1e3, columns=("nabla", "torch"))
    for k, v in results.items():
        print(f"{k}: {v[1]:.0f} batches/s steady, {v[0]:.0f} batches/s in the first epoch")


def main() -> None:
    torch = try_import("torch")
    if torch is not None:
        import torch.utils.data  # noqa: F401
    dlpack_cases(torch)
    dataloader_cases(torch)


if __name__ == "__main__":
    main()
