"""CUDA elementwise: device bandwidth as a fraction of the measured
device-to-device copy, and host time per launch, beside PyTorch on the same GPU
in one run. Prints "no CUDA device" and exits 0 without one.

Targets: contiguous elementwise >= 0.9x of copy bandwidth (counting bytes read
and written once each); host time per op <= PyTorch's."""
from __future__ import annotations

import sys
import time

from harness import try_import

import nabla

N = 1 << 26  # 64M elements: 256 MiB per float32 tensor
ITERS = 20


def device_seconds(lib, fn, iters=ITERS):
    """Mean device time per call, from events around `iters` queued calls."""
    fn()
    lib.cuda.synchronize()
    start, end = lib.cuda.Event(enable_timing=True), lib.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / iters


def wall_seconds(lib, fn, iters=ITERS):
    """Mean wall time per call with the device drained before and after (for
    copies, which nabla runs synchronously, so events on a stream miss them)."""
    fn()
    lib.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    lib.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def host_seconds(lib, fn, iters=20000):
    """Mean host time per call for tiny tensors (the launch path, no sync inside)."""
    for _ in range(100):
        fn()
    lib.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    dt = time.perf_counter() - t0
    lib.cuda.synchronize()
    return dt / iters


def cases(lib, dev):
    a = lib.rand(N, device=dev)
    b = lib.rand(N, device=dev)
    m = lib.rand(8192, N // 8192, device=dev)
    row = lib.rand(N // 8192, device=dev)
    h = a.to(lib.float16)
    dst = lib.empty(N, device=dev)
    f4 = N * 4
    return {  # name: (fn, bytes moved)
        "copy (reference)": (lambda: dst.copy_(a), 2 * f4),
        "a + b": (lambda: a + b, 3 * f4),
        "a * 2.0": (lambda: a * 2.0, 2 * f4),
        "exp(a)": (lambda: lib.exp(a), 2 * f4),
        "a > b (bool out)": (lambda: a > b, 2 * f4 + N),
        "m + row (broadcast)": (lambda: m + row, 2 * f4),
        "m.t() * 2 (strided)": (lambda: m.t() * 2.0, 2 * f4),
        "f16 a + a": (lambda: h + h, 3 * N * 2),
    }


def main() -> int:
    if not nabla.cuda.is_available():
        print("no CUDA device")
        return 0
    torch = try_import("torch")
    libs = {"nabla": nabla}
    if torch is not None and torch.cuda.is_available():
        libs["torch"] = torch
    results = {}
    for name, lib in libs.items():
        cs = cases(lib, "cuda")
        copy_s = wall_seconds(lib, cs["copy (reference)"][0])
        copy_bw = cs["copy (reference)"][1] / copy_s
        for case, (fn, nbytes) in cs.items():
            s = copy_s if case == "copy (reference)" else device_seconds(lib, fn)
            results.setdefault(case, {})[name] = (nbytes / s / 1e9, nbytes / s / copy_bw)
        x, y = lib.rand(8, device="cuda"), lib.rand(8, device="cuda")
        results.setdefault("host time per a + b (8 elements)", {})[name] = host_seconds(lib, lambda: x + y)
    print(f"GPU elementwise, {N} elements (GB/s, fraction of that library's measured copy bandwidth)")
    for case, row in results.items():
        cells = []
        for name, v in row.items():
            cells.append(f"{name} {v * 1e6:7.2f} us" if isinstance(v, float) else f"{name} {v[0]:7.1f} GB/s {v[1]:5.2f}x")
        print(f"  {case:36s} " + "   ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
