"""Allocate+free latency: nabla's caching allocator (C core, p50/p99 per pair)
against the simulated device now, and on a GPU against raw cudaMalloc/cudaFree and
PyTorch's caching allocator, then the same through the Python frontends.

    python bench/bench_alloc.py

The C rows come from bench/bench_alloc.c (compiled here with cc). The Python
rows time `empty(n, device='cuda')` plus its release in nabla and PyTorch in the
same process; they include each frontend's tensor creation, not just the
allocator.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_c() -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("no C compiler: the C rows are skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "bench_alloc"
        subprocess.run([cc, "-std=c11", "-O2", f"-I{ROOT / 'include'}", str(ROOT / "bench" / "bench_alloc.c"),
                        "-lpthread", "-ldl", "-o", str(exe)], check=True)
        env = dict(os.environ)
        cudart = _torch_cudart()
        if cudart:
            env["NB_CUDART"] = cudart
        subprocess.run([str(exe)], check=True, env=env)


def _torch_cudart() -> str | None:
    """PyTorch's libcudart, when its wheel ships one (the C program loads it for the CUDA rows)."""
    try:
        import nvidia.cuda_runtime as rt  # the nvidia-cuda-runtime wheel PyTorch depends on
        lib = Path(list(rt.__path__)[0]) / "lib"
        found = sorted(lib.glob("libcudart.so*"))
        return str(found[0]) if found else None
    except ImportError:
        return None


def percentiles(fn, n: int = 20000) -> tuple[float, float]:
    samples = []
    for _ in range(200):
        fn()
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - t0)
    samples.sort()
    return samples[n // 2], samples[n * 99 // 100]


def run_python() -> None:
    import nabla
    rows = []
    if nabla.cuda.is_available():
        rows.append(("nabla.empty(2**18, device='cuda') + release",
                     percentiles(lambda: nabla.empty(2 ** 18, device="cuda"))))
    try:
        import torch
        if torch.cuda.is_available():
            rows.append(("torch.empty(2**18, device='cuda') + release",
                         percentiles(lambda: torch.empty(2 ** 18, device="cuda"))))
            alloc, free = torch.cuda.caching_allocator_alloc, torch.cuda.caching_allocator_delete
            rows.append(("torch caching_allocator_alloc+delete (Python)",
                         percentiles(lambda: free(alloc(1 << 20)))))
    except ImportError:
        pass
    rows.append(("nabla.empty(2**18) + release (cpu, reference)", percentiles(lambda: nabla.empty(2 ** 18))))
    for name, (p50, p99) in rows:
        print(f"{name:<48} p50 {p50:8d} ns   p99 {p99:8d} ns")


if __name__ == "__main__":
    run_c()
    run_python()
    sys.exit(0)
