"""Timing helpers shared by the benchmarks: best-of-repeats per-call time, and a
table that puts nabla beside PyTorch and NumPy measured in the same process."""
from __future__ import annotations

import gc
import time
from typing import Callable


def per_call_seconds(fn: Callable[[], object], min_time: float = 0.2, repeats: int = 5) -> float:
    """Best (lowest) mean seconds per call over `repeats` runs of about min_time each."""
    n = 1
    while True:  # calibrate the loop count
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time / 10:
            break
        n *= 4
    n = max(1, int(n * (min_time / 10) / max(dt, 1e-9) * 10 / 10))
    best = float("inf")
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best = min(best, (time.perf_counter() - t0) / n)
    finally:
        if gc_was_enabled:
            gc.enable()
    return best


def try_import(name: str):
    try:
        return __import__(name)
    except ImportError:
        return None


def print_table(title: str, rows: list[tuple[str, dict[str, float]]], unit: str = "us",
                scale: float = 1e6, columns: tuple[str, ...] = ("nabla", "torch", "numpy")) -> None:
    """rows: (case, {framework: seconds}). Ratio column: nabla time / torch time (lower is better)."""
    print(f"\n## {title}\n")
    head = f"| {'case':<34} | " + " | ".join(f"{c + ' ' + unit:>12}" for c in columns) + " | nabla/torch |"
    print(head)
    print("|" + "-" * 36 + "|" + "|".join("-" * 14 for _ in columns) + "|-------------|")
    for case, times in rows:
        cells = [f"{times[c] * scale:>12.3f}" if c in times else f"{'-':>12}" for c in columns]
        ratio = f"{times['nabla'] / times['torch']:>11.2f}" if "torch" in times and "nabla" in times else f"{'-':>11}"
        print(f"| {case:<34} | " + " | ".join(cells) + f" | {ratio} |")


def interleaved(fns: dict, window: float, rounds: int) -> dict:
    """{framework: best seconds per call}: each framework's loop is sized to about `window` seconds, then the
    frameworks take turns, round after round, and each keeps its best round. Many short alternating rounds
    make it likely that both are also measured in the quiet moments of a shared machine."""
    loops, best = {}, {}
    for k, f in fns.items():
        f()  # warm up: allocator caches, thread pools, lazy initialisation
        n, dt = 1, 0.0
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            dt = time.perf_counter() - t0
            if dt >= window / 4:
                break
            n *= 2
        loops[k], best[k] = max(1, int(n * window / dt)), float("inf")
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for k, f in fns.items():
                n = loops[k]
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                best[k] = min(best[k], (time.perf_counter() - t0) / n)
    finally:
        if gc_was_enabled:
            gc.enable()
    return best


def interleaved_settled(fns: dict, rounds: int, batch_seconds: float = 0.02, settle: float = 0.05) -> dict:
    """Best per-call time of each function over `rounds` rounds. Each round times, for every
    function in turn, a warm-up call then a batch of calls about batch_seconds long, after a
    pause of `settle` seconds: the frameworks alternate, so load from other processes hits
    them alike, and the pause lets the previous framework's idle threads (OpenMP and
    OpenBLAS workers spin for a while after each call) stop competing for the cores."""
    counts = {}
    for k, f in fns.items():
        f()
        t0 = time.perf_counter()
        f()
        counts[k] = max(1, int(batch_seconds / max(time.perf_counter() - t0, 1e-9)))
    best = {k: float("inf") for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            time.sleep(settle)
            f()
            n = counts[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best[k] = min(best[k], (time.perf_counter() - t0) / n)
    return best


def print_ratio_table(title: str, rows: list[tuple[str, float, float, str]]) -> None:
    """rows: (case, nabla seconds, torch seconds, note). Speed ratio = torch time /
    nabla time: >= 1.0 means nabla is at least as fast as PyTorch."""
    print(f"\n## {title}\n")
    print(f"| {'case':<44} | {'nabla us':>10} | {'torch us':>10} | speed nabla/torch | note")
    print("|" + "-" * 46 + "|" + "-" * 12 + "|" + "-" * 12 + "|-------------------|------")
    for case, tn, tt, note in rows:
        mark = "" if tt / tn >= 1.0 else "  <"
        print(f"| {case:<44} | {tn * 1e6:>10.1f} | {tt * 1e6:>10.1f} | {tt / tn:>14.2f}{mark:<3} | {note}")
    ratios = [tt / tn for _, tn, tt, _ in rows]
    if ratios:
        ratios.sort()
        print(f"\n{len(ratios)} cases; speed ratio min {ratios[0]:.2f}, median {ratios[len(ratios) // 2]:.2f}; "
              f"{sum(r < 1.0 for r in ratios)} below 1.0")


def against_torch(name: str, argv: list[str] | None):
    """(torch or None, --quick given, thread count) for a suite that compares with
    PyTorch; both frameworks are set to the thread count (--threads N, default
    PyTorch's)."""
    import sys
    argv = sys.argv[1:] if argv is None else argv
    torch = try_import("torch")
    if torch is None:
        print(f"{name}: PyTorch is not installed; nothing to compare against")
        return None, False, 0
    import nabla
    threads = int(argv[argv.index("--threads") + 1]) if "--threads" in argv else torch.get_num_threads()
    torch.set_num_threads(threads)
    nabla.set_num_threads(threads)
    return torch, "--quick" in argv, threads
