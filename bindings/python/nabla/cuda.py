"""nabla.cuda: devices, streams, events and the caching allocator's statistics,
with torch.cuda's names. Without a usable GPU, is_available() is False, the
memory counters read 0 (as PyTorch's do before CUDA is initialised) and every
request that needs a device raises RuntimeError saying why."""
from __future__ import annotations

from ._lib import error, ffi, lib, scratch
from ._tensor import Tensor
from . import _device
from ._memory_summary import summary_table
from . import _legacy, _random, _streams

globals().update(_legacy.CUDA_TYPES)  # nabla.cuda.FloatTensor, ... (legacy constructors on the GPU)

__all__ = ["is_available", "device_count", "current_device", "set_device", "device", "device_of", "synchronize",
           "Stream", "Event", "stream", "StreamContext", "current_stream", "default_stream", "set_stream",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "empty_cache", "memory_stats",
           "memory_snapshot", "memory_summary", "mem_get_info", "unavailable_reason", "OutOfMemoryError",
           "ExternalStream", "get_device_properties", "get_device_name", "get_device_capability",
           "is_bf16_supported", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "is_initialized", "init", "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all",
           *_legacy.CUDA_TYPES]

from ._lib import OutOfMemoryError  # noqa: E402


def _check_status(status: int) -> None:
    if status:
        raise error(status)


def device_count() -> int:
    """Number of usable CUDA devices (0 without a driver, a device or the plugin)."""
    out = scratch.i32
    _check_status(lib.nb_device_count(lib.NB_CUDA, out))
    return out[0]


def is_available() -> bool:
    return device_count() > 0


def _require() -> None:
    """Raises DeviceUnavailableError (an AssertionError and a RuntimeError) with the reason when CUDA cannot be
    used: what PyTorch's CPU build raises (AssertionError) and its CUDA build on a machine without a GPU does."""
    _check_status(lib.nb_device_current(lib.NB_CUDA, scratch.i32))


def unavailable_reason() -> str:
    """Why CUDA cannot be used here ('' when it can)."""
    return ffi.string(lib.nb_device_unavailable_reason(lib.NB_CUDA)).decode()


def _device_index(dev, optional: bool = True) -> int:
    """A CUDA device index from an int, 'cuda:1', a device or None (-1: the current one)."""
    if dev is None:
        return -1
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev
    d = dev if isinstance(dev, _device.device) else _device.device(dev)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return -1 if d.index is None else d.index


def current_device() -> int:
    out = scratch.i32
    _check_status(lib.nb_device_current(lib.NB_CUDA, out))
    return out[0]


def set_device(device) -> None:
    """Sets the calling thread's current CUDA device; a negative index is ignored (as in PyTorch)."""
    idx = _device_index(device)
    if idx >= 0:
        _check_status(lib.nb_device_set_current(lib.NB_CUDA, idx))


