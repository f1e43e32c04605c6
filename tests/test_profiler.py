"""nabla.profiler: op calls, user ranges and allocator events recorded in the core, PyTorch's
key_averages table, schedules, a Chrome trace that follows the Trace Event Format, and
with_stack / with_flops compared with torch.profiler on the same programs."""
from __future__ import annotations

import json
import os
import re
import sys
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


# ---- with_stack and with_flops against torch.profiler ----

def _nb_mm(a, b):
    line = sys._getframe().f_lineno + 1
    return nb.mm(a, b), line


def _nb_mm_other(a, b):
    return nb.mm(a, b)


def _torch_mm(a, b):
    return torch.mm(a, b)


def _torch_mm_other(a, b):
    return torch.mm(a, b)


def _torch_stack_profile(**kw):
    from torch.profiler import _ExperimentalConfig
    # torch 2.13 fills FunctionEvent.stack only with the verbose config (else the frames are separate
    # python_function events); its first entry is the builtin the C++ op was reached through
    return torch.profiler.profile(with_stack=True, experimental_config=_ExperimentalConfig(verbose=True), **kw)


def _frames(stack) -> list[str]:
    """A stack's Python frames without their line numbers: "file: function"."""
    return [re.sub(r"\(\d+\): ", ": ", s) for s in stack if not s.startswith("<built-in")]


def test_stack_points_at_the_callers_line():
    a, b = nb.randn(4, 5), nb.randn(5, 3)
    with profile(with_stack=True) as prof:
        call_line = sys._getframe().f_lineno + 1
        _, mm_line = _nb_mm(a, b)
    with _torch_stack_profile() as tprof:
        _torch_mm(torch.randn(4, 5), torch.randn(5, 3))
    mm = [e for e in prof.events() if e.name == "nabla::mm"]
    assert len(mm) == 1
    stack = mm[0].stack
    fname = torch.profiler.python_tracer._prefix_regex()
    fname = next((__file__[len(p):] for p in fname if __file__.startswith(p)), __file__)
    # innermost first, torch's "file(line): function", no frame of nabla itself
    assert stack[0] == f"{fname}({mm_line}): _nb_mm"
    assert stack[1] == f"{fname}({call_line}): test_stack_points_at_the_callers_line"
    assert all(re.fullmatch(r".+\(\d+\): .+", s) for s in stack)
    assert not any("nabla" + os.sep in s.split("(")[0] for s in stack)
    tmm = [e for e in tprof.events() if e.name == "aten::mm"]
    assert len(tmm) == 1
    # torch's python frames of the same call chain, file for file and function for function
    tframes = _frames(tmm[0].stack)
    assert _frames(stack)[:2] == [f"{fname}: _nb_mm", f"{fname}: test_stack_points_at_the_callers_line"]
    assert tframes[:2] == [f"{fname}: _torch_mm", f"{fname}: test_stack_points_at_the_callers_line"]
    assert _frames(stack)[2:] == tframes[2:]  # pytest's frames above the test: the same ones
    # ops the user calls directly get the test's own line innermost
    with profile(with_stack=True) as prof:
        line = sys._getframe().f_lineno + 1
        a + b.sum()
    assert [e.stack[0] for e in prof.events()] == [f"{fname}({line}): test_stack_points_at_the_callers_line"] * 2
    trace = _trace(prof)
    check_trace_event_format(trace)
    ops = [e for e in trace["traceEvents"] if e.get("cat") == "cpu_op"]
    assert ops and all(e["args"]["stack"][0].endswith("test_stack_points_at_the_callers_line") for e in ops)


def test_group_by_stack_n_separates_call_sites_as_torch_does():
    a, b = nb.randn(4, 5), nb.randn(5, 3)
    ta, tb = torch.randn(4, 5), torch.randn(5, 3)
    with profile(with_stack=True) as prof:
        for _ in range(2):
            _nb_mm(a, b)
        _nb_mm_other(a, b)
    with _torch_stack_profile() as tprof:
        for _ in range(2):
            _torch_mm(ta, tb)
        _torch_mm_other(ta, tb)
    assert [e.count for e in prof.key_averages() if e.key == "nabla::mm"] == [3]
    assert all(e.stack == [] for e in prof.key_averages())
    grouped = [e for e in prof.key_averages(group_by_stack_n=1) if e.key == "nabla::mm"]
    tgrouped = [e for e in tprof.key_averages(group_by_stack_n=2) if e.key == "aten::mm"]  # past the builtin
    assert sorted(e.count for e in grouped) == sorted(e.count for e in tgrouped) == [1, 2]
    assert {e.count: [f.split(": ")[1] for f in e.stack] for e in grouped} == {2: ["_nb_mm"], 1: ["_nb_mm_other"]}
    assert {e.count: [f.split(": ")[1] for f in _frames(e.stack)] for e in tgrouped} == \
        {2: ["_torch_mm"], 1: ["_torch_mm_other"]}
    # the table's Source Location: the first frame on the event's row, the others under it, a blank line after
    avgs = prof.key_averages(group_by_stack_n=2)
    table = avgs.table(sort_by="count", row_limit=2, max_src_column_width=200)
    ttable = tprof.key_averages(group_by_stack_n=3).table(sort_by="count", row_limit=2)
    assert "Source Location" in table.splitlines()[1] and "Source Location" in ttable.splitlines()[1]
    lines = table.splitlines()
    top = avgs[[e.count for e in avgs].index(max(e.count for e in avgs))]
    assert lines[3].startswith(top.key) and lines[3].rstrip().endswith(top.stack[0])
    assert lines[4].strip() == top.stack[1] and lines[5].strip() == ""
    narrow = avgs.table(sort_by="count", row_limit=2, max_src_column_width=12)
    assert narrow.splitlines()[3].rstrip().endswith("..." + top.stack[0][-9:])  # the tail, as torch's trim_path
    assert "Source Location" not in prof.key_averages().table()


