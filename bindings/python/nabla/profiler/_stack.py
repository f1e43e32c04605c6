"""with_stack: the Python call stack of each op, through the core's stack source.

The core asks the source (nb_profiler_set_stack_source) at the start of every op a
session with NB_PROFILE_STACK records. This one walks sys._getframe() from the frame
that called into the C library outwards, skips the frontend's own frames (the
innermost run of frames in the nabla package: the op wrappers between the user's
call and the library) and writes PyTorch's "file(line): function" lines, innermost
first, file names trimmed of the longest sys.path / site-packages prefix as
torch.profiler does. The line is the frame's current line (the call)."""
from __future__ import annotations

import os
import site
import sys

from .._lib import ffi, lib

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_prefixes: list[str] = []
_names: dict[str, str] = {}   # co_filename -> trimmed name
_installed = False


def _path_prefixes() -> list[str]:
    """torch.profiler.python_tracer._prefix_regex without torch: the import roots, longest first."""
    raw = list(site.getsitepackages()) + sys.path + [site.getuserbase(), site.getusersitepackages()]
    return [p + os.sep for p in sorted({os.path.abspath(p) for p in raw if isinstance(p, str)}, reverse=True)]


def _trim(filename: str) -> str:
    name = _names.get(filename)
    if name is None:
        name = filename
        for p in _prefixes:
            if filename.startswith(p):
                name = filename[len(p):]
                break
        _names[filename] = name
    return name


def format_stack(frame) -> list[str]:
    """The "file(line): function" lines of frame and its callers, the frontend's innermost frames left out."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    out = []
    while frame is not None:
        code = frame.f_code
        out.append(f"{_trim(code.co_filename)}({frame.f_lineno}): {code.co_name}")
        frame = frame.f_back
    return out


@ffi.def_extern()
def nbpy_stack_source(payload, buf, cap):
    try:
        data = "\n".join(format_stack(sys._getframe(1))).encode("utf-8", "replace")
    except BaseException:  # noqa: BLE001 - a stack is optional; never fail the op
        return -1
    n = len(data)
    if cap > 0:
        k = min(n, cap - 1)
        ffi.memmove(buf, data[:k] + b"\0", k + 1)
    return n


def install() -> None:
    """Registers the source with the core (once) and refreshes the path prefixes."""
    global _installed, _prefixes
    _prefixes = _path_prefixes()
    _names.clear()
    if not _installed:
        status = lib.nb_profiler_set_stack_source(lib.nbpy_stack_source, ffi.NULL, ffi.NULL)
        if status:
            from .._lib import error
            raise error(status)
        _installed = True
