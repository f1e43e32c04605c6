"""nabla.Stream and nabla.Event: torch.Stream and torch.Event, the device-generic queue of
work and marker in it. On CUDA they are nabla's streams and events (nabla.cuda.Stream and
nabla.cuda.Event are their subclasses, as in PyTorch's CUDA builds). On the CPU they behave
as PyTorch's do: every operation is already complete, so query() is True and waits return
at once, while whatever records an event raises RuntimeError ("cpu backend doesn't support
events."). A device of None means the current accelerator, else the CPU; an int is an
accelerator index."""
from __future__ import annotations

from ._lib import error, ffi, lib
from . import _device

__all__ = ["Stream", "Event"]

_NO_CPU_EVENTS = "cpu backend doesn't support events."
_DEVICE_TYPES = {"cpu": 0, "cuda": 1}  # PyTorch's DeviceType numbers


def _check(status: int) -> None:
    if status:
        raise error(status)


def _done(query, h) -> bool:
    """Whether the work a stream or event (h; None on the CPU) marks has finished."""
    if h is None:
        return True
    out = ffi.new("int32_t*")
    _check(query(h, out))
    return bool(out[0])


def _resolve(device) -> tuple[str, int]:
    """(type, index) of the device a stream or event lives on; the CPU's index is -1."""
    from . import accelerator, cuda
    if device is None:
        return ("cuda", cuda.current_device()) if cuda.is_available() else ("cpu", -1)
    if isinstance(device, int) and not isinstance(device, bool):
        accelerator._require()
        return "cuda", device
    d = device if isinstance(device, _device.device) else _device.device(device)
    if d.type == "cpu":
        return "cpu", -1
    return d.type, cuda.current_device() if d.index is None else d.index