class device:
    """Context manager that makes a CUDA device current (None or -1: no change)."""

    def __init__(self, device) -> None:
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                set_device(self.idx)
        return self

    def __exit__(self, *exc) -> bool:
        if self.idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager that makes the device of a tensor current (a no-op for CPU tensors)."""

    def __init__(self, obj: Tensor) -> None:
        super().__init__(obj.device.index if obj.is_cuda else -1)


class _CudaDeviceProperties:
    """What torch.cuda.get_device_properties returns: name, major, minor, total_memory
    (bytes), multi_processor_count, L2_cache_size, warp_size, uuid and the rest of
    the fields nb_device_properties reports, as attributes."""

    def __init__(self, fields: dict) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory >> 20}MB, multi_processor_count={self.multi_processor_count}, "
                f"uuid={self.uuid}, L2_cache_size={self.L2_cache_size >> 20}MB)")


_properties: dict[int, _CudaDeviceProperties] = {}


def get_device_properties(device=None) -> _CudaDeviceProperties:
    """The properties of a CUDA device (None: the current one)."""
    import json
    idx = _device_index(device)
    if idx < 0:
        idx = current_device()
    if idx not in _properties:
        needed = ffi.new("int64_t*")
        buf = ffi.new("char[]", 2048)
        _check_status(lib.nb_device_properties(lib.NB_CUDA, idx, buf, 2048, needed))
        _properties[idx] = _CudaDeviceProperties(json.loads(ffi.string(buf).decode()))
    return _properties[idx]


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple[int, int]:
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """True when the current CUDA device computes in bfloat16 natively (compute
    capability 8.0 or later); nabla's kernels also take bfloat16 on older devices
    (f32 arithmetic), which including_emulation counts. False without CUDA."""
    if not is_available():
        return False
    return including_emulation or get_device_capability()[0] >= 8


def synchronize(device=None) -> None:
    """Waits for all work on a CUDA device; reports errors of asynchronous work."""
    _check_status(lib.nb_device_synchronize(lib.NB_CUDA, _device_index(device)))


# ---- streams and events ----

def _wrap_stream(h) -> "Stream":
    s = object.__new__(Stream)
    s._h = h
    return s


class Stream(_streams.Stream):
    """A CUDA stream: an ordered queue of device work. Lower priority numbers run first."""

    __slots__ = ()

    def __init__(self, device=None, priority: int = 0, **kwargs) -> None:
        out = ffi.new("nb_stream**")
        self._h = None
        with _device_scope(device):
            _check_status(lib.nb_stream_create(lib.NB_CUDA, -1, int(priority), out))
        self._h = out[0]

    @property
    def priority(self) -> int:
        return lib.nb_stream_priority(self._h)

    @property
    def cuda_stream(self) -> int:
        """The cudaStream_t as an integer (0 for the default stream)."""
        return self.native_handle

    def _new_event(self) -> "Event":
        return Event()

    def __repr__(self) -> str:
        return f"<nabla.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """A stream made outside nabla (e.g. by PyTorch or CuPy), from its cudaStream_t as
    an integer: nabla queues work on it and waits on it but never destroys it, so
    keep the stream alive while this object is used."""

    __slots__ = ()

    def __init__(self, stream_ptr: int, device=None, **kwargs) -> None:
        out = ffi.new("nb_stream**")
        self._h = None
        with _device_scope(device):
            _check_status(lib.nb_stream_from_native(lib.NB_CUDA, -1, ffi.cast("void*", int(stream_ptr)), out))
        self._h = out[0]


class _device_scope(device):
    def __init__(self, dev) -> None:
        super().__init__(dev)


def current_stream(device=None) -> Stream:
    out = ffi.new("nb_stream**")
    _check_status(lib.nb_stream_current(lib.NB_CUDA, _device_index(device), out))
    return _wrap_stream(out[0])


def default_stream(device=None) -> Stream:
    out = ffi.new("nb_stream**")
    _check_status(lib.nb_stream_default(lib.NB_CUDA, _device_index(device), out))
    return _wrap_stream(out[0])


def set_stream(stream: Stream | None) -> None:
    """Makes stream the calling thread's current stream on its device (None: no change)."""
    if stream is not None:
        _check_status(lib.nb_stream_set_current(stream._h))