FLOP_CASES = [
    ("mm", lambda m: m.mm(m.randn(7, 5), m.randn(5, 3))),
    ("matmul", lambda m: m.matmul(m.randn(7, 5), m.randn(5, 3))),
    ("matmul", lambda m: m.matmul(m.randn(2, 7, 5), m.randn(5, 3))),
    ("matmul", lambda m: m.matmul(m.randn(2, 7, 5), m.randn(2, 5, 3))),
    ("linear", lambda m: m.nn.functional.linear(m.randn(7, 5), m.randn(3, 5), m.randn(3))),
    ("linear", lambda m: m.nn.functional.linear(m.randn(4, 7, 5), m.randn(3, 5))),
    ("addmm", lambda m: m.addmm(m.randn(3), m.randn(7, 5), m.randn(5, 3))),
    ("bmm", lambda m: m.bmm(m.randn(2, 7, 5), m.randn(2, 5, 3))),
    ("baddbmm", lambda m: m.baddbmm(m.randn(2, 7, 3), m.randn(2, 7, 5), m.randn(2, 5, 3))),
    ("add", lambda m: m.add(m.randn(4, 1), m.randn(1, 6))),
    ("add", lambda m: m.randn(4, 6) + 2),
    ("mul", lambda m: m.mul(m.randn(1, 6), m.randn(4, 1))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 3, 9, 8), m.randn(4, 3, 3, 2))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 3, 16, 15), m.randn(6, 3, 3, 3), m.randn(6),
                                                stride=2, padding=1)),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(1, 4, 12, 12), m.randn(6, 2, 3, 3), stride=(1, 2),
                                                padding=(2, 0), dilation=2, groups=2)),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(3, 8, 7, 7), m.randn(8, 1, 5, 5), padding=2,
                                                groups=8)),
]


@pytest.mark.parametrize("op,fn", FLOP_CASES, ids=[f"{op}{i}" for i, (op, _) in enumerate(FLOP_CASES)])
def test_flops_equal_torchs(op, fn):
    with profile(with_flops=True) as prof:
        fn(nb)
    with torch.profiler.profile(with_flops=True) as tprof:
        fn(torch)
    flops = [e.flops for e in prof.events() if e.flops]
    tflops = [e.flops for e in tprof.events() if e.flops]
    assert len(tflops) == 1 and flops == tflops, (flops, tflops)
    assert [e.name for e in prof.events() if e.flops] == [f"nabla::{op}"]
    avg = {e.key: e.flops for e in prof.key_averages()}
    assert avg[f"nabla::{op}"] == tflops[0]
    assert prof.events()[0].input_shapes == []  # recorded for the count, shown only with record_shapes


def _torch_conv_flops(fn, *args, **kw) -> int:
    """2 * output elements * C_in/groups * kernel volume, from torch's own output."""
    out = fn(*args, **kw)
    weight = args[1]
    per_output = weight.shape[1] * weight[0, 0].numel()
    return 2 * out.numel() * per_output


def test_flops_of_the_convolutions_torch_does_not_count():
    """conv1d, conv_transpose2d and the convolution gradients: the conv2d formula of torch."""
    F, tF = nb.nn.functional, torch.nn.functional
    x1, w1 = torch.randn(2, 4, 20), torch.randn(6, 2, 5)
    x, w = torch.randn(2, 3, 10, 9, requires_grad=True), torch.randn(4, 3, 3, 3, requires_grad=True)
    xt, wt = torch.randn(2, 4, 5, 6), torch.randn(4, 3, 3, 2)
    with profile(with_flops=True) as prof:
        F.conv1d(nb.tensor(x1.numpy()), nb.tensor(w1.numpy()), padding=2, groups=2)
        F.conv_transpose2d(nb.tensor(xt.numpy()), nb.tensor(wt.numpy()), stride=2, padding=1)
        nx, nw = nb.tensor(x.detach().numpy(), requires_grad=True), nb.tensor(w.detach().numpy(), requires_grad=True)
        F.conv2d(nx, nw, stride=(2, 1)).sum().backward()
    flops = {e.name[len("nabla::"):]: e.flops for e in prof.events() if e.flops}
    forward = _torch_conv_flops(tF.conv2d, x, w, stride=(2, 1))
    assert flops == {"conv1d": _torch_conv_flops(tF.conv1d, x1, w1, padding=2, groups=2),
                     "conv_transpose2d": 2 * xt.numel() * wt[0].numel(),
                     "conv2d": forward, "conv2d_backward_input": forward, "conv2d_backward_weight": forward}
    with profile(with_flops=True) as prof:  # a failed call records no output and counts nothing
        with pytest.raises(RuntimeError):
            F.conv2d(nb.randn(1, 3, 4, 4), nb.randn(2, 5, 3, 3))
    assert all(e.flops == 0 for e in prof.events())