class Stream:
    """An in-order queue of device work. Stream(device=None, *, priority=0): lower priority
    numbers run first. Used as a context manager it is the current stream of its device."""

    __slots__ = ("_h", "_ctx", "__weakref__")

    def __init__(self, device=None, *, priority: int = 0) -> None:
        self._h = None
        kind, index = _resolve(device)
        if kind == "cuda":
            out = ffi.new("nb_stream**")
            _check(lib.nb_stream_create(lib.NB_CUDA, index, int(priority), out))
            self._h = out[0]

    def __del__(self) -> None:
        h = getattr(self, "_h", None)
        if h is not None:
            self._h = None
            lib.nb_stream_release(h)

    @property
    def device(self) -> _device.device:
        return _device.device("cpu") if self._h is None else _device.device("cuda", lib.nb_stream_device_index(self._h))

    @property
    def device_type(self) -> int:
        return _DEVICE_TYPES["cpu" if self._h is None else "cuda"]

    @property
    def device_index(self) -> int:
        return -1 if self._h is None else lib.nb_stream_device_index(self._h)

    @property
    def stream_id(self) -> int:
        return 0 if self._h is None else lib.nb_stream_id(self._h)

    @property
    def native_handle(self) -> int:
        """The cudaStream_t as an integer (0 for the default stream)."""
        if self._h is None:
            raise RuntimeError("Backend doesn't support getting stream native handle.")
        return int(ffi.cast("uintptr_t", lib.nb_stream_native_handle(self._h)))

    def query(self) -> bool:
        """Whether all work queued so far has finished."""
        return _done(lib.nb_stream_query, self._h)

    def synchronize(self) -> None:
        """Waits for the work queued so far (a synchronising call for nabla.cuda.set_sync_debug_mode)."""
        if self._h is not None:
            from ._tensor import _sync_point
            _sync_point()
            _check(lib.nb_stream_synchronize(self._h))

    def wait_event(self, event: "Event") -> None:
        """Work queued after this call waits until event completes."""
        if self._h is not None and event._h is not None:
            _check(lib.nb_stream_wait_event(self._h, event._h))

    def wait_stream(self, stream: "Stream") -> None:
        """Work queued after this call waits for all work queued on stream so far."""
        if self._h is None:
            raise RuntimeError(_NO_CPU_EVENTS)
        if stream._h is not None:
            _check(lib.nb_stream_wait_stream(self._h, stream._h))

    def record_event(self, event: "Event | None" = None) -> "Event":
        """Records event (a new one when None) on this stream and returns it."""
        if self._h is None:
            raise RuntimeError(_NO_CPU_EVENTS)
        if event is None:
            event = self._new_event()
        event.record(self)
        return event

    def _new_event(self) -> "Event":
        return Event(self.device)

    def __enter__(self):
        if self._h is not None:
            from .cuda import StreamContext
            self._ctx = StreamContext(self)
            self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> bool:
        if self._h is not None:
            self._ctx.__exit__(*exc)
        return False

    def __eq__(self, other) -> bool:
        return (isinstance(other, Stream) and self.device_type == other.device_type
                and self.device_index == other.device_index and self.stream_id == other.stream_id)

    def __hash__(self) -> int:
        return hash((self.stream_id, self.device_index, self.device_type))

    def __repr__(self) -> str:
        return (f"nabla.Stream device_type={self.device.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a stream's work, for waiting, ordering streams and timing:
    Event(device=None, *, enable_timing=False, blocking=False, interprocess=False)."""

    __slots__ = ("_h", "_flags", "_recorded", "_index", "__weakref__")
    _elapsed_error = ValueError  # what elapsed_time raises for unrecorded or untimed events (torch.Event's)

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self._h = None
        kind, index = _resolve(device)
        if kind == "cuda":
            self._create(index, enable_timing, blocking, interprocess)
        else:
            self._flags, self._recorded, self._index = lib.NB_EVENT_TIMING if enable_timing else 0, False, -1

    def _create(self, index: int, enable_timing: bool, blocking: bool, interprocess: bool) -> None:
        """Makes the CUDA event on device index (-1: the current one)."""
        self._h = None
        if interprocess:
            raise NotImplementedError("Event(interprocess=True) is not supported by nabla")
        self._flags = (lib.NB_EVENT_TIMING if enable_timing else 0) | (lib.NB_EVENT_BLOCKING if blocking else 0)
        self._recorded = False
        out = ffi.new("nb_event**")
        _check(lib.nb_event_create(lib.NB_CUDA, index, self._flags, out))
        self._h = out[0]
        if index < 0:
            cur = ffi.new("int32_t*")
            _check(lib.nb_device_current(lib.NB_CUDA, cur))
            index = cur[0]
        self._index = index

    def __del__(self) -> None:
        h = getattr(self, "_h", None)
        if h is not None:
            self._h = None
            lib.nb_event_release(h)

    @property
    def device(self) -> _device.device:
        return _device.device("cpu") if self._h is None else _device.device("cuda", self._index)

    @property
    def event_id(self) -> int:
        return 0 if self._h is None else int(ffi.cast("uintptr_t", lib.nb_event_native_handle(self._h)))

    def record(self, stream: Stream | None = None) -> None:
        """Marks the work queued so far on stream (None: the current stream)."""
        if self._h is None:
            raise RuntimeError(_NO_CPU_EVENTS)
        _check(lib.nb_event_record(self._h, ffi.NULL if stream is None else stream._h))
        self._recorded = True

    def wait(self, stream: Stream | None = None) -> None:
        """Work queued on stream (None: the current stream) after this call waits for the event."""
        if self._h is not None:
            from .cuda import current_stream
            (current_stream(self._index) if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        """Whether the work the event marks has finished (True for an event never recorded)."""
        return _done(lib.nb_event_query, self._h)

    def synchronize(self) -> None:
        if self._h is not None:
            _check(lib.nb_event_synchronize(self._h))

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds from this event to end_event (both timed, recorded and complete)."""
        if not (self._flags & end_event._flags & lib.NB_EVENT_TIMING):
            raise self._elapsed_error("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise self._elapsed_error("Both events must be recorded before calculating elapsed time.")
        out = ffi.new("double*")
        _check(lib.nb_event_elapsed_time(self._h, end_event._h, out))
        return out[0]

    def ipc_handle(self):
        raise NotImplementedError("nabla.Event ipc is not supported")

    @classmethod
    def from_ipc_handle(cls, device, handle):
        raise NotImplementedError("nabla.Event ipc is not supported")

    def __repr__(self) -> str:
        return (f"nabla.Event device_type={self.device.type}, device_index={self._index}, "
                f"event_flag={self._flags & lib.NB_EVENT_TIMING}, event_id={self.event_id}")