class StreamContext:
    """Selects a stream (and its device) for the block, restoring both after it; None is a no-op."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self._prev_device = self._prev_here = self._prev_there = None

    def __enter__(self):
        s = self.stream
        if s is None:
            return None
        idx = s.device.index
        self._prev_device = current_device()
        self._prev_here = current_stream(self._prev_device)
        if idx != self._prev_device:
            self._prev_there = current_stream(idx)
            set_device(idx)
        set_stream(s)
        return s

    def __exit__(self, *exc) -> bool:
        if self.stream is None:
            return False
        if self._prev_there is not None:
            set_stream(self._prev_there)
        set_device(self._prev_device)
        set_stream(self._prev_here)
        return False


def stream(stream: Stream | None) -> StreamContext:
    """with nabla.cuda.stream(s): work queued in the block goes to s."""
    return StreamContext(stream)


class Event(_streams.Event):
    """A marker in a CUDA stream, for waiting, ordering streams and timing."""

    __slots__ = ()
    _elapsed_error = RuntimeError  # torch.cuda.Event's

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self._create(-1, enable_timing, blocking, interprocess)

    @property
    def cuda_event(self) -> int:
        return self.event_id

    def __repr__(self) -> str:
        return f"<nabla.cuda.Event {self.cuda_event:#x}>"


# ---- the caching allocator ----

def _raw_stats(device=None, device_type: int = lib.NB_CUDA):
    """The C counters of a CUDA device (NB_CUDA_HOST: of the pinned pool), or None when CUDA is unavailable."""
    if not is_available():
        return None
    s = ffi.new("nb_memory_stats*")
    s.struct_size = ffi.sizeof("nb_memory_stats")
    _check_status(lib.nb_memory_stats_get(device_type, _device_index(device), s))
    return s


# The counters reset_accumulated_memory_stats zeroes: the C counters at the reset, per device ("host": pinned).
_ACCUMULATED = ("alloc_count", "free_count", "alloc_retries", "oom_count", "system_alloc_count", "system_free_count")
_accumulated_base: dict = {}


def _stats_key(device) -> int:
    idx = _device_index(device)
    return current_device() if idx < 0 else idx


def _accumulated(s, key) -> dict:
    """The accumulated counters of s since the last reset of key's."""
    base = _accumulated_base.get(key, {})
    return {f: getattr(s, f) - base.get(f, 0) for f in _ACCUMULATED}


def _reset_accumulated(s, key) -> None:
    """Makes the accumulated counters of key read 0 from now on (reset_accumulated_*_stats)."""
    if s is None:
        _require()
    _accumulated_base[key] = {f: getattr(s, f) for f in _ACCUMULATED}


def memory_stats(device=None) -> dict:
    """The allocator's counters under PyTorch's key names (empty without CUDA)."""
    s = _raw_stats(device)
    if s is None:
        return {}
    acc = _accumulated(s, _stats_key(device))
    out = {}
    for key, cur, peak in (("allocated_bytes", s.allocated_bytes, s.peak_allocated_bytes),
                           ("reserved_bytes", s.reserved_bytes, s.peak_reserved_bytes),
                           ("active_bytes", s.active_bytes, s.peak_active_bytes),
                           ("requested_bytes", s.requested_bytes, s.peak_requested_bytes)):
        out[f"{key}.all.current"] = cur
        out[f"{key}.all.peak"] = peak
    out["allocated_bytes.all.allocated"] = acc["alloc_count"]
    out["allocation.all.allocated"] = acc["alloc_count"]
    out["allocation.all.freed"] = acc["free_count"]
    out["allocation.all.current"] = s.alloc_count - s.free_count
    out["inactive_split_bytes.all.current"] = s.inactive_split_bytes
    out["segment.all.current"] = s.segment_count
    out["num_alloc_retries"] = acc["alloc_retries"]
    out["num_ooms"] = acc["oom_count"]
    out["num_device_alloc"] = acc["system_alloc_count"]
    out["num_device_free"] = acc["system_free_count"]
    out["largest_free_block"] = s.largest_free_block
    return dict(sorted(out.items()))


def memory_allocated(device=None) -> int:
    s = _raw_stats(device)
    return 0 if s is None else s.allocated_bytes


def max_memory_allocated(device=None) -> int:
    s = _raw_stats(device)
    return 0 if s is None else s.peak_allocated_bytes


def memory_reserved(device=None) -> int:
    s = _raw_stats(device)
    return 0 if s is None else s.reserved_bytes


def max_memory_reserved(device=None) -> int:
    s = _raw_stats(device)
    return 0 if s is None else s.peak_reserved_bytes


def reset_peak_memory_stats(device=None) -> None:
    _check_status(lib.nb_memory_reset_peak(lib.NB_CUDA, _device_index(device)))


