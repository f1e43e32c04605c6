"""nabla.save / nabla.load: tensors and state dicts in the safetensors format.

A file is an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the raw little-endian bytes. A flat
{str: Tensor} dict is a plain safetensors file that the `safetensors` package reads
(and nabla reads its files). Anything else built from dicts, lists, tuples, numbers,
strings, None and tensors (an optimizer's state_dict, a checkpoint bundle) keeps its
shape as JSON in the header's __metadata__; there is no pickle, so loading a file
runs no code. Saving to a path writes a temporary file in the same directory and
renames it over the target, so a crash never leaves a half-written checkpoint."""
from __future__ import annotations

import json
import math
import os
import struct
import sys
import tempfile

from . import _dtype
from ._lib import error, ffi, lib
from ._tensor import Tensor, _checked

__all__ = ["save", "load"]

_ST_NAMES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16", "int64": "I64",
             "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
_ST_DTYPES = {v: k for k, v in _ST_NAMES.items()}
_STRUCTURE_KEY = "nabla.structure"
_MAX_HEADER = 100 * 1024 * 1024  # the safetensors package's own limit
_MAX_DIMS = 16  # NB_MAX_DIMS


def _dtype_name(t: Tensor) -> str:
    return t.dtype.name


def _flatten(obj, path: str, tensors: dict):
    """obj as JSON-able data with tensors replaced by {"__tensor__": name} (tensors collected by name)."""
    if isinstance(obj, Tensor):
        name = path or "tensor"
        while name in tensors:
            name += "_"
        tensors[name] = obj
        return {"__tensor__": name}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        if isinstance(obj, float) and not math.isfinite(obj):  # JSON has no NaN or infinities
            return {"__float__": repr(obj)}
        return obj
    if isinstance(obj, (list, tuple)):
        items = [_flatten(v, f"{path}.{i}" if path else str(i), tensors) for i, v in enumerate(obj)]
        return {"__tuple__": items} if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        if all(isinstance(k, str) for k in obj) and "__tensor__" not in obj:
            return {k: _flatten(v, f"{path}.{k}" if path else k, tensors) for k, v in obj.items()}
        return {"__dict__": [[_flatten(k, "", {}), _flatten(v, f"{path}.{k}" if path else str(k), tensors)]
                             for k, v in obj.items()]}
    raise TypeError(f"nabla.save: cannot save an object of type {type(obj).__name__} (tensors, dicts, lists, tuples, "
                    "numbers, strings and None can be saved)")


def _unflatten(obj, tensors: dict):
    if isinstance(obj, list):
        return [_unflatten(v, tensors) for v in obj]
    if isinstance(obj, dict):
        if "__tensor__" in obj:
            return tensors[obj["__tensor__"]]
        if "__tuple__" in obj:
            return tuple(_unflatten(v, tensors) for v in obj["__tuple__"])
        if "__float__" in obj:
            return float(obj["__float__"])
        if "__dict__" in obj:
            return {_unflatten(k, tensors): _unflatten(v, tensors) for k, v in obj["__dict__"]}
        return {k: _unflatten(v, tensors) for k, v in obj.items()}
    return obj


