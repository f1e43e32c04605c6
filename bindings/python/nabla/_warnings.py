"""Warnings as PyTorch gives them: UserWarnings reported at the user's line. The
library's own (an out= tensor resized, ...) arrive through nb_set_warning_handler;
one that the filters turn into an error fails the call that raised it, and that
call raises the warning."""
from __future__ import annotations

import os
import sys
import warnings

from ._lib import ffi, lib, pending

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_level(frame, level: int) -> int:
    """The stacklevel of the first frame outside nabla, counting from `frame` at `level`."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str) -> None:
    """A UserWarning attributed to the code that called into nabla."""
    warnings.warn(message, UserWarning, stacklevel=_user_level(sys._getframe(1), 2))


@ffi.def_extern()
def nbpy_warning(payload, message):
    level = _user_level(sys._getframe(1), 2)  # stacklevel 2: the frame that made the C call
    try:
        warnings.warn(ffi.string(message).decode("utf-8", "replace"), UserWarning, stacklevel=level)
        return lib.NB_OK
    except BaseException as exc:  # noqa: BLE001 - raised by the call that warned
        if pending.exc is None:
            pending.exc = exc
        return lib.nb_set_error(lib.NB_ERR_INVALID_ARGUMENT, f"{type(exc).__name__}: {exc}".encode("utf-8", "replace"))


lib.nb_set_warning_handler(lib.nbpy_warning, ffi.NULL)
