"""Atomic file replacement for checkpoints."""
from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, data: bytes) -> None:
    """Writes a temporary file beside path and renames it over path: a crash never leaves half a checkpoint."""
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
