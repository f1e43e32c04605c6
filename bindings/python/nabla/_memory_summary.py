"""The text table behind nabla.cuda.memory_summary(), laid out like PyTorch's."""
from __future__ import annotations

_WIDTH = 75


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:6d} {unit:<3}" if unit == "B" else f"{n:6.2f} {unit}"
        n /= 1024
    return str(n)


def _row(cells: list[str], widths: list[int]) -> str:
    return "|" + "|".join(f" {c:<{w - 1}}" if i == 0 else f" {c:>{w - 2}} " for i, (c, w) in enumerate(zip(cells, widths))) + "|"


def summary_table(stats: dict, device: int) -> str:
    """stats: nabla.cuda.memory_stats() keys; returns the table as one string."""
    get = lambda k: stats.get(k, 0)  # noqa: E731
    bar, thin = "|" + "=" * _WIDTH + "|", "|" + "-" * _WIDTH + "|"
    widths = [24, 16, 16, 16]
    lines = [bar, "|" + f"nabla CUDA memory summary, device ID {device}".center(_WIDTH) + "|", thin,
             "|" + f"CUDA OOMs: {get('num_ooms')}".center(37) + "|" +
             f"cudaMalloc retries: {get('num_alloc_retries')}".center(_WIDTH - 38) + "|", bar,
             _row(["Metric", "Cur Usage", "Peak Usage", "Count"], widths), thin]
    for label, key in (("Allocated memory", "allocated_bytes"), ("Active memory", "active_bytes"),
                       ("Requested memory", "requested_bytes"), ("GPU reserved memory", "reserved_bytes")):
        lines.append(_row([label, _bytes(get(f"{key}.all.current")), _bytes(get(f"{key}.all.peak")), ""], widths))
    lines.append(thin)
    lines.append(_row(["Non-releasable memory", _bytes(get("inactive_split_bytes.all.current")), "", ""], widths))
    lines.append(_row(["Largest free block", _bytes(get("largest_free_block")), "", ""], widths))
    lines.append(thin)
    lines.append(_row(["Allocations", str(get("allocation.all.current")), "",
                       str(get("allocation.all.allocated"))], widths))
    lines.append(_row(["GPU reserved segments", str(get("segment.all.current")), "", ""], widths))
    lines.append(_row(["cudaMalloc / cudaFree", "", "", f"{get('num_device_alloc')} / {get('num_device_free')}"], widths))
    lines.append(bar)
    return "\n".join(lines) + "\n"
