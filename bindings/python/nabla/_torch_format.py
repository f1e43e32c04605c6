"""PyTorch's checkpoint format, read and written without PyTorch.

Zip format (torch.save's default since 1.6): an archive '<name>/' holding data.pkl (the
object, pickled with protocol 2; every tensor is a call of torch._utils._rebuild_tensor_v2
on a persistent id ('storage', torch.<Type>Storage, key, location, numel)), one record
data/<key> per storage with its raw little-endian bytes, and byteorder / version records.
Legacy format (before 1.6): pickles of a magic number, a protocol version and system info,
then the object, the storage keys, and each storage as an int64 element count plus bytes.

Tensors that share a storage in the file share one nabla storage when loaded (views stay
views), and nabla.save writes one record per nabla storage, so torch.load sees the views.

weights_only=True (the default, as PyTorch 2.6+) unpickles through an allowlist of globals:
PyTorch's own (containers, tensor and parameter rebuilders, storage types, dtypes, Size,
device), plus what add_safe_globals / safe_globals admit; anything else raises
pickle.UnpicklingError naming the global. weights_only=False loads any pickle (it runs code
from the file: only for files you trust), mapping torch.* classes to nabla's namesakes."""
from __future__ import annotations

import collections
import contextlib
import io
import importlib
import pickle
import struct
import sys
import zipfile

import numpy as np

from . import _dtype
from ._device import device as _device_cls
from ._lib import ffi, lib
from ._size import Size
from ._tensor import Tensor, _checked

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals", "read", "write_zip",
           "is_torch_format"]

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001

# torch storage type names <-> nabla dtypes
_STORAGE_DTYPES = {"FloatStorage": _dtype.float32, "DoubleStorage": _dtype.float64, "HalfStorage": _dtype.float16,
                   "BFloat16Storage": _dtype.bfloat16, "CharStorage": _dtype.int8, "ShortStorage": _dtype.int16,
                   "IntStorage": _dtype.int32, "LongStorage": _dtype.int64, "ByteStorage": _dtype.uint8,
                   "BoolStorage": _dtype.bool_}
_STORAGE_NAMES = {d: n for n, d in _STORAGE_DTYPES.items()}
_TORCH_DTYPES = {"float32": _dtype.float32, "float": _dtype.float32, "float64": _dtype.float64,
                 "double": _dtype.float64, "float16": _dtype.float16, "half": _dtype.float16,
                 "bfloat16": _dtype.bfloat16, "int8": _dtype.int8, "int16": _dtype.int16, "short": _dtype.int16,
                 "int32": _dtype.int32, "int": _dtype.int32, "int64": _dtype.int64, "long": _dtype.int64,
                 "uint8": _dtype.uint8, "bool": _dtype.bool_}


# The legacy format opens with the pickled magic number (LONG1 of 10 bytes) after the protocol header.
_LEGACY_MAGIC_PICKLE = b"\x8a\x0a" + _LEGACY_MAGIC.to_bytes(10, "little")
HEAD_BYTES = 32  # what is_torch_format needs to see


def is_torch_format(head: bytes) -> bool:
    """Whether a file's first HEAD_BYTES bytes are a PyTorch checkpoint (a zip archive or a legacy pickle);
    a safetensors file never is (its first 8 bytes are a length, then '{')."""
    if head[:4] == b"PK\x03\x04":
        return True
    return len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5 and _LEGACY_MAGIC_PICKLE in head


# ---- safe globals (torch.serialization.add_safe_globals and friends) ----

_user_safe: list = []


def add_safe_globals(safe_globals: list) -> None:
    """Admits these globals (objects, or (object, 'module.name') pairs) to weights_only loading."""
    _user_safe.extend(safe_globals)


def get_safe_globals() -> list:
    """The globals add_safe_globals admitted."""
    return list(_user_safe)


def clear_safe_globals() -> None:
    _user_safe.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list):
    """Admits the globals inside the block only."""
    n = len(_user_safe)
    _user_safe.extend(safe_globals)
    try:
        yield
    finally:
        del _user_safe[n:]


def _user_safe_table() -> dict:
    table = {}
    for entry in _user_safe:
        obj, name = entry if isinstance(entry, tuple) else (entry, f"{entry.__module__}.{entry.__qualname__}")
        table[name] = obj
    return table


# ---- reading ----