def test_flops_column_and_unit_as_torch_prints_them():
    for n in (4, 100):  # 128 FLOPs, then 2 MFLOPs: the unit follows the smallest count
        a, b = nb.randn(n, n), nb.randn(n, n)
        with profile(with_flops=True) as prof:
            for _ in range(3):
                nb.mm(a, b)
        with torch.profiler.profile(with_flops=True) as tprof:
            for _ in range(3):
                torch.mm(torch.randn(n, n), torch.randn(n, n))
        [avg] = [e for e in prof.key_averages() if e.key == "nabla::mm"]
        [tavg] = [e for e in tprof.key_averages() if e.key == "aten::mm"]
        assert avg.flops == tavg.flops == 3 * 2 * n ** 3
        table, ttable = prof.key_averages().table(), tprof.key_averages().table()
        theader = ttable.splitlines()[1].split("  ")[-2].strip()
        assert theader == ("Total FLOPs" if n == 4 else "Total MFLOPs")
        assert table.splitlines()[1].rstrip().endswith(theader)
        row = next(line for line in table.splitlines() if line.startswith("nabla::mm"))
        trow = next(line for line in ttable.splitlines() if line.strip().startswith("aten::mm"))
        assert row.split()[-1] == trow.split()[-1]  # "384.000", "6.000"
    with profile() as prof:  # without with_flops: no counts, no column
        nb.mm(a, b)
    assert all(e.flops == 0 for e in prof.events())
    assert "FLOPs" not in prof.key_averages().table()


def test_stack_off_records_no_stacks():
    a = nb.randn(3, 3)
    with profile(record_shapes=True) as prof:
        assert lib.nb_profiler_enabled() & lib.NB_PROFILE_STACK == 0
        _nb_mm(a, a)
    assert prof._session["events"] and all("stack" not in raw for raw in prof._session["events"])
    assert all(e.stack == [] for e in prof.events())
    assert all(e.stack == [] for e in prof.key_averages(group_by_stack_n=3))
    with profile(with_stack=True) as prof:
        assert lib.nb_profiler_enabled() & lib.NB_PROFILE_STACK
        with record_function("user range"):
            _nb_mm(a, a)
    [rng] = [e for e in prof.events() if e.name == "user range"]
    assert rng.stack == []  # user ranges carry none
    assert [e.stack[0].split(": ")[1] for e in prof.events() if e.name == "nabla::mm"] == ["_nb_mm"]


# ---- with_modules: module calls as ranges ----

def _module_names(events, prefix="nn.Module: ") -> list[str]:
    return [e.name for e in events if e.name.startswith(prefix)]


def _mlp(m):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Linear(4, 8), m.nn.ReLU(), m.nn.Linear(8, 8), m.nn.ReLU(), m.nn.Linear(8, 2))


def test_module_ranges_are_named_as_torch_names_them():
    net, tnet = _mlp(nb), _mlp(torch)
    with profile(with_modules=True) as prof:
        for _ in range(2):
            net(nb.randn(3, 4))
    with torch.profiler.profile(with_stack=True) as tprof:  # torch's eager module events come with its Python tracer
        for _ in range(2):
            tnet(torch.randn(3, 4))
    assert _module_names(prof.events()) == _module_names(tprof.events())
    [seq] = [e for e in prof.events() if e.name == "nn.Module: Sequential_0"][:1]
    assert [c.name for c in seq.cpu_children] == ["nn.Module: Linear_0", "nn.Module: ReLU_0", "nn.Module: Linear_1",
                                                 "nn.Module: ReLU_1", "nn.Module: Linear_2"]
    [lin] = [e for e in prof.events() if e.name == "nn.Module: Linear_1"][:1]
    assert "nabla::linear" in [c.name for c in lin.cpu_children]
    with profile() as prof:  # off unless asked, and the hooks are gone after a session
        net(nb.randn(3, 4))
    assert _module_names(prof.events()) == []
    from nabla.nn.modules import module
    assert not module._global_any


def test_module_ranges_close_when_forward_raises():
    class Boom(nb.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    net = nb.nn.Sequential(nb.nn.Linear(2, 2), Boom())
    with profile(with_modules=True) as prof:
        with pytest.raises(ValueError):
            net(nb.randn(1, 2))
        with record_function("after"):
            nb.randn(1)
    evs = prof.events()
    assert _module_names(evs) == ["nn.Module: Sequential_0", "nn.Module: Linear_0", "nn.Module: Boom_0"]
    [after] = [e for e in evs if e.name == "after"]
    assert after.cpu_parent is None  # every module range closed before it
