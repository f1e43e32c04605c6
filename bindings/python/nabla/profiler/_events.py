"""The events of a profiling session, read from the core's JSON (nb_profiler_events),
and PyTorch's views of them: FunctionEvent, key_averages() and its table."""
from __future__ import annotations

import json
import math
from collections import defaultdict

from .._lib import error, ffi, lib

OP_PREFIX = "nabla::"


def _numel(shape) -> int:
    return math.prod(shape) if shape is not None else 0


def _mm_flops(a, b) -> int:
    """2*M*K*N for a (M, K) @ (K, N) product; 0 unless both are matrices."""
    if len(a) != 2 or len(b) != 2:
        return 0
    return 2 * a[0] * a[1] * b[1]


def _bmm_flops(a, b) -> int:
    if len(a) != 3 or len(b) != 3:
        return 0
    return 2 * a[0] * a[1] * a[2] * b[2]


def _matmul_flops(a, b) -> int:
    """What torch's matmul reaches: mm or bmm over the broadcast batch (0 for a vector operand: mv/dot)."""
    if len(a) < 2 or len(b) < 2:
        return 0
    batch_a, batch_b = list(a[:-2]), list(b[:-2])
    n = max(len(batch_a), len(batch_b))
    batch_a, batch_b = [1] * (n - len(batch_a)) + batch_a, [1] * (n - len(batch_b)) + batch_b
    batch = math.prod(max(x, y) for x, y in zip(batch_a, batch_b))
    return 2 * batch * a[-2] * a[-1] * b[-1]


def _linear_flops(x, w) -> int:
    """torch's linear is an addmm/mm on the input folded to (M, K): 2*M*K*N (bias not counted)."""
    if len(x) < 1 or len(w) != 2:
        return 0
    return 2 * math.prod(x[:-1]) * x[-1] * w[0]


def _conv_flops(out_or_in, w) -> int:
    """2 multiply-adds per output element per weight element it reads: 2 * numel(output) * (C_in/groups * kernel
    volume), which is torch's conv2d formula; a transposed convolution is the same product read from its input."""
    if len(w) < 3 or len(out_or_in) != len(w):
        return 0
    return 2 * math.prod(out_or_in) * math.prod(w[1:])


# torch/csrc/profiler/util.cpp computeFlops, by op name, from the input shapes and the output's shape
# (nabla's matmul and linear are one op each, so they carry the flops torch gives to the mm/addmm/bmm they
# decompose into). torch counts conv2d alone; nabla also counts conv1d, the transposed convolution and the
# convolution gradients by the same formula (each gradient costs what the forward does).
_FLOPS = {
    "mm": lambda s: _mm_flops(s[0], s[1]),
    "addmm": lambda s: _mm_flops(s[1], s[2]),
    "bmm": lambda s: _bmm_flops(s[0], s[1]),
    "baddbmm": lambda s: _bmm_flops(s[1], s[2]),
    "matmul": lambda s: _matmul_flops(s[0], s[1]),
    "linear": lambda s: _linear_flops(s[0], s[1]),
    "conv1d": lambda s, o: _conv_flops(o, s[1]),
    "conv2d": lambda s, o: _conv_flops(o, s[1]),
    "conv_transpose2d": lambda s, o: _conv_flops(s[0], s[1]),
    "conv2d_backward_input": lambda s, o: _conv_flops(s[0], s[1]),
    "conv2d_backward_weight": lambda s, o: _conv_flops(s[0], o),
    "mul": lambda s: _numel(s[0]),   # torch counts the first input's elements, not the broadcast output's
    "add": lambda s: _numel(s[0]),
}


def compute_flops(name: str, shapes, out_shape=None) -> int:
    """Floating point operations of one op call (without the "nabla::" prefix) as torch estimates them;
    the convolutions need the output's shape."""
    f = _FLOPS.get(name)
    if f is None:
        return 0
    try:
        return int(f(shapes, out_shape) if name.startswith("conv") else f(shapes))
    except (IndexError, TypeError):
        return 0