class _StorageType:
    """What torch.<X>Storage unpickles to: the element type of a storage record."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype = _STORAGE_DTYPES.get(name)


def _rebuild_tensor(storage: Tensor, storage_offset, size, stride):
    return storage.as_strided(tuple(size), tuple(stride), storage_offset)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        p.__dict__.update(state) if hasattr(p, "__dict__") else None
    return p


def _get_layout(name: str) -> str:
    if name != "torch.strided":
        raise pickle.UnpicklingError(f"nabla.load: tensor layout {name} is not supported (nabla tensors are strided)")
    return name


def _torch_globals() -> dict:
    """PyTorch's weights_only allowlist, each name mapped to what nabla builds for it."""
    from .nn.parameter import Parameter
    from ._legacy import CPU_TYPES
    table = {"collections.OrderedDict": collections.OrderedDict, "collections.Counter": collections.Counter,
             "builtins.set": set, "builtins.frozenset": frozenset, "builtins.complex": complex,
             "builtins.bytearray": bytearray, "builtins.slice": slice, "builtins.range": range,
             "torch._utils._rebuild_tensor": _rebuild_tensor, "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
             "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
             "torch._utils._rebuild_parameter": _rebuild_parameter,
             "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
             "torch.serialization._get_layout": _get_layout, "torch.Size": Size, "torch.device": _device_cls,
             "torch.nn.parameter.Parameter": Parameter, "torch.Tensor": Tensor}
    for name in ("FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "CharStorage", "ShortStorage",
                 "IntStorage", "LongStorage", "ByteStorage", "BoolStorage", "ComplexFloatStorage",
                 "ComplexDoubleStorage"):
        table[f"torch.{name}"] = table[f"torch.cuda.{name}"] = _StorageType(name)
    table["torch.storage.UntypedStorage"] = _StorageType("ByteStorage")
    for name, d in _TORCH_DTYPES.items():
        table[f"torch.{name}"] = d
    for name, cls in CPU_TYPES.items():
        table[f"torch.{name}"] = cls
    return table


def _weights_only_error(name: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"Weights only load failed. In nabla (as in PyTorch 2.6+) `weights_only` defaults to True, and this "
        f"checkpoint needs the global {name}, which is not an allowed global. If you trust the source of the "
        f"checkpoint, load it with weights_only=False (this runs code from the file), or allow the global with "
        f"nabla.serialization.add_safe_globals([{name.rsplit('.', 1)[-1]}]) or the "
        f"nabla.serialization.safe_globals([...]) context manager.")


def _nabla_namesake(module: str, name: str):
    """torch.x.y.Name -> nabla.x.y.Name when nabla has it (weights_only=False only)."""
    try:
        obj = importlib.import_module("nabla" + module[len("torch"):])
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        raise pickle.UnpicklingError(f"nabla.load: the checkpoint needs {module}.{name}, which nabla does not "
                                     f"have") from None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, weights_only: bool, storage_loader) -> None:
        super().__init__(file, encoding="utf-8")
        self._weights_only = weights_only
        self._storage_loader = storage_loader
        self._torch = _torch_globals()
        self._safe = _user_safe_table() if weights_only else {}

    def find_class(self, module: str, name: str):
        full = f"{module}.{name}"
        if full in self._torch:
            return self._torch[full]
        if full in self._safe:
            return self._safe[full]
        if self._weights_only:
            raise _weights_only_error(full)
        if module == "torch" or module.startswith("torch."):
            return _nabla_namesake(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"nabla.load: unknown persistent id {pid!r} in the checkpoint")
        storage_type, key, location, numel = pid[1], pid[2], pid[3], pid[4]
        if not isinstance(storage_type, _StorageType) or storage_type.dtype is None:
            name = getattr(storage_type, "name", repr(storage_type))
            raise pickle.UnpicklingError(f"nabla.load: storage type {name} is not supported by nabla (no complex or "
                                         "quantized dtypes)")
        view = pid[5] if len(pid) > 5 else None
        storage = self._storage_loader(str(key), storage_type.dtype, int(numel), str(location))
        if view is not None:  # legacy storage views: (view_key, offset, size)
            _, offset, size = view
            return storage.as_strided((int(size),), (1,), int(offset))
        return storage


