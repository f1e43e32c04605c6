"""Reductions and softmax: nabla against PyTorch on a grid of shapes and dtypes.

    python bench/bench_reduce.py            # the whole grid (a few minutes)
    python bench/bench_reduce.py --quick    # a subset (well under a minute)
    python bench/bench_reduce.py --threads 1
    python bench/bench_reduce.py --only 'softmax.*bf16'   # rows whose name matches a regex

Every row times nabla and PyTorch in alternation in one process (best of 7
rounds) and prints the speed ratio torch time / nabla time: >= 1.0 means nabla
is at least as fast. The sum rows carry the GB/s they reach beside the
machine's streaming-read bandwidth (an OpenMP read loop over 64 MB, compiled on
the fly with cc; NumPy's single-threaded sum when no compiler is found)."""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
import tempfile

from harness import against_torch, interleaved, print_ratio_table

import nabla
import numpy as np

_READ_LOOP = r"""
#include <stdint.h>
#include <stddef.h>
uint64_t nb_read(const uint64_t* p, int64_t n) {
    uint64_t a = 0;
    #pragma omp parallel for reduction(^:a) schedule(static)
    for (int64_t i = 0; i < n; i += 8) a ^= p[i] ^ p[i + 1] ^ p[i + 2] ^ p[i + 3] ^ p[i + 4] ^ p[i + 5] ^ p[i + 6] ^ p[i + 7];
    return a;
}
"""


def read_bandwidth(threads: int) -> tuple[float, str]:
    """GB/s of a streaming read of 64 MB (best of 20)."""
    import time
    buf = np.ones(8 << 20, dtype=np.uint64)
    fn, how = None, "numpy sum, 1 thread"
    try:
        d = tempfile.mkdtemp()
        src, lib = os.path.join(d, "read.c"), os.path.join(d, "read.so")
        with open(src, "w") as f:
            f.write(_READ_LOOP)
        subprocess.run(["cc", "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", src, "-o", lib],
                       check=True, capture_output=True)
        so = ctypes.CDLL(lib)
        so.nb_read.restype, so.nb_read.argtypes = ctypes.c_uint64, [ctypes.c_void_p, ctypes.c_int64]
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        ptr = buf.ctypes.data
        fn, how = (lambda: so.nb_read(ptr, buf.size)), f"C read loop, {threads} threads"
    except (OSError, subprocess.CalledProcessError):
        fn = buf.sum
    best = float("inf")
    for _ in range(20):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return buf.nbytes / best / 1e9, how


K = 1 << 10
M = 1 << 20
SIZES_FULL = [K, 64 * K, M, 16 * M, 64 * M]
SIZES_QUICK = [K, M, 16 * M]
ROUNDS = 7


def _label(n: int) -> str:
    return f"{n // M}M" if n >= M else f"{n // K}K"


def full_ops(torch):
    """name -> (nabla fn, torch fn, dtypes it runs on) for whole-tensor reductions."""
    fl = ("f32", "f64", "bf16")
    return {
        "sum": (lambda x: x.sum(), lambda x: x.sum(), ("f32", "f64", "bf16", "i64")),
        "mean": (lambda x: x.mean(), lambda x: x.mean(), fl),
        "prod": (lambda x: x.prod(), lambda x: x.prod(), ("f32", "f64", "i64")),
        "amax": (lambda x: x.amax(), lambda x: x.amax(), ("f32", "f64", "bf16", "i64")),
        "amin": (lambda x: x.amin(), lambda x: x.amin(), ("f32",)),
        "argmax": (lambda x: x.argmax(), lambda x: x.argmax(), ("f32", "f64", "i64")),
        "argmin": (lambda x: x.argmin(), lambda x: x.argmin(), ("f32",)),
        "var": (lambda x: x.var(), lambda x: x.var(), fl),
        "std": (lambda x: x.std(), lambda x: x.std(), ("f32",)),
        "norm": (lambda x: nabla.linalg.vector_norm(x), lambda x: torch.linalg.vector_norm(x), fl),
        "logsumexp": (lambda x: nabla.logsumexp(x, 0), lambda x: torch.logsumexp(x, 0), ("f32", "f64")),
        "all": (lambda x: x.all(), lambda x: x.all(), ("f32", "i64")),
        "any": (lambda x: x.any(), lambda x: x.any(), ("f32", "i64")),
    }


