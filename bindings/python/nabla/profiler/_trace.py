"""A profiling session as a Chrome trace (the Trace Event Format that chrome://tracing and
Perfetto open): a CPU track per thread, a track per CUDA stream, flow arrows from each
op's launch to its device work, and the allocator's events as instants with the running
total per device."""
from __future__ import annotations

import json
import os
from collections import defaultdict

from ._events import OP_PREFIX

_GPU_PID = 1 << 24  # the GPU's track group: a pid no host process has, plus the device index


def chrome_trace(session: dict) -> dict:
    pid = os.getpid()
    out = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python (CPU)"}}]
    threads, streams = set(), {}
    totals: dict = defaultdict(int)
    flow = 0
    for raw in sorted(session["events"], key=lambda r: r["ts_ns"]):
        tid, ts = raw["tid"], raw["ts_ns"] / 1e3
        threads.add(tid)
        if raw["kind"] == "memory":
            totals[raw["device"]] += raw["bytes"]
            dtype, _, index = raw["device"].partition(":")
            out.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid, "tid": tid,
                        "ts": ts, "args": {"Addr": raw["addr"], "Bytes": raw["bytes"],
                                           "Total Allocated": totals[raw["device"]], "Device Type": dtype,
                                           "Device Id": int(index)}})
            continue
        op = raw["kind"] == "op"
        name = OP_PREFIX + raw["name"] if op else raw["name"]
        args = {}
        if "shapes" in raw:
            args = {"Input Dims": raw["shapes"], "Input type": raw["dtypes"]}
        if "stack" in raw:
            args["stack"] = raw["stack"]
        ev = {"ph": "X", "cat": "cpu_op" if op else "user_annotation", "name": name, "pid": pid, "tid": tid,
              "ts": ts, "dur": raw["dur_ns"] / 1e3, "args": args}
        out.append(ev)
        if "device_ts_us" in raw:
            dev = raw["device"]
            track = streams.setdefault((dev, raw["stream"]), len(streams) + 1)
            flow += 1
            dev_pid = _GPU_PID + int(dev.partition(":")[2])
            out.append({"ph": "X", "cat": "kernel", "name": name, "pid": dev_pid, "tid": track,
                        "ts": raw["device_ts_us"], "dur": raw["device_dur_us"], "args": {"correlation": flow}})
            out.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": flow, "pid": pid, "tid": tid, "ts": ts})
            out.append({"ph": "f", "bp": "e", "cat": "ac2g", "name": "ac2g", "id": flow, "pid": dev_pid,
                        "tid": track, "ts": raw["device_ts_us"]})
    for tid in sorted(threads):
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": f"thread {tid}"}})
    for (dev, _), track in streams.items():
        dev_pid = _GPU_PID + int(dev.partition(":")[2])
        out.append({"ph": "M", "name": "process_name", "pid": dev_pid, "tid": 0, "args": {"name": f"{dev} (GPU)"}})
        out.append({"ph": "M", "name": "thread_name", "pid": dev_pid, "tid": track,
                    "args": {"name": f"stream {track}"}})
    return {"traceEvents": out, "displayTimeUnit": "ms",
            "otherData": {"producer": "nabla.profiler", "duration_us": session.get("duration_ns", 0) / 1e3}}


def write_chrome_trace(session: dict, path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(chrome_trace(session), f)