def reset_max_memory_allocated(device=None) -> None:
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Returns every unused cached segment to the device (a no-op without CUDA)."""
    if is_available():
        _check_status(lib.nb_memory_empty_cache(lib.NB_CUDA, -1))


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of the device, as the driver reports them."""
    f, t = ffi.new("int64_t*"), ffi.new("int64_t*")
    _check_status(lib.nb_device_memory_info(lib.NB_CUDA, _device_index(device), f, t))
    return f[0], t[0]


def _snapshot_json(device=None) -> dict:
    import json
    need = ffi.new("int64_t*")
    idx = _device_index(device)
    _check_status(lib.nb_memory_snapshot(lib.NB_CUDA, idx, ffi.NULL, 0, need))
    while True:
        cap = need[0] + 1
        buf = ffi.new("char[]", cap)
        _check_status(lib.nb_memory_snapshot(lib.NB_CUDA, idx, buf, cap, need))
        if need[0] < cap:
            return json.loads(ffi.string(buf).decode())


def memory_snapshot(device=None) -> list[dict]:
    """The segments of the caching allocator, each with its blocks (PyTorch's field names)."""
    return _snapshot_json(device)["segments"]


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A table of the allocator's counters like PyTorch's."""
    if not is_available():
        raise RuntimeError(f"memory_summary: CUDA is not available: {unavailable_reason()}")
    dev = current_device() if device is None else _device_index(device)
    return summary_table(memory_stats(dev), dev)


# ---- Tensor methods that belong to the device runtime ----

def _pin_memory(self: Tensor, device=None) -> Tensor:
    """A copy in pinned (page-locked) host memory; non-blocking copies need it."""
    from ._tensor import _call
    return _call(lib.nbpy_tensor_pin_memory, self._h)


def _is_pinned(self: Tensor, device=None) -> bool:
    return lib.nb_tensor_is_pinned(self._h) == 1


def _record_stream(self: Tensor, stream: Stream) -> None:
    """Marks this tensor's memory as used by work on stream, so it is not reused before that work ends."""
    _check_status(lib.nb_tensor_record_stream(self._h, stream._h))


# ---- random numbers: nabla has one generator for every device (see nabla.Generator) ----

def manual_seed(seed) -> None:
    """Seeds the generator CUDA tensors draw from. Without a GPU it does nothing, as in PyTorch (whose call
    is queued until CUDA initialises); with one it seeds nabla's one default generator, shared with the CPU."""
    seed = _random._seed_value(seed)
    if is_available():
        _random.manual_seed(seed)


manual_seed_all = manual_seed


def seed() -> None:
    """Seeds CUDA's generator from the operating system (nothing without a GPU)."""
    if is_available():
        _random.seed()


seed_all = seed


def initial_seed() -> int:
    """The seed of the generator CUDA tensors draw from (raises without a GPU, as PyTorch)."""
    _require()
    return _random.initial_seed()


def get_rng_state(device="cuda"):
    _require()
    return _random.get_rng_state()


def set_rng_state(new_state, device="cuda") -> None:
    _require()
    _random.set_rng_state(new_state)


def get_rng_state_all() -> list:
    return [get_rng_state() for _ in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for state in new_states:
        set_rng_state(state)


def is_initialized() -> bool:
    """Whether CUDA has been set up in this process (a usable device was found)."""
    return is_available()


def init() -> None:
    """Initialises CUDA; raises with the reason when there is no usable device."""
    _require()


# ---- the rest of torch.cuda's names, by subject ----

from ._lib import AcceleratorError  # noqa: E402

# The modules below import this one, so their names are looked up on first use (__getattr__).
from ._cuda_names import SUBJECT_NAMES as _SUBJECT_NAMES  # noqa: E402

__all__ += ["AcceleratorError", "default_generators"]
__all__ += [name for names in _SUBJECT_NAMES.values() for name in names]


def __getattr__(name: str):
    if name == "default_generators":  # one per device, all nabla's one generator; () without CUDA
        return tuple(_random.default_generator for _ in range(device_count()))
    for subject, names in _SUBJECT_NAMES.items():
        if name in names:
            import importlib
            return getattr(importlib.import_module(f"nabla.{subject}"), name)
    raise AttributeError(f"module 'nabla.cuda' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