def _storage_from_bytes(data, dtype: _dtype.dtype, numel: int, where: str) -> Tensor:
    nbytes = numel * dtype.itemsize
    if len(data) < nbytes:
        raise RuntimeError(f"nabla.load: storage {where} holds {len(data)} bytes, fewer than its {numel} elements of "
                           f"{dtype.name} need (truncated file?)")
    return _checked(lib.nbpy_tensor_from_host(ffi.from_buffer(data), (numel,), 1, dtype.code, lib.NB_CPU, 0))


def _placer(map_location):
    """(storage tensor, saved location) -> the tensor where map_location says it goes."""
    def place(t: Tensor, location: str) -> Tensor:
        target = location
        if map_location is None:
            pass
        elif isinstance(map_location, dict):
            target = map_location.get(location, location)
        elif callable(map_location):
            result = map_location(t, location)
            return t if result is None else result
        else:
            target = map_location
        target = str(target)
        return t if target == "cpu" else t.to(target)
    return place


def _read_zip(data: bytes, map_location, weights_only: bool):
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"nabla.load: not a valid PyTorch zip checkpoint ({e})") from None
    names = archive.namelist()
    pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
    if not pkl:
        raise RuntimeError("nabla.load: the zip archive has no <name>/data.pkl record: not a PyTorch checkpoint")
    prefix = pkl[0][:-len("data.pkl")]
    if prefix + "byteorder" in names and archive.read(prefix + "byteorder") != b"little":
        raise RuntimeError("nabla.load: big-endian PyTorch checkpoints are not supported")
    place = _placer(map_location)
    loaded: dict = {}

    def load_storage(key: str, dtype, numel: int, location: str) -> Tensor:
        if key not in loaded:
            record = prefix + "data/" + key
            if record not in names:
                raise RuntimeError(f"nabla.load: the checkpoint has no record {record} for storage {key}")
            loaded[key] = place(_storage_from_bytes(archive.read(record), dtype, numel, record), location)
        return loaded[key]

    return _Unpickler(io.BytesIO(archive.read(pkl[0])), weights_only, load_storage).load()


def _read_legacy(data: bytes, map_location, weights_only: bool):
    f = io.BytesIO(data)
    place = _placer(map_location)
    pending: dict = {}

    def declare(key: str, dtype, numel: int, location: str) -> Tensor:
        if key not in pending:
            pending[key] = (dtype, numel, location, _checked(lib.nbpy_empty((numel,), 1, dtype.code, lib.NB_CPU, 0)))
        return pending[key][3]

    def header(what):
        value = _Unpickler(f, True, declare).load()
        if value != what:
            raise RuntimeError(f"nabla.load: not a PyTorch checkpoint (legacy header {value!r}, expected {what!r})")

    header(_LEGACY_MAGIC)
    header(_LEGACY_PROTOCOL)
    _Unpickler(f, True, declare).load()  # sys_info: endianness and type sizes
    obj = _Unpickler(f, weights_only, declare).load()
    keys = _Unpickler(f, True, declare).load()
    for key in keys:
        dtype, numel, location, target = pending[key]
        (count,) = struct.unpack("<q", f.read(8))
        raw = f.read(count * dtype.itemsize)
        target.copy_(_storage_from_bytes(raw, dtype, count, f"'{key}'")[:numel])
    if map_location is not None:
        return _map_all(obj, place)
    return obj


