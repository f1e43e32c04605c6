"""nabla.profiler: torch.profiler over the core's profiler (nb_profiler_*).

The core records every op call (its name, host start and end, the thread and, when
asked, input shapes and dtypes; on CUDA its device time through events on the
stream), storage allocations and frees, and user ranges (record_function). This
module turns a session into PyTorch's views: key_averages().table(...) and a Chrome
trace.

with_stack=True records, for each op, the Python call stack of the code that called
it (FunctionEvent.stack: "file(line): function" lines, innermost first, the
frontend's own frames left out; the line is the frame's current line). The core asks
a stack source for it at each op's start (nb_profiler_set_stack_source, _stack.py);
key_averages(group_by_stack_n=N) groups by the innermost N frames and the table
gets torch's "Source Location" column. User ranges carry no stack.

with_flops=True records input shapes and estimates each op's floating point
operations as torch does (FunctionEvent.flops, FunctionEventAvg.flops; the table's
"Total FLOPs"/"Total MFLOPs"/... column): mm/matmul/addmm/linear 2*M*K*N,
bmm/baddbmm 2*B*M*K*N, mul/add the first input's element count, conv2d (and, beyond
torch, conv1d, conv_transpose2d and the convolution gradients) 2 * output elements *
C_in/groups * kernel volume, from the output's shape the core records with the inputs'.

with_modules=True (and with_stack=True, as torch's Python tracer does) records every
nn.Module call as a range "nn.Module: Linear_0" around the ops it runs (_modules.py).
"""
from __future__ import annotations

import enum
import functools

from .._lib import error, lib
from . import _stack
from ._modules import ModuleRanges
from ._events import EventList, build_events, key_averages as _key_averages, read_session
from ._trace import write_chrome_trace

__all__ = ["profile", "ProfilerActivity", "ProfilerAction", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 2


def supported_activities() -> set:
    from .. import cuda
    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if cuda.is_available() else set())


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0):
    """PyTorch's step schedule: skip_first steps, then cycles of wait, warmup and active steps
    (repeat of them; 0: forever). The last active step of a cycle saves the trace."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("Invalid profiler schedule arguments")

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError(f"Invalid step number: {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        mod = step % cycle
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False):
    """An on_trace_ready that writes each saved trace as <worker>.<step>.pt.trace.json in dir_name."""
    import os
    import socket

    def handler(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{prof.step_num}.pt.trace.json" + (".gz" if use_gzip else ""))
        prof.export_chrome_trace(path)
    return handler


class profile:
    """Profiles the code in its block (or between start() and stop(); with a schedule,
    the steps the schedule records, advanced by step())."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda: bool | None = None) -> None:
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"activities must be ProfilerActivity values, got {a!r}")
        self.activities = acts
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self._module_ranges = ModuleRanges() if with_modules or with_stack else None
        self.step_num = 0
        self._recording = False
        self._started = False
        self._session: dict | None = None
        self._events: EventList | None = None
        self._action = ProfilerAction.NONE

    # ---- the core session ----

    def _flags(self) -> int:
        flags = lib.NB_PROFILE_SHAPES if self.record_shapes or self.with_flops else 0
        flags |= lib.NB_PROFILE_STACK if self.with_stack else 0
        flags |= lib.NB_PROFILE_MEMORY if self.profile_memory else 0
        flags |= lib.NB_PROFILE_CUDA if ProfilerActivity.CUDA in self.activities else 0
        return flags

    def _begin(self) -> None:
        if self._recording:
            return
        if self.with_stack:
            _stack.install()
        status = lib.nb_profiler_start(self._flags())
        if status:
            raise error(status)
        self._recording = True
        if self._module_ranges is not None:
            self._module_ranges.install()

    def _end(self) -> None:
        if not self._recording:
            return
        self._recording = False
        if self._module_ranges is not None:
            self._module_ranges.remove()
        status = lib.nb_profiler_stop()
        if status:
            raise error(status)
        self._session = read_session()
        self._events = None

    # ---- torch.profiler.profile ----

    def start(self) -> None:
        if self._started:
            raise RuntimeError("profiler: start() called twice; the profiler is already running")
        self._started = True
        self._action = self.schedule(self.step_num) if self.schedule else ProfilerAction.RECORD
        if self._action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def stop(self) -> None:
        if not self._started:
            raise RuntimeError("profiler: stop() called without start(); the profiler is not running")
        self._started = False
        was = self._recording
        self._end()
        if was and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        """Ends a step of the schedule: saves the trace after the last active step of a cycle."""
        if not self._started:
            return
        prev = self._action
        self.step_num += 1
        self._action = self.schedule(self.step_num) if self.schedule else ProfilerAction.RECORD
        if prev == ProfilerAction.RECORD_AND_SAVE or (prev == ProfilerAction.RECORD and
                                                      self._action not in (ProfilerAction.RECORD,
                                                                           ProfilerAction.RECORD_AND_SAVE)):
            self._end()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if self._action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- results ----

    def _require(self) -> dict:
        if self._session is None:
            raise RuntimeError("Profiler didn't finish running" if self._recording else
                               "profiler: no results; nothing has been recorded yet")
        return self._session

    def events(self) -> EventList:
        if self._events is None:
            events, _ = build_events(self._require(), flops=self.with_flops, shapes=self.record_shapes)
            self._events = EventList(events, memory=self.profile_memory, flops=self.with_flops)
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("group_by_input_shape needs profile(record_shapes=True)")
        return _key_averages(self.events(), group_by_input_shape, self.profile_memory, group_by_stack_n,
                             self.with_flops)

    def export_chrome_trace(self, path) -> None:
        write_chrome_trace(self._require(), path)

    def export_memory_timeline(self, path, device: str | None = None) -> None:
        raise NotImplementedError("profile.export_memory_timeline is not implemented in nabla")

    def table(self, **kwargs) -> str:
        return self.key_averages().table(**kwargs)

    @property
    def profiler(self) -> "profile":
        return self


class record_function:
    """A named range around a block (or function, as a decorator), on the calling thread;
    recorded while a profiler session runs, free otherwise."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._open = False

    def __enter__(self) -> "record_function":
        status = lib.nb_profiler_range_push(self.name.encode("utf-8"))
        if status:
            raise error(status)
        self._open = True
        return self

    def __exit__(self, *exc) -> None:
        if self._open:
            self._open = False
            status = lib.nb_profiler_range_pop()
            if status:
                raise error(status)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper
