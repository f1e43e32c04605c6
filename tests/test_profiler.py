"""nabla.profiler: op calls, user ranges and allocator events recorded in the core, PyTorch's
key_averages table, schedules, and a Chrome trace that follows the Trace Event Format."""
from __future__ import annotations

import json
import threading

import pytest

import nabla as nb
from nabla._lib import lib
from nabla.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

torch = pytest.importorskip("torch")


def names(prof) -> list[str]:
    return [e.name for e in prof.events()]


def test_op_counts_match_the_calls_and_torch():
    a, b = nb.randn(4, 3), nb.randn(4, 3)
    ta, tb = torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy())
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(5):
            c = a + b
        for _ in range(3):
            c = a * b
        c.sum()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as tprof:
        for _ in range(5):
            tc = ta + tb
        for _ in range(3):
            tc = ta * tb
        tc.sum()
    counts = {e.key: e.count for e in prof.key_averages()}
    tcounts = {e.key: e.count for e in tprof.key_averages()}
    for op in ("add", "mul", "sum"):
        assert counts[f"nabla::{op}"] == tcounts[f"aten::{op}"], op
    assert counts == {"nabla::add": 5, "nabla::mul": 3, "nabla::sum": 1}


def test_training_step_counts_every_op_and_backward_node():
    nb.manual_seed(0)
    model = nb.nn.Sequential(nb.nn.Linear(6, 8), nb.nn.ReLU(), nb.nn.Linear(8, 2))
    opt = nb.optim.SGD(model.parameters(), lr=0.1)
    x, y = nb.randn(5, 6), nb.randn(5, 2)
    with profile(record_shapes=True) as prof:
        with record_function("step"):
            opt.zero_grad()
            loss = nb.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["step"] == 1
    assert counts["nabla::linear"] == 2 and counts["nabla::relu"] == 1 and counts["nabla::mse_loss"] == 1
    nodes = {k: v for k, v in counts.items() if k.startswith("autograd::engine::evaluate_function: ")}
    assert nodes["autograd::engine::evaluate_function: LinearBackward0"] == 2
    assert nodes["autograd::engine::evaluate_function: AccumulateGrad"] == 4  # 2 weights + 2 biases
    # every op of the block nests in the user range, and self times add up to the range's total
    evs = prof.events()
    step = next(e for e in evs if e.name == "step")
    top = [e for e in evs if e.cpu_parent is None]
    assert top == [step]
    assert sum(e.self_cpu_time_total for e in evs) == pytest.approx(step.cpu_time_total, rel=1e-9)
    lin = next(e for e in evs if e.name == "nabla::linear")
    assert lin.input_shapes == [[5, 6], [8, 6], [8]] and lin.input_dtypes == ["float32"] * 3


def test_memory_events_and_usage():
    with profile(profile_memory=True) as prof:
        t = nb.zeros(1000)  # not an op of the dispatch table: its allocation is on no call
        u = t + 1           # add allocates 4000 bytes for its result
        del t, u
    session = prof._session
    mem = [e for e in session["events"] if e["kind"] == "memory"]
    sizes = [e["bytes"] for e in mem]
    assert sizes.count(4000) == 2 and sizes.count(-4000) == 2
    add = next(e for e in prof.events() if e.name == "nabla::add")
    assert add.cpu_memory_usage >= 4000
    trace = _trace(prof)
    inst = [e for e in trace["traceEvents"] if e["name"] == "[memory]"]
    assert inst[-1]["args"]["Total Allocated"] == sum(sizes)


def test_threads_get_their_own_track():
    a = nb.ones(8)

    def work():
        for _ in range(4):
            a.mul(2)

    with profile() as prof:
        th = threading.Thread(target=work)
        th.start()
        th.join()
        a.add(1)
    evs = prof.events()
    main = {e.thread for e in evs if e.name == "nabla::add"}
    other = {e.thread for e in evs if e.name == "nabla::mul"}
    assert len(main) == 1 and len(other) == 1 and main != other
    assert sum(e.name == "nabla::mul" for e in evs) == 4


def test_off_records_nothing_and_costs_no_state():
    assert lib.nb_profiler_enabled() == 0
    with profile() as prof:
        pass
    nb.ones(3) + 1  # after the session: not recorded
    assert names(prof) == []
    with record_function("outside"):  # no session: free, balanced
        nb.ones(2) * 2


def test_table_sorting_row_limit_and_shape_groups():
    a = nb.randn(64, 64)
    with profile(record_shapes=True) as prof:
        for _ in range(3):
            a @ a
        a.exp()
        nb.randn(2, 2) @ nb.randn(2, 2)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
    lines = table.splitlines()
    assert "Self CPU %" in lines[1] and "# of Calls" in lines[1]
    assert len(lines) == 3 + 2 + 2  # rule, header, rule, 2 rows, rule, total
    avgs = prof.key_averages()
    ordered = sorted(avgs, key=lambda e: e.self_cpu_time_total, reverse=True)
    assert lines[3].startswith(ordered[0].key)
    grouped = prof.key_averages(group_by_input_shape=True)
    mm = sorted((e.input_shapes, e.count) for e in grouped if e.key == "nabla::matmul")
    assert mm == [([[2, 2], [2, 2]], 1), ([[64, 64], [64, 64]], 3)]
    assert "Input Shapes" in grouped.table(row_limit=3)
    with pytest.raises(AttributeError, match="no_such_key"):
        avgs.table(sort_by="no_such_key")


