"""The events of a profiling session, read from the core's JSON (nb_profiler_events),
and PyTorch's views of them: FunctionEvent, key_averages() and its table."""
from __future__ import annotations

import json
from collections import defaultdict

from .._lib import error, ffi, lib

OP_PREFIX = "nabla::"


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

    def __init__(self, raw: dict, id: int) -> None:
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

    def add(self, e: FunctionEvent) -> None:
        self.count += 1
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


def build_events(session: dict) -> tuple[list[FunctionEvent], list[dict]]:
    """The op and range events, each linked to its enclosing one on its thread, with the
    memory its call allocated; and the raw memory events."""
    events, memory = [], []
    for raw in session["events"]:
        if raw["kind"] == "memory":
            memory.append(raw)
        else:
            events.append(FunctionEvent(raw, len(events)))
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

    def __init__(self, items=(), memory=False, shapes=False) -> None:
        super().__init__(items)
        self._memory = memory
        self._shapes = shapes

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        return _table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
                      top_level_events_only)

    def key_averages(self, group_by_input_shapes: bool = False) -> "EventList":
        return key_averages(self, group_by_input_shapes, self._memory)


def key_averages(events, group_by_input_shape: bool, memory: bool) -> EventList:
    groups: dict = {}
    for e in events:
        key = (e.key, str(e.input_shapes)) if group_by_input_shape else (e.key,)
        avg = groups.get(key)
        if avg is None:
            avg = groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None)
        avg.add(e)
    return EventList(groups.values(), memory=memory, shapes=group_by_input_shape)


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


_SORT_KEYS = {"cpu_time_total", "self_cpu_time_total", "cpu_time", "self_cpu_time", "count",
              "cpu_memory_usage", "self_cpu_memory_usage", "device_time_total", "self_device_time_total",
              "cuda_time_total", "self_cuda_time_total"}


def _table(events, sort_by, row_limit, name_width, shapes_width, header, top_level_only) -> str:
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
    if shapes:
        cols.append(("Input Shapes", lambda e: str(e.input_shapes)[:shapes_width]))
    name_w = min(max([len("Name")] + [len(e.key) for e in rows]), name_width)
    cells = [[(e.key if len(e.key) <= name_w else e.key[:name_w - 3] + "...")] + [f(e) for _, f in cols[1:]]
             for e in rows]
    widths = [name_w] + [max([len(c[0])] + [len(r[i + 1]) for r in cells]) for i, c in enumerate(cols[1:])]
    widths = [w + 2 for w in widths[:-1]] + [widths[-1]]
    line = "  ".join("-" * w for w in widths)

    def fmt(values):
        return "  ".join(v.ljust(w) if i == 0 or (shapes and i == len(values) - 1) else v.rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths)))

    out = []
    if header:
        out += ["=" * len(line), header]
    out += [line, fmt([c for c, _ in cols]), line]
    out += [fmt(r) for r in cells]
    out += [line, f"Self CPU time total: {_fmt_time(sum(e.self_cpu_time_total for e in events))}"]
    if device:
        out.append(f"Self CUDA time total: {_fmt_time(sum(e.self_device_time_total for e in events))}")
    return "\n".join(out) + "\n"