def _encode(obj, metadata: dict | None) -> bytes:
    tensors: dict = {}
    plain = isinstance(obj, dict) and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    if plain:
        tensors = dict(obj)
    else:
        meta[_STRUCTURE_KEY] = json.dumps(_flatten(obj, "", tensors), separators=(",", ":"))
    header: dict = {}
    offset = 0
    for name, t in tensors.items():
        if not t.is_cpu:
            t = t.cpu()
            tensors[name] = t
        nbytes = t.numel() * t.element_size()
        header[name] = {"dtype": _ST_NAMES[_dtype_name(t)], "shape": list(t.shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    if meta:
        header = {"__metadata__": meta, **header}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    out = bytearray(8 + len(text) + offset)
    struct.pack_into("<Q", out, 0, len(text))
    out[8:8 + len(text)] = text
    base = ffi.from_buffer(out)
    start = 8 + len(text)
    for name, t in tensors.items():
        begin, end = header[name]["data_offsets"]
        if end > begin:
            status = lib.nb_tensor_copy_to_host(t._h, base + start + begin, end - begin)
            if status:
                raise error(status)
    return bytes(out)


def save(obj, f, metadata: dict | None = None) -> None:
    """Writes a tensor, a state dict or a nested checkpoint (dicts, lists, tuples, numbers, strings, None and
    tensors) to a path or a binary file object, in the safetensors format. metadata: extra str -> str pairs."""
    if sys.byteorder != "little":
        raise RuntimeError("nabla.save: only little-endian machines are supported")
    data = _encode(obj, metadata)
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _corrupt(name: str, why: str) -> RuntimeError:
    return RuntimeError(f"nabla.load: {name} is not a valid safetensors file: {why}")


def _decode(data: bytes, name: str):
    if len(data) < 8:
        raise _corrupt(name, f"it has {len(data)} bytes, fewer than the 8-byte header length (truncated?)")
    (n,) = struct.unpack_from("<Q", data, 0)
    if n > _MAX_HEADER:
        raise _corrupt(name, f"header length {n} is too large (corrupt?)")
    if 8 + n > len(data):
        raise _corrupt(name, f"header length {n} exceeds the file size {len(data)} (truncated?)")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _corrupt(name, f"the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise _corrupt(name, "the header is not a JSON object")
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict):
        raise _corrupt(name, f"__metadata__ is not a JSON object ({type(meta).__name__})")
    start, size = 8 + n, len(data) - 8 - n
    base = ffi.from_buffer(data)
    tensors = {}
    end_max = 0
    for key, info in header.items():
        try:
            dtype = _ST_DTYPES[info["dtype"]]
            shape = [int(s) for s in info["shape"]]
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: int(1e999)
            raise _corrupt(name, f"tensor '{key}' has an invalid entry {info!r}") from None
        if any(s < 0 for s in shape):
            raise _corrupt(name, f"tensor '{key}' has a negative size in shape {shape}")
        if any(s >= 2 ** 63 for s in shape) or len(shape) > _MAX_DIMS:
            raise _corrupt(name, f"tensor '{key}' has a shape nabla cannot hold: {shape}")
        dt = getattr(_dtype, dtype if dtype != "bool" else "bool_")
        numel = 1
        for s in shape:
            numel *= s
        if not 0 <= begin <= end or end - begin != numel * dt.itemsize:
            raise _corrupt(name, f"tensor '{key}' of shape {shape} and dtype {dtype} has data_offsets "
                                 f"[{begin}, {end}], which do not hold its {numel * dt.itemsize} bytes")
        if end > size:
            raise _corrupt(name, f"tensor '{key}' ends at byte {end} of a data section of {size} bytes (truncated?)")
        end_max = max(end_max, end)
        tensors[key] = _checked(lib.nbpy_tensor_from_host(base + start + begin, shape, len(shape), dt.code, lib.NB_CPU,
                                                          0))
    structure = meta.get(_STRUCTURE_KEY)
    if structure is None:
        return tensors
    try:
        return _unflatten(json.loads(structure), tensors)
    except (ValueError, KeyError, TypeError) as e:
        raise _corrupt(name, f"the checkpoint structure is invalid ({e})") from None


def load(f, map_location=None, weights_only: bool = True, **kwargs):
    """Reads what nabla.save wrote (or any safetensors file: a {name: Tensor} dict) from a path or a binary file
    object. map_location (a device or string) moves the tensors there."""
    if sys.byteorder != "little":
        raise RuntimeError("nabla.load: only little-endian machines are supported")
    if hasattr(f, "read"):
        data, name = f.read(), "the file object"
    else:
        with open(os.fspath(f), "rb") as fh:
            data = fh.read()
        name = repr(os.fspath(f))
    obj = _decode(data, name)
    if map_location is not None:
        obj = _move(obj, map_location)
    return obj


def _move(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: _move(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move(v, device) for v in obj)
    return obj

