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

from . import _dtype
from ._atomic import write_atomically
from ._lib import error, ffi, lib
from ._tensor import Tensor, _checked

__all__ = ["save", "load"]

_ST_NAMES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16", "int64": "I64",
             "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
_ST_DTYPES = {v: k for k, v in _ST_NAMES.items()}
_STRUCTURE_KEY = "nabla.structure"
_MAX_HEADER = 100 * 1024 * 1024  # the safetensors package's own limit
_INT64_MAX = 2**63 - 1


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
    write_atomically(os.fspath(f), data)


def _corrupt(name: str, why: str) -> RuntimeError:
    return RuntimeError(f"nabla.load: {name} is not a valid safetensors file: {why}")


def _is_int(v) -> bool:
    return type(v) is int  # JSON integers (not bools, not floats that int() would truncate)


def _entry(name: str, key: str, info, size: int):
    """(key, dtype, shape, begin, end) of one header entry, checked against the data section's size: the
    file is untrusted, so every number is checked before nabla sees it."""
    try:
        dtype = _ST_DTYPES[info["dtype"]]
        shape, offsets = info["shape"], info["data_offsets"]
    except (KeyError, TypeError):
        raise _corrupt(name, f"tensor '{key}' has an invalid entry {info!r}") from None
    if not isinstance(shape, list) or not all(_is_int(s) for s in shape):
        raise _corrupt(name, f"tensor '{key}' has shape {shape!r}; expected a list of integers")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_int(o) for o in offsets):
        raise _corrupt(name, f"tensor '{key}' has data_offsets {offsets!r}; expected [begin, end] integers")
    if any(s < 0 for s in shape):
        raise _corrupt(name, f"tensor '{key}' has a negative size in shape {shape}")
    if len(shape) > lib.NB_MAX_DIMS:
        raise _corrupt(name, f"tensor '{key}' has {len(shape)} dims; nabla supports at most {lib.NB_MAX_DIMS}")
    dt = getattr(_dtype, dtype if dtype != "bool" else "bool_")
    extent = dt.itemsize  # PyTorch's storage size rule: a 0 in the shape does not excuse a huge dim
    for s in shape:
        extent *= max(s, 1)
    if extent > _INT64_MAX:
        raise _corrupt(name, f"tensor '{key}' of shape {shape} and dtype {dtype}: Storage size calculation overflowed")
    numel = math.prod(shape)
    begin, end = offsets
    if not 0 <= begin <= end or end - begin != numel * dt.itemsize:
        raise _corrupt(name, f"tensor '{key}' of shape {shape} and dtype {dtype} has data_offsets "
                             f"[{begin}, {end}], which do not hold its {numel * dt.itemsize} bytes")
    if end > size:
        raise _corrupt(name, f"tensor '{key}' ends at byte {end} of a data section of {size} bytes (truncated?)")
    return key, dt, shape, begin, end


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
        raise _corrupt(name, f"__metadata__ is {meta!r}, not a JSON object")
    start, size = 8 + n, len(data) - 8 - n
    entries = [_entry(name, key, info, size) for key, info in header.items()]
    spans = sorted((begin, end, key) for key, _, _, begin, end in entries if end > begin)
    for (b0, e0, k0), (b1, e1, k1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise _corrupt(name, f"tensors '{k0}' and '{k1}' overlap: data_offsets [{b0}, {e0}] and [{b1}, {e1}]")
    base = ffi.from_buffer(data)
    tensors = {}
    for key, dt, shape, begin, _ in entries:
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


from ._torch_format import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals  # noqa: E402,F401
