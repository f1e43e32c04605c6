"""repr() of tensors, following PyTorch's layout: precision 4, summarised past
1000 elements with 3 edge items, 80 columns, scientific notation when the
magnitudes call for it."""
from __future__ import annotations

import math

import numpy as np

from . import _dtype

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80


def _summarized(a: np.ndarray) -> np.ndarray:
    """The edge items along every dim (what a summarised repr shows)."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        a = np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]])
    return np.stack([_summarized(x) for x in a]) if a.ndim > 1 else a


class _Formatter:
    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating, self.int_mode, self.sci_mode, self.max_width = floating, True, False, 1
        flat = values.ravel()
        if not floating:
            self.max_width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:  # like PyTorch: widths come from non-zero finite values only
            return
        absvals = np.abs(finite)
        lo, hi = float(absvals.min()), float(absvals.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        ratio = hi / lo
        if self.int_mode:
            self.sci_mode = ratio > 1000.0 or hi > 1e8
        else:
            self.sci_mode = ratio > 1000.0 or hi > 1e8 or lo < 1e-4
        self.max_width = max(len(self._plain(v)) for v in finite.tolist())

    def _plain(self, v) -> str:
        if not self.floating:
            return str(v)
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        return f"{v:.{PRECISION}f}"

    def format(self, v) -> str:
        s = self._plain(v)
        return " " * (self.max_width - len(s)) + s


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, (LINEWIDTH - indent) // (fmt.max_width + 2))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        data = [fmt.format(v) for v in a[:EDGEITEMS].tolist()] + [" ..."] + \
               [fmt.format(v) for v in a[-EDGEITEMS:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    rows = range(a.shape[0])
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        parts = [_nested(a[i], indent + 1, summarize, fmt) for i in rows[:EDGEITEMS]] + ["..."] + \
                [_nested(a[i], indent + 1, summarize, fmt) for i in rows[-EDGEITEMS:]]
    else:
        parts = [_nested(a[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    out = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last_line + len(s) + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + s)
            last_line = indent + len(s)
        else:
            out.append(", " + s)
            last_line += len(s) + 2
    return "".join(out) + ")"


def _grad_suffix(t) -> list[str]:
    if not t.requires_grad:
        return []
    fn = t.grad_fn
    return [f"grad_fn=<{fn.name()}>"] if fn is not None else ["requires_grad=True"]


def tensor_repr(t) -> str:
    prefix = "tensor("
    indent = len(prefix)
    grad = _grad_suffix(t)
    t = t.detach()
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    dtype = t.dtype
    if t.numel() == 0:
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if dtype is not _dtype.get_default_dtype():  # no element tells int64 or bool apart
            suffixes.append(f"dtype={dtype!r}")
        return _add_suffixes(prefix + "[]", suffixes + grad, indent)
    else:
        a = (t.float() if dtype is _dtype.bfloat16 else t).numpy(force=True)
        if dtype.is_floating_point:
            a = a.astype(np.float64)
        summarize = a.size > THRESHOLD
        fmt = _Formatter(_summarized(a) if summarize else a, dtype.is_floating_point)
        body = _nested(a, indent, summarize, fmt)
    if dtype not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool_):
        suffixes.append(f"dtype={dtype!r}")
    return _add_suffixes(prefix + body, suffixes + grad, indent)
