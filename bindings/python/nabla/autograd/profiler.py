"""nabla.autograd.profiler: torch.autograd.profiler's names over nabla.profiler."""
from __future__ import annotations

from ..profiler import ProfilerActivity, record_function
from ..profiler import profile as _profile
from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]


class profile(_profile):
    """torch.autograd.profiler.profile: profiles its block when enabled (a no-op otherwise)."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None) -> None:
        acts = {ProfilerActivity.CPU}
        if use_cuda or (use_device or "").startswith("cuda"):
            acts.add(ProfilerActivity.CUDA)
        super().__init__(activities=acts, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)
        self.enabled = enabled

    def __enter__(self) -> "profile":
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self.stop()

    def function_events(self) -> EventList:
        return self.events()
