"""Which engine carries which device's tensors: backend names ("mpi", "nccl", "gloo",
"cpu:gloo,cuda:nccl") parsed into a device -> engine map, and NCCL communicators made on demand."""
from __future__ import annotations

from .._lib import ffi, lib
from . import _mpi
from ._errors import DistBackendError, raise_for

_ENGINES = {"mpi": "mpi", "gloo": "mpi", "nccl": "nccl"}  # gloo's CPU collectives run on MPI in nabla
_NATURAL = {"mpi": ("cpu",), "gloo": ("cpu",), "nccl": ("cuda",)}
NCCL_HINT = "install NCCL with `pip install nvidia-nccl-cu13` or set NABLA_NCCL_LIBRARY to a libnccl.so.2"


def _c_str(s):
    return ffi.NULL if s is None else s.encode()


def nccl_usable() -> bool:
    """True when libnccl.so.2 loads and nabla has a CUDA device."""
    from .. import cuda
    return lib.nb_comm_nccl_available(_c_str(_mpi.nccl_library()), ffi.NULL) == 0 and cuda.is_available()


def default_backend() -> str:
    """torch's choice for backend=None: CPU tensors on MPI (gloo's place), CUDA tensors on NCCL when usable."""
    return "cpu:mpi,cuda:nccl" if nccl_usable() else "mpi"


def names(name: str) -> dict:
    """{"cpu": backend name, "cuda": backend name} for a backend name ("gloo", "cpu:gloo,cuda:nccl"); ValueError
    for an unknown one."""
    backends = {}
    for part in name.split(","):
        device, sep, backend = part.strip().rpartition(":")
        if backend not in _ENGINES or (sep and device not in ("cpu", "cuda")):
            raise ValueError(f"Unknown c10d backend type {part.strip().upper()}")
        for d in (device,) if sep else _NATURAL[backend]:
            backends[d] = backend
    return backends


def parse(name: str) -> dict:
    """{"cpu": engine, "cuda": engine} ("mpi" or "nccl") for a backend name; ValueError for an unknown one."""
    return {device: _ENGINES[backend] for device, backend in names(name).items()}


def check_nccl() -> None:
    """Raises DistBackendError when NCCL cannot load (saying how to install it), RuntimeError without a GPU."""
    if lib.nb_comm_nccl_available(_c_str(_mpi.nccl_library()), ffi.NULL):
        raise DistBackendError("init_process_group: " + ffi.string(lib.nb_last_error_message()).decode())
    from .. import cuda
    if not cuda.is_available():
        raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found! (nabla: "
                           f"{cuda.unavailable_reason()})")


def nccl_comm(bootstrap, device_index: int):
    """A new NCCL communicator with bootstrap's ranks on CUDA device device_index (collective over them)."""
    out = ffi.new("nb_comm**")
    st = lib.nb_comm_init_nccl(bootstrap, _c_str(_mpi.nccl_library()), device_index, out)
    if st:
        raise_for(st)
    return out[0]
