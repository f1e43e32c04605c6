"""nabla.save / nabla.load: PyTorch's checkpoint format by default (files torch.load reads,
and torch.save's files read without PyTorch), safetensors when asked for by the file name
(.safetensors), by format="safetensors" or by metadata, and on load whenever the file's
contents are safetensors (the format is recognised from the first bytes, never the name)."""
from __future__ import annotations

import os

from . import _torch_format, serialization
from ._atomic import write_atomically

__all__ = ["save", "load"]


def _wants_safetensors(f, format: str | None, metadata) -> bool:
    if format is not None:
        if format not in ("torch", "safetensors"):
            raise ValueError(f"nabla.save: format must be 'torch' or 'safetensors', got {format!r}")
        return format == "safetensors"
    if metadata is not None:
        return True
    return not hasattr(f, "write") and os.fspath(f).endswith(".safetensors")


def save(obj, f, pickle_module=None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False, *, format: str | None = None, metadata: dict | None = None) -> None:
    """Saves obj to a path or a binary file object.

    Default: PyTorch's zip checkpoint (torch.load reads it; tensors, modules, optimizer state, NumPy arrays,
    argparse.Namespace, any picklable object). A path ending in .safetensors, format='safetensors' or metadata
    selects the safetensors format (tensors and containers only; loading it never runs code). The legacy
    (pre-1.6) PyTorch format is read but not written: _use_new_zipfile_serialization=False writes the zip too.
    """
    if _wants_safetensors(f, format, metadata):
        return serialization.save(obj, f, metadata=metadata)
    data = _torch_format.write_zip(obj, pickle_protocol)
    if hasattr(f, "write"):
        f.write(data)
    else:
        write_atomically(os.fspath(f), data)


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap=None,
         **pickle_load_args):
    """Loads what nabla.save or torch.save wrote (zip or legacy PyTorch format), or a safetensors file.

    weights_only (default True, as PyTorch 2.6+): PyTorch checkpoints are unpickled through an allowlist
    (see nabla.serialization.add_safe_globals); False runs arbitrary code from the file, for files you
    trust. map_location: a device, a string, a {saved: target} dict or a callable(storage, location).
    """
    if weights_only is None:
        weights_only = True
    if hasattr(f, "read"):
        data = f.read()
        if _torch_format.is_torch_format(data[:_torch_format.HEAD_BYTES]):
            return _torch_format.read(data, map_location, weights_only)
        import io
        return serialization.load(io.BytesIO(data), map_location=map_location)
    path = os.fspath(f)
    with open(path, "rb") as fh:
        head = fh.read(_torch_format.HEAD_BYTES)
        if _torch_format.is_torch_format(head):
            return _torch_format.read(head + fh.read(), map_location, weights_only)
    return serialization.load(path, map_location=map_location)