def dim_ops(torch):
    """name -> (nabla fn(x, d), torch fn(x, d)) for reductions over one dim."""
    return {
        "sum": (lambda x, d: x.sum(d), lambda x, d: x.sum(d)),
        "mean": (lambda x, d: x.mean(d), lambda x, d: x.mean(d)),
        "prod": (lambda x, d: x.prod(d), lambda x, d: x.prod(d)),
        "amax": (lambda x, d: x.amax(d), lambda x, d: x.amax(d)),
        "argmax": (lambda x, d: x.argmax(d), lambda x, d: x.argmax(d)),
        "var": (lambda x, d: x.var(d), lambda x, d: x.var(d)),
        "norm": (lambda x, d: nabla.linalg.vector_norm(x, dim=d), lambda x, d: torch.linalg.vector_norm(x, dim=d)),
        "logsumexp": (lambda x, d: nabla.logsumexp(x, d), lambda x, d: torch.logsumexp(x, d)),
        "any": (lambda x, d: x.any(d), lambda x, d: x.any(d)),
        "softmax": (lambda x, d: nabla.softmax(x, d), lambda x, d: torch.softmax(x, d)),
        "log_softmax": (lambda x, d: nabla.log_softmax(x, d), lambda x, d: torch.log_softmax(x, d)),
    }


def make(rng, n: int, dtype: str, torch):
    """The same values as a nabla and a torch tensor of n elements."""
    if dtype == "i64":
        a = rng.integers(-3, 4, n, dtype=np.int64)
    else:
        a = (rng.random(n, dtype=np.float32) + 0.5).astype(np.float64 if dtype == "f64" else np.float32)
    nx, tx = nabla.from_numpy(a), torch.from_numpy(a)
    if dtype == "bf16":
        nx, tx = nx.to(nabla.bfloat16), tx.to(torch.bfloat16)
    return nx, tx


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    torch, quick, threads = against_torch("bench_reduce", argv)
    if torch is None:
        return
    only = re.compile(argv[argv.index("--only") + 1]) if "--only" in argv else None
    budget = 0.01 if quick else 0.02  # seconds per timed loop; ROUNDS loops each
    rng = np.random.default_rng(0)
    bw, how = read_bandwidth(threads)
    print(f"\nthreads: {threads}; streaming read of 64 MB: {bw:.1f} GB/s ({how})")

    rows = []
    fops = full_ops(torch)
    sizes = SIZES_QUICK if quick else SIZES_FULL
    for dtype in ("f32", "f64", "bf16", "i64"):
        for n in sizes:
            if dtype != "f32" and n > 16 * M:
                continue
            nx, tx = make(rng, n, dtype, torch)
            for name, (fn, ft, dts) in fops.items():
                if dtype not in dts or (quick and name in ("amin", "argmin", "std", "all")):
                    continue
                if dtype != "f32" and n < M and name not in ("sum", "amax"):
                    continue
                if only and not only.search(f"{name} {_label(n)} {dtype}"):
                    continue
                t = interleaved({"nabla": lambda: fn(nx), "torch": lambda: ft(tx)}, budget, ROUNDS)
                nbytes = n * nx.element_size()
                note = f"{nbytes / t['nabla'] / 1e9:.1f} GB/s (read {bw:.0f})" if name == "sum" and n >= M else ""
                rows.append((f"{name} {_label(n)} {dtype}", t["nabla"], t["torch"], note))
            del nx, tx
    print_ratio_table("Full reductions (speed = torch time / nabla time; >= 1.0: nabla faster)", rows)

    rows = []
    dops = dim_ops(torch)
    totals = [M] if quick else [M, 16 * M]
    inners = [1, 16, 256, 4096]
    for dtype in ("f32",) if quick else ("f32", "bf16"):
        for total in totals:
            for inner in inners:
                outer = total // inner
                a = rng.random((outer, inner), dtype=np.float32) + 0.5
                nx, tx = nabla.from_numpy(a), torch.from_numpy(a)
                if dtype == "bf16":
                    nx, tx = nx.to(nabla.bfloat16), tx.to(torch.bfloat16)
                mid = 64 if outer >= 256 else 4
                n3, t3 = nx.reshape(outer // mid, mid, inner), tx.reshape(outer // mid, mid, inner)
                nT, tT = nx.t(), tx.t()  # non-contiguous: reduce the transposed view
                cases = [("dim0", nx, tx, 0), ("dim1", nx, tx, 1), ("mid", n3, t3, 1), ("T dim1", nT, tT, 1)]
                for name, (fn, ft) in dops.items():
                    if dtype == "bf16" and name not in ("sum", "amax", "softmax"):
                        continue
                    if quick and name in ("prod", "any", "mean"):
                        continue
                    for kind, xn, xt, d in cases:
                        if inner == 1 and kind in ("dim1", "T dim1") and name not in ("sum",):
                            continue
                        if only and not only.search(f"{name} {list(xt.shape)} {kind} {dtype}"):
                            continue
                        t = interleaved({"nabla": lambda: fn(xn, d), "torch": lambda: ft(xt, d)}, budget, ROUNDS)
                        shape = list(xt.shape)
                        rows.append((f"{name} {shape} {kind} {dtype}", t["nabla"], t["torch"], ""))
                del nx, tx, n3, t3, nT, tT
    print_ratio_table("Reductions over one dim (speed = torch time / nabla time; >= 1.0: nabla faster)", rows)


if __name__ == "__main__":
    main()
