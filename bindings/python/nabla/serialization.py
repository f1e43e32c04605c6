"""nabla.save / nabla.load: tensors and state dicts in the safetensors format.

A file is an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the raw little-endian bytes. A flat
{str: Tensor} dict is a plain safetensors file that the `safetensors` package reads
(and nabla reads its files). Anything else built from dicts, lists, tuples, numbers,
strings, None and tensors (an optimizer's state_dict, a checkpoint bundle) keeps its
shape as JSON in the header's __metadata__; there is no pickle, so loading a file
runs no code. Saving to a path writes a temporary file in the same directory and
renames it over the target, so a crash never leaves a half-written checkpoint.

The format itself lives in the C ABI (nb_save_buffer, nb_load, nb_load_buffer): the
file's header is read and checked there, once for every language; this module adds
the structure of nested checkpoints and Python's file handling."""
from __future__ import annotations

import json
import math
import os
import sys

from ._atomic import write_atomically
from ._lib import error, ffi, lib
from ._tensor import Tensor, _from_handle

__all__ = ["save", "load"]

_STRUCTURE_KEY = "nabla.structure"


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


def _c_strings(items) -> tuple:
    """A const char* array over UTF-8 copies of items, and the buffers that keep it alive."""
    bufs = [ffi.new("char[]", str(x).encode("utf-8")) for x in items]
    return ffi.new("const char*[]", bufs) if bufs else ffi.NULL, bufs


def _encode(obj, metadata: dict | None) -> bytes:
    """The file's bytes, written by the C ABI's nb_save_buffer."""
    tensors: dict = {}
    plain = isinstance(obj, dict) and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    if plain:
        tensors = dict(obj)
    else:
        meta[_STRUCTURE_KEY] = json.dumps(_flatten(obj, "", tensors), separators=(",", ":"))
    names, keep_names = _c_strings(tensors)
    keys, keep_keys = _c_strings(meta)
    values, keep_values = _c_strings(meta.values())
    handles = ffi.new("nb_tensor*[]", [t._h for t in tensors.values()]) if tensors else ffi.NULL
    needed = ffi.new("int64_t*")
    args = (names, handles, len(tensors), keys, values, len(meta))
    status = lib.nb_save_buffer(*args, ffi.NULL, 0, needed)
    if status:
        raise error(status)
    out = bytearray(needed[0])
    status = lib.nb_save_buffer(*args, ffi.from_buffer(out), len(out), needed)
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


def _decode(ck, name: str):
    """The tensors (or the saved structure) of an open nb_checkpoint."""
    try:
        tensors, meta = {}, {}
        k, v = ffi.new("const char**"), ffi.new("const char**")
        for i in range(lib.nb_checkpoint_metadata_count(ck)):
            if lib.nb_checkpoint_metadata(ck, i, k, v):
                raise error(lib.nb_last_error_status())
            meta[ffi.string(k[0]).decode()] = ffi.string(v[0]).decode()
        out = ffi.new("nb_tensor**")
        for i in range(lib.nb_checkpoint_count(ck)):
            key = ffi.string(lib.nb_checkpoint_name(ck, i)).decode()
            status = lib.nb_checkpoint_tensor(ck, i, out)
            if status:
                raise error(status)
            tensors[key] = _from_handle(out[0])
    finally:
        lib.nb_checkpoint_release(ck)
    structure = meta.get(_STRUCTURE_KEY)
    if structure is None:
        return tensors
    try:
        return _unflatten(json.loads(structure), tensors)
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"nabla.load: {name} is not a valid safetensors file: the checkpoint structure is "
                           f"invalid ({e})") from None


def _open(f):
    """An nb_checkpoint over a path (read tensor by tensor) or a file object's bytes, and its name."""
    out = ffi.new("nb_checkpoint**")
    if hasattr(f, "read"):
        data, name = f.read(), "the file object"
        status = lib.nb_load_buffer(ffi.from_buffer(data), len(data), name.encode(), out)
    else:
        path = os.fspath(f)
        name = repr(path)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        status = lib.nb_load(os.fsencode(path), out)
    if status:
        exc = error(status)
        raise type(exc)(str(exc).replace("nb_load_buffer: ", "nabla.load: ", 1).replace("nb_load: ", "nabla.load: ", 1))
    return out[0], name


def load(f, map_location=None, weights_only: bool = True, **kwargs):
    """Reads what nabla.save wrote (or any safetensors file: a {name: Tensor} dict) from a path or a binary file
    object. map_location (a device or string) moves the tensors there."""
    if sys.byteorder != "little":
        raise RuntimeError("nabla.load: only little-endian machines are supported")
    obj = _decode(*_open(f))
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