def test_schedule_matches_torch_and_saves_once_per_cycle():
    ours = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    theirs = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [ours(i).name for i in range(14)] == [theirs(i).name for i in range(14)]
    saved = []

    def ready(p):
        saved.append(sorted(e.name for e in p.events()))

    a = nb.ones(2)
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1), on_trace_ready=ready) as prof:
        for step in range(6):
            with record_function(f"step{step}"):
                a + a
            prof.step()
    assert saved == [["nabla::add", "nabla::add", "step2", "step3"]]
    assert ProfilerAction.RECORD_AND_SAVE == ours(4)


def test_errors_are_clear():
    with profile():
        with pytest.raises(RuntimeError, match="already running"):
            with profile():
                pass
    assert lib.nb_profiler_stop() != 0
    p = profile()
    with pytest.raises(RuntimeError, match="not running"):
        p.stop()
    with pytest.raises(RuntimeError, match="no results"):
        p.key_averages()
    with pytest.raises(RuntimeError, match="no range is open"):
        from nabla._lib import error
        status = lib.nb_profiler_range_pop()
        raise error(status)
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profile(activities=["cpu"])
    with pytest.raises(ValueError):
        schedule(wait=0, warmup=0, active=0)


def test_autograd_profiler_alias():
    from nabla.autograd.profiler import profile as legacy
    a = nb.ones(3)
    with legacy(record_shapes=True) as prof:
        a * a
    assert [e.key for e in prof.key_averages()] == ["nabla::mul"]
    with legacy(enabled=False) as off:
        nb.ones(3) * 2
    assert off._session is None and lib.nb_profiler_enabled() == 0


# ---- the Chrome trace against the Trace Event Format ----

def _trace(prof, tmp_path=None) -> dict:
    import tempfile, os
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            return json.load(f)


def check_trace_event_format(trace: dict) -> None:
    """The JSON Object Format of the Trace Event Format: traceEvents, each with a phase and
    the fields that phase requires (times in microseconds)."""
    assert isinstance(trace, dict) and isinstance(trace["traceEvents"], list)
    assert trace.get("displayTimeUnit", "ms") in ("ms", "ns")
    flows = {}
    for e in trace["traceEvents"]:
        ph = e["ph"]
        assert isinstance(e["name"], str) and isinstance(e["pid"], int) and isinstance(e["tid"], int), e
        assert ph in {"X", "B", "E", "i", "I", "M", "s", "t", "f", "C"}, e
        if ph != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if ph == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
            assert isinstance(e.get("cat", ""), str) and isinstance(e.get("args", {}), dict)
        if ph in ("i", "I"):
            assert e.get("s", "t") in ("g", "p", "t"), e
        if ph == "M":
            assert e["name"] in {"process_name", "thread_name", "process_sort_index", "thread_sort_index",
                                 "process_labels"}, e
            assert "name" in e["args"] or "sort_index" in e["args"] or "labels" in e["args"]
        if ph in ("s", "f"):
            flows.setdefault(e["id"], []).append(ph)
    for phases in flows.values():
        assert sorted(phases) == ["f", "s"]


def test_chrome_trace_follows_the_trace_event_format(tmp_path):
    a = nb.randn(16, 16, requires_grad=True)
    with profile(record_shapes=True, profile_memory=True) as prof:
        with record_function("forward"):
            y = (a @ a).relu().sum()
        y.backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    check_trace_event_format(trace)
    evs = trace["traceEvents"]
    ops = [e for e in evs if e.get("cat") == "cpu_op"]
    assert {e["name"] for e in ops} >= {"nabla::matmul", "nabla::relu", "nabla::sum"}
    mm = next(e for e in ops if e["name"] == "nabla::matmul")
    assert mm["args"]["Input Dims"] == [[16, 16], [16, 16]] and mm["args"]["Input type"] == ["float32"] * 2
    fwd = next(e for e in evs if e["name"] == "forward")
    assert fwd["cat"] == "user_annotation" and fwd["ts"] <= mm["ts"] and mm["ts"] + mm["dur"] <= fwd["ts"] + fwd["dur"]
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in evs)


def test_trace_format_checker_notices_bad_events():
    good = {"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]}
    check_trace_event_format(good)
    for bad in ({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0},
                {"ph": "Q", "name": "a", "pid": 1, "tid": 1, "ts": 0},
                {"ph": "i", "s": "z", "name": "a", "pid": 1, "tid": 1, "ts": 0},
                {"ph": "s", "id": 3, "name": "a", "pid": 1, "tid": 1, "ts": 0}):
        with pytest.raises((AssertionError, KeyError)):
            check_trace_event_format({"traceEvents": [bad]})


def test_device_ops_get_a_stream_track_and_flow_arrows(device):
    a = nb.randn(32, 32, device=device)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=acts, profile_memory=True) as prof:
        for _ in range(3):
            a = (a @ a).tanh()
        a.sum().item()
    trace = _trace(prof)
    check_trace_event_format(trace)
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    evs = prof.events()
    if device == "cpu":
        assert kernels == [] and all(e.device_time_total == 0 for e in evs)
        return
    assert {e["name"] for e in kernels} >= {"nabla::matmul", "nabla::tanh"}
    assert all(e["dur"] >= 0 for e in kernels)
    mm = [e for e in evs if e.name == "nabla::matmul"]
    assert len(mm) == 3 and all(e.device == "cuda:0" and e.device_start is not None for e in mm)
    flows = [e for e in trace["traceEvents"] if e["ph"] in ("s", "f")]
    assert len(flows) == 2 * len(kernels)
    assert "Self CUDA" in prof.key_averages().table()