def read_session() -> dict:
    """The last stopped session as the core wrote it."""
    needed = ffi.new("int64_t[1]")
    for _ in range(3):  # another stop may replace the text between the two calls
        status = lib.nb_profiler_events(ffi.NULL, 0, needed)
        if status:
            raise error(status)
        buf = ffi.new("char[]", needed[0] + 1)
        status = lib.nb_profiler_events(buf, needed[0] + 1, needed)
        if status:
            raise error(status)
        if needed[0] < len(buf):
            return json.loads(ffi.string(buf).decode("utf-8", "replace"))
    raise RuntimeError("profiler: the session's events kept changing while being read")


class FunctionEvent:
    """One op call or user range: times in microseconds from the session's start."""

    def __init__(self, raw: dict, id: int, flops: bool = False) -> None:
        self.id = id
        kind = raw["kind"]
        self.is_user_annotation = kind == "range"
        self.name = raw["name"] if kind == "range" else OP_PREFIX + raw["name"]
        self.key = self.name
        self.thread = raw["tid"]
        self.time_range_start = raw["ts_ns"] / 1e3
        self.time_range_end = (raw["ts_ns"] + raw["dur_ns"]) / 1e3
        self.input_shapes = raw.get("shapes", [])
        self.input_dtypes = raw.get("dtypes", [])
        self.device = raw["device"]
        self.device_start = raw.get("device_ts_us")
        self.device_time_total = raw.get("device_dur_us", 0.0)
        self.stream = raw.get("stream")
        self.stack: list[str] = raw.get("stack", [])
        self.flops = compute_flops(raw["name"], self.input_shapes, raw.get("out_shape")) if flops and kind == "op" else 0
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_memory_usage = 0   # bytes allocated minus freed during the call, children included
        self._self_mem = 0
        self.count = 1

    @property
    def cpu_time_total(self) -> float:
        return self.time_range_end - self.time_range_start

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_time_total(self) -> float:
        return self.device_time_total

    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time_total={self.cpu_time_total:.3f}us input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes when grouped by them) summed."""

    def __init__(self, key: str, input_shapes) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.is_user_annotation = False
        self.stack: list[str] = []
        self.flops = 0

    def add(self, e: FunctionEvent) -> None:
        if self.count == 0:
            self.stack = e.stack
        self.count += 1
        self.flops += e.flops
        self.cpu_time_total += e.cpu_time_total
        self.self_cpu_time_total += e.self_cpu_time_total
        self.device_time_total += e.device_time_total
        self.self_device_time_total += e.self_device_time_total
        self.cpu_memory_usage += e.cpu_memory_usage
        self.self_cpu_memory_usage += e.self_cpu_memory_usage
        self.is_user_annotation = e.is_user_annotation

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def self_cpu_time(self) -> float:
        return self.self_cpu_time_total / self.count if self.count else 0.0

    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time_total:.3f}us count={self.count} input_shapes={self.input_shapes}>")


def build_events(session: dict, flops: bool = False, shapes: bool = True) -> tuple[list[FunctionEvent], list[dict]]:
    """The op and range events, each linked to its enclosing one on its thread, with the
    memory its call allocated (and, with flops, torch's estimate of their floating point
    operations; shapes=False drops the input shapes recorded only for that); and the raw
    memory events."""
    events, memory = [], []
    for raw in session["events"]:
        if raw["kind"] == "memory":
            memory.append(raw)
        else:
            e = FunctionEvent(raw, len(events), flops)
            if not shapes:
                e.input_shapes, e.input_dtypes = [], []
            events.append(e)
    by_thread = defaultdict(list)
    for e in events:
        by_thread[e.thread].append(e)
    mem_by_thread = defaultdict(list)
    for m in memory:
        if m["device"].startswith("cpu"):
            mem_by_thread[m["tid"]].append(m)
    for tid, evs in by_thread.items():
        # one sweep over the calls and the memory events of a thread, in time order: a call's parent
        # is the innermost call still open when it starts; a memory event is charged to that one too
        evs.sort(key=lambda e: (e.time_range_start, -e.time_range_end, e.id))
        mems = sorted(mem_by_thread.get(tid, ()), key=lambda m: m["ts_ns"])
        stack: list[FunctionEvent] = []
        j = 0
        for e in evs + [None]:
            start = e.time_range_start if e is not None else float("inf")
            while j < len(mems) and mems[j]["ts_ns"] / 1e3 < start:
                t = mems[j]["ts_ns"] / 1e3
                while stack and stack[-1].time_range_end < t:
                    stack.pop()
                if stack:
                    stack[-1]._self_mem += mems[j]["bytes"]
                j += 1
            if e is None:
                break
            while stack and stack[-1].time_range_end <= e.time_range_start:
                stack.pop()
            if stack and e.time_range_end <= stack[-1].time_range_end:
                e.cpu_parent = stack[-1]
                stack[-1].cpu_children.append(e)
            stack.append(e)
        for e in reversed(evs):  # children start after their parent: totals bottom-up
            e.cpu_memory_usage = e._self_mem + sum(c.cpu_memory_usage for c in e.cpu_children)
    events.sort(key=lambda e: (e.time_range_start, e.id))
    return events, memory


class EventList(list):
    """A list of FunctionEvent or FunctionEventAvg with PyTorch's table()."""

    def __init__(self, items=(), memory=False, shapes=False, flops=False) -> None:
        super().__init__(items)
        self._memory = memory
        self._shapes = shapes
        self._flops = flops

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        return _table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
                      top_level_events_only, max_src_column_width)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0) -> "EventList":
        return key_averages(self, group_by_input_shapes, self._memory, group_by_stack_n, self._flops)


