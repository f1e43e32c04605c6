"""Where the MPI library is: nabla opens it at run time (libnabla has no MPI dependency)."""
from __future__ import annotations

import os
import shutil
import sys

_LIB = "libmpi_abi.so.1"
INSTALL_HINT = "install MPI with `pip install mpich` (it ships libmpi_abi.so.1 and mpiexec)"


def _mpich_prefixes():
    """The prefixes the `mpich` wheel may have installed into: this interpreter's, and the one its files name."""
    yield sys.prefix
    try:
        from importlib import metadata
        dist = metadata.distribution("mpich")
    except Exception:  # not installed, or metadata unreadable
        return
    for f in dist.files or ():
        if f.name == _LIB:
            yield os.path.dirname(os.path.dirname(os.path.abspath(dist.locate_file(f))))


def library() -> str | None:
    """$NABLA_MPI_LIBRARY, else the `mpich` wheel's libmpi_abi.so.1, else None (the loader's search path)."""
    env = os.environ.get("NABLA_MPI_LIBRARY")
    if env:
        return env
    for prefix in _mpich_prefixes():
        path = os.path.join(prefix, "lib", _LIB)
        if os.path.exists(path):
            return path
    return None


def mpiexec() -> str | None:
    """The mpiexec beside the library nabla would load, else the one on PATH."""
    lib = library()
    if lib:
        candidate = os.path.join(os.path.dirname(os.path.dirname(lib)), "bin", "mpiexec")
        if os.path.exists(candidate):
            return candidate
    for prefix in _mpich_prefixes():
        candidate = os.path.join(prefix, "bin", "mpiexec")
        if os.path.exists(candidate):
            return candidate
    return shutil.which("mpiexec")


def nccl_library() -> str | None:
    """$NABLA_NCCL_LIBRARY, else the nvidia-nccl wheel's libnccl.so.2, else None (the loader's search path)."""
    env = os.environ.get("NABLA_NCCL_LIBRARY")
    if env:
        return env
    try:
        import nvidia.nccl  # the nvidia-nccl-cu1x wheels
    except ImportError:
        return None
    for base in getattr(nvidia.nccl, "__path__", []):
        path = os.path.join(base, "lib", "libnccl.so.2")
        if os.path.exists(path):
            return path
    return None