def _map_all(obj, place):
    if isinstance(obj, Tensor):
        return place(obj, str(obj.device))
    if isinstance(obj, dict):
        return type(obj)((k, _map_all(v, place)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(_map_all(v, place) for v in obj)
    return obj


def read(data: bytes, map_location=None, weights_only: bool = True):
    """The object in a PyTorch checkpoint (zip or legacy), tensors as nabla tensors."""
    if sys.byteorder != "little":
        raise RuntimeError("nabla.load: only little-endian machines are supported")
    try:
        if data[:4] == b"PK\x03\x04":
            return _read_zip(data, map_location, weights_only)
        return _read_legacy(data, map_location, weights_only)
    except pickle.UnpicklingError as e:
        if str(e).startswith(("Weights only load failed", "nabla.load")):
            raise
        raise RuntimeError(f"nabla.load: corrupt PyTorch checkpoint ({e})") from None
    except (EOFError, struct.error, zipfile.BadZipFile, KeyError, IndexError) as e:
        raise RuntimeError(f"nabla.load: corrupt PyTorch checkpoint ({type(e).__name__}: {e})") from None


# ---- writing ----

class _Global:
    """A global written by name (torch._utils._rebuild_tensor_v2, torch.FloatStorage, ...), so files name
    PyTorch's functions without PyTorch being imported."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args):  # the pickler requires a reduce function to be callable; it is never called
        raise TypeError(f"{self.module}.{self.name} is a placeholder for pickling")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = _Global("collections", "OrderedDict")
_TORCH_SIZE = _Global("torch", "Size")
_TORCH_DEVICE = _Global("torch", "device")
_STORAGE_GLOBALS = {d: _Global("torch", n) for d, n in _STORAGE_NAMES.items()}
_DTYPE_GLOBALS = {d: _Global("torch", d.name) for d in _dtype.BY_CODE}


class _StorageRecord:
    """A storage to write: its key, element type, element count, location and host bytes."""

    __slots__ = ("key", "dtype", "numel", "location", "data")

    def __init__(self, key, dtype, numel, location, data) -> None:
        self.key, self.dtype, self.numel, self.location, self.data = key, dtype, numel, location, data


class _Pickler(pickle._Pickler):
    """Protocol-2 pickler that writes nabla tensors as PyTorch's tensor records."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict = {}

    def _save_global_by_name(self, g: _Global) -> None:
        self.write(pickle.GLOBAL + g.module.encode() + b"\n" + g.name.encode() + b"\n")
        self.memoize(g)

    def _save_dtype(self, d: _dtype.dtype) -> None:
        self.save(_DTYPE_GLOBALS[d])

    dispatch[_Global] = _save_global_by_name
    dispatch[_dtype.dtype] = _save_dtype

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRecord):
            return ("storage", _STORAGE_GLOBALS[obj.dtype], obj.key, obj.location, obj.numel)
        return None

    def _storage(self, t: Tensor) -> tuple:
        """(record, offset in elements) of t's storage; one record per storage (views share it)."""
        h = t._h
        if t.is_cpu:
            base = int(ffi.cast("uintptr_t", lib.nb_tensor_storage_data_ptr(h)))
            ident = (base, t.dtype.code)
            if ident not in self.storages:
                nbytes = lib.nb_tensor_storage_nbytes(h)
                raw = bytes(ffi.buffer(lib.nb_tensor_storage_data_ptr(h), nbytes)) if nbytes else b""
                self.storages[ident] = _StorageRecord(str(len(self.storages)), t.dtype, nbytes // t.dtype.itemsize,
                                                      "cpu", raw)
            return self.storages[ident], lib.nb_tensor_storage_offset(h)
        dense = t.detach().contiguous().cpu()  # a device tensor: its own storage, as laid out on the host
        ident = ("dev", id(dense))
        self.storages[ident] = _StorageRecord(str(len(self.storages)), t.dtype, dense.numel(), str(t.device),
                                              dense.numpy().tobytes())
        return self.storages[ident], 0

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter
            if isinstance(obj, Parameter):
                data = obj.detach()
                return _REBUILD_PARAMETER, (data, obj.requires_grad, collections.OrderedDict())
            record, offset = self._storage(obj)
            stride = obj.stride() if obj.is_cpu else tuple(obj.detach().contiguous().stride())
            args = (record, offset, tuple(obj.shape), tuple(stride), obj.requires_grad, collections.OrderedDict())
            return _REBUILD_TENSOR, args
        if isinstance(obj, _device_cls):
            return _TORCH_DEVICE, (str(obj),)
        if isinstance(obj, Size):
            return _TORCH_SIZE, (tuple(obj),)
        return NotImplemented

    def save_reduce(self, func, args, state=None, listitems=None, dictitems=None, state_setter=None, *, obj=None):
        # collections.OrderedDict is written as torch writes it (so the torch reader's allowlist matches)
        if func is collections.OrderedDict:
            func = _ORDERED_DICT
        super().save_reduce(func, args, state, listitems, dictitems, state_setter, obj=obj)


def write_zip(obj, protocol: int = 2, archive: str = "archive") -> bytes:
    """obj in PyTorch's zip checkpoint format (what torch.load reads)."""
    if sys.byteorder != "little":
        raise RuntimeError("nabla.save: only little-endian machines are supported")
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol)
    pickler.dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{archive}/data.pkl", buf.getvalue())
        z.writestr(f"{archive}/.format_version", b"1")
        z.writestr(f"{archive}/byteorder", b"little")
        for record in pickler.storages.values():
            z.writestr(f"{archive}/data/{record.key}", record.data)
        z.writestr(f"{archive}/version", b"3\n")
    return out.getvalue()