def key_averages(events, group_by_input_shape: bool, memory: bool, group_by_stack_n: int = 0,
                 flops: bool = False) -> EventList:
    """torch's grouping: by key, then the input shapes, then the innermost group_by_stack_n frames;
    each average keeps the stack of its first event cut to those frames (none when 0)."""
    groups: dict = {}
    for e in events:
        key = (e.key, str(e.input_shapes)) if group_by_input_shape else (e.key,)
        if group_by_stack_n > 0:
            key += tuple(e.stack[:group_by_stack_n])
        avg = groups.get(key)
        if avg is None:
            avg = groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None)
        avg.add(e)
    for avg in groups.values():
        avg.stack = avg.stack[:group_by_stack_n] if group_by_stack_n > 0 else []
    return EventList(groups.values(), memory=memory, shapes=group_by_input_shape, flops=flops)


def _fmt_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _fmt_mem(b: int) -> str:
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(b) >= size:
            return f"{b / size:.2f} {unit}"
    return f"{b} b"


_FLOP_UNITS = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]


def _flops_scale(smallest: int) -> tuple[float, str]:
    """torch's auto_scale_flops: the unit of the smallest positive count."""
    log = max(0.0, min(math.log10(smallest) / 3, float(len(_FLOP_UNITS) - 1)))
    return pow(10, math.floor(log) * -3.0), _FLOP_UNITS[int(log)]


def _trim_path(path: str, width: int) -> str:
    """torch's trim_path: the tail of a long source location, marked with '...'."""
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


_SORT_KEYS = {"flops", "cpu_time_total", "self_cpu_time_total", "cpu_time", "self_cpu_time", "count",
              "cpu_memory_usage", "self_cpu_memory_usage", "device_time_total", "self_device_time_total",
              "cuda_time_total", "self_cuda_time_total"}


