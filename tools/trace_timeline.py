#!/usr/bin/env python3
"""Renders a Chrome trace (nabla.profiler's export_chrome_trace) as a small timeline PNG,
with the standard library only: one band per thread (CPU) or stream (GPU), nested calls
one row deeper, each name in a colour of its own; prints the colour legend.

    python tools/trace_timeline.py trace.json timeline.png [width]
"""
from __future__ import annotations

import colorsys
import json
import struct
import sys
import zlib

ROW, GAP, MARGIN = 10, 6, 4


def png(width: int, height: int, pixels: bytearray) -> bytes:
    raw = b"".join(b"\0" + bytes(pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def colour(name: str, names: dict) -> tuple[int, int, int]:
    if name not in names:
        h = (len(names) * 0.618034) % 1.0
        names[name] = tuple(int(255 * c) for c in colorsys.hsv_to_rgb(h, 0.55, 0.92))
    return names[name]


def render(trace: dict, width: int = 900) -> tuple[bytes, dict]:
    evs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    t0 = min(e["ts"] for e in evs)
    t1 = max(e["ts"] + e["dur"] for e in evs)
    scale = (width - 2 * MARGIN) / max(t1 - t0, 1e-9)
    tracks: dict = {}
    for e in sorted(evs, key=lambda e: (e["pid"], e["tid"], e["ts"], -e["dur"])):
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    layout, y = [], MARGIN
    for key, items in tracks.items():  # depth of each call: how many open calls enclose it
        open_ends, rows = [], []
        for e in items:
            while open_ends and open_ends[-1] <= e["ts"]:
                open_ends.pop()
            rows.append((len(open_ends), e))
            open_ends.append(e["ts"] + e["dur"])
        depth = 1 + max(d for d, _ in rows)
        layout.append((y, rows))
        y += depth * ROW + GAP
    height = y + MARGIN - GAP
    pix = bytearray([250] * (width * height * 3))
    names: dict = {}
    for top, rows in layout:
        for x in range(width):  # a thin baseline per track
            i = ((top - 2) * width + x) * 3
            pix[i:i + 3] = bytes((200, 200, 200))
        for depth, e in rows:
            r, g, b = colour(e["name"], names)
            x0 = MARGIN + int((e["ts"] - t0) * scale)
            x1 = max(x0 + 1, MARGIN + int((e["ts"] + e["dur"] - t0) * scale))
            for yy in range(top + depth * ROW, top + depth * ROW + ROW - 1):
                for xx in range(x0, min(x1, width)):
                    i = (yy * width + xx) * 3
                    pix[i:i + 3] = bytes((r, g, b))
    return png(width, height, pix), names


def main(argv: list[str]) -> int:
    with open(argv[1]) as f:
        trace = json.load(f)
    data, names = render(trace, int(argv[3]) if len(argv) > 3 else 900)
    with open(argv[2], "wb") as f:
        f.write(data)
    for name, (r, g, b) in names.items():
        print(f"#{r:02x}{g:02x}{b:02x}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
