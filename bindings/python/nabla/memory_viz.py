"""A picture of the caching allocator: segments as bars, blocks coloured by state
and stream, so fragmentation shows at a glance.

    python -m nabla.memory_viz snapshot.json -o memory.html   # or -o memory.svg

snapshot.json is what nabla.cuda.memory_snapshot() returns (a list of segments),
the full object of nb_memory_snapshot (with "device" and "stats"), or PyTorch's
torch.cuda.memory._snapshot() (the same segment and block field names). The page
is self-contained: inline SVG, no scripts, no network.
"""
from __future__ import annotations

import argparse
import html
import json
import sys

_PALETTE = ["#3b6fd8", "#2e9e5b", "#a357d6", "#d1892b", "#c2405a", "#2aa3a8", "#7a8b24", "#8a5a3c"]
_FREE = "#e4e7ec"
_PENDING = "#f2c14e"
_LABEL_W, _BAR_W, _ROW_H, _GAP = 250, 820, 26, 8


def _fmt(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _normalise(snapshot) -> tuple[list[dict], str]:
    if isinstance(snapshot, list):
        return snapshot, "cuda"
    return snapshot.get("segments", []), snapshot.get("device", "cuda")


def _summary(segments: list[dict]) -> dict:
    s = {"reserved": 0, "allocated": 0, "pending": 0, "free": 0, "fragmented": 0, "largest_free": 0, "blocks": 0}
    for seg in segments:
        s["reserved"] += seg["total_size"]
        blocks = seg.get("blocks", [])
        split = len(blocks) > 1
        for b in blocks:
            s["blocks"] += 1
            state = b.get("state", "inactive")
            if state == "active_allocated":
                s["allocated"] += b["size"]
            elif state == "active_pending_free":
                s["pending"] += b["size"]
            else:
                s["free"] += b["size"]
                s["largest_free"] = max(s["largest_free"], b["size"])
                if split:
                    s["fragmented"] += b["size"]
    return s


def render_svg(snapshot) -> str:
    """The picture as an SVG document."""
    segments, device = _normalise(snapshot)
    segments = sorted(segments, key=lambda s: (s.get("stream", 0), s["address"]))
    streams = sorted({s.get("stream", 0) for s in segments})
    colour = {st: _PALETTE[i % len(_PALETTE)] for i, st in enumerate(streams)}
    biggest = max((s["total_size"] for s in segments), default=1)
    top = 92
    height = top + len(segments) * (_ROW_H + _GAP) + 40
    width = _LABEL_W + _BAR_W + 30
    sm = _summary(segments)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<defs><pattern id="pending" width="6" height="6" patternUnits="userSpaceOnUse" '
           f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{_PENDING}"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#b8860b" stroke-width="2"/></pattern></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="22" font-size="16" font-weight="bold">{html.escape(str(device))}: '
           f'{len(segments)} segments, {sm["blocks"]} blocks</text>',
           f'<text x="10" y="42">reserved {_fmt(sm["reserved"])} · allocated {_fmt(sm["allocated"])} · '
           f'waiting on other streams {_fmt(sm["pending"])} · free {_fmt(sm["free"])}, of which '
           f'{_fmt(sm["fragmented"])} fragmented inside used segments · largest free block '
           f'{_fmt(sm["largest_free"])}</text>']
    x = 10
    for st in streams:  # legend
        out.append(f'<rect x="{x}" y="54" width="14" height="14" fill="{colour[st]}"/>'
                   f'<text x="{x + 18}" y="66">allocated, stream {st:#x}</text>')
        x += 180
    out.append(f'<rect x="{x}" y="54" width="14" height="14" fill="url(#pending)"/>'
               f'<text x="{x + 18}" y="66">freed, awaiting another stream</text>')
    x += 210
    out.append(f'<rect x="{x}" y="54" width="14" height="14" fill="{_FREE}" stroke="#9aa1ad"/>'
               f'<text x="{x + 18}" y="66">free (cached)</text>')
    for i, seg in enumerate(segments):
        y = top + i * (_ROW_H + _GAP)
        seg_w = max(_BAR_W * seg["total_size"] / biggest, 24.0)
        label = (f'{seg["address"]:#x} · {_fmt(seg["total_size"])} · {seg.get("segment_type", "")} · '
                 f'stream {seg.get("stream", 0):#x}')
        out.append(f'<text x="10" y="{y + 17}" font-size="11">{html.escape(label)}</text>')
        out.append(f'<rect x="{_LABEL_W}" y="{y}" width="{seg_w:.2f}" height="{_ROW_H}" fill="{_FREE}" '
                   f'stroke="#6b7280" stroke-width="1"/>')
        base, total = seg["address"], seg["total_size"]
        for b in seg.get("blocks", []):
            bx = _LABEL_W + seg_w * (b["address"] - base) / total
            bw = max(seg_w * b["size"] / total, 1.0)
            state = b.get("state", "inactive")
            fill = (colour[seg.get("stream", 0)] if state == "active_allocated"
                    else "url(#pending)" if state == "active_pending_free" else _FREE)
            tip = f'{state} {_fmt(b["size"])} at {b["address"]:#x}'
            if b.get("requested_size"):
                tip += f' (requested {b["requested_size"]} bytes)'
            out.append(f'<rect x="{bx:.2f}" y="{y + 1}" width="{bw:.2f}" height="{_ROW_H - 2}" fill="{fill}" '
                       f'stroke="white" stroke-width="0.5"><title>{html.escape(tip)}</title></rect>')
    out.append("</svg>")
    return "\n".join(out)


def render_html(snapshot) -> str:
    """A self-contained page around the SVG."""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>nabla memory</title>"
            "<style>body{margin:12px;background:#f7f8fa}</style></head><body>\n"
            + render_svg(snapshot) + "\n</body></html>\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m nabla.memory_viz", description=__doc__.split("\n\n")[0])
    p.add_argument("snapshot", help="a JSON snapshot file ('-' for stdin)")
    p.add_argument("-o", "--output", default="memory.html", help="output .html or .svg (default memory.html)")
    args = p.parse_args(argv)
    text = sys.stdin.read() if args.snapshot == "-" else open(args.snapshot, encoding="utf-8").read()
    snapshot = json.loads(text)
    page = render_svg(snapshot) if args.output.endswith(".svg") else render_html(snapshot)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(page)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