def _table(events, sort_by, row_limit, name_width, shapes_width, header, top_level_only, src_width=75) -> str:
    rows = list(events)
    if top_level_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        if sort_by not in _SORT_KEYS:
            raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    total_self = sum(e.self_cpu_time_total for e in events) or 1.0
    device = any(e.device_time_total for e in events)
    memory = getattr(events, "_memory", False)
    shapes = getattr(events, "_shapes", False)
    cols = [("Name", None), ("Self CPU %", lambda e: f"{100 * e.self_cpu_time_total / total_self:.2f}%"),
            ("Self CPU", lambda e: _fmt_time(e.self_cpu_time_total)),
            ("CPU total %", lambda e: f"{100 * e.cpu_time_total / total_self:.2f}%"),
            ("CPU total", lambda e: _fmt_time(e.cpu_time_total)),
            ("CPU time avg", lambda e: _fmt_time(e.cpu_time_total / max(e.count, 1)))]
    if device:
        total_dev = sum(e.self_device_time_total for e in events) or 1.0
        cols += [("Self CUDA", lambda e: _fmt_time(e.self_device_time_total)),
                 ("Self CUDA %", lambda e: f"{100 * e.self_device_time_total / total_dev:.2f}%"),
                 ("CUDA total", lambda e: _fmt_time(e.device_time_total)),
                 ("CUDA time avg", lambda e: _fmt_time(e.device_time_total / max(e.count, 1)))]
    if memory:
        cols += [("CPU Mem", lambda e: _fmt_mem(e.cpu_memory_usage)),
                 ("Self CPU Mem", lambda e: _fmt_mem(e.self_cpu_memory_usage))]
    cols.append(("# of Calls", lambda e: str(e.count)))
    left = {0}  # columns aligned left: the name, the shapes, the source location
    if shapes:
        left.add(len(cols))
        cols.append(("Input Shapes", lambda e: str(e.input_shapes)[:shapes_width]))
    stacks = [e.stack for e in events if getattr(e, "stack", None)]
    src_w = min(max(len(s) for st in stacks for s in st) + 4, src_width) if stacks else 0
    if stacks:  # one frame per line under the event's row, then a blank line, as torch prints them
        left.add(len(cols))
        cols.append(("Source Location", lambda e: _trim_path(e.stack[0], src_w) if e.stack else ""))
    flops = [e.flops for e in events if getattr(e, "flops", 0) > 0] if getattr(events, "_flops", False) else []
    if flops:
        scale, unit = _flops_scale(min(flops))
        cols.append((f"Total {unit}", lambda e: f"{e.flops * scale:8.3f}" if e.flops > 0 else "--"))
    name_w = min(max([len("Name")] + [len(e.key) for e in rows]), name_width)
    cells = [[(e.key if len(e.key) <= name_w else e.key[:name_w - 3] + "...")] + [f(e) for _, f in cols[1:]]
             for e in rows]
    widths = [name_w] + [max([len(c[0])] + [len(r[i + 1]) for r in cells]) for i, c in enumerate(cols[1:])]
    if stacks:
        i = [c for c, _ in cols].index("Source Location")
        widths[i] = max(widths[i], src_w)
    widths = [w + 2 for w in widths[:-1]] + [widths[-1]]
    line = "  ".join("-" * w for w in widths)

    def fmt(values):
        return "  ".join(v.ljust(w) if i in left else v.rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths)))

    out = []
    if header:
        out += ["=" * len(line), header]
    out += [line, fmt([c for c, _ in cols]), line]
    if stacks:
        src_col = [c for c, _ in cols].index("Source Location")
        for e, r in zip(rows, cells):
            out.append(fmt(r))
            for frame in e.stack[1:]:
                out.append(fmt([""] * src_col + [_trim_path(frame, src_w)] + [""] * (len(cols) - src_col - 1)))
            out.append("")
    else:
        out += [fmt(r) for r in cells]
    out += [line, f"Self CPU time total: {_fmt_time(sum(e.self_cpu_time_total for e in events))}"]
    if device:
        out.append(f"Self CUDA time total: {_fmt_time(sum(e.self_device_time_total for e in events))}")
    return "\n".join(out) + "\n"
