"""nabla.multiprocessing: a drop-in for the standard multiprocessing module.

Importing it registers reductions with multiprocessing's ForkingPickler, so a
nabla tensor sent through a Queue, a Pipe or to a spawned Process moves its
storage into shared memory and crosses as a file descriptor (passed over a
Unix socket, not pickled byte by byte); the receiver maps the same memory, so
a write on either side is seen by the other. The memory is an anonymous memfd:
nothing is left in /dev/shm or on disk, and it is freed when the last process
unmaps it. Only the "file_descriptor" sharing strategy exists.
"""
from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F401,F403 - the standard module's names

from .reductions import init_reductions, rebuild_tensor, shared_meta  # noqa: F401
from .spawn import spawn, start_processes, ProcessContext, ProcessRaisedException, ProcessExitedException  # noqa: F401

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

_STRATEGIES = {"file_descriptor"}


def set_sharing_strategy(new_strategy: str) -> None:
    """Only "file_descriptor" exists (memfd, passed over Unix sockets)."""
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"unknown sharing strategy {new_strategy!r}; nabla supports {sorted(_STRATEGIES)}")


def get_sharing_strategy() -> str:
    return "file_descriptor"


def get_all_sharing_strategies() -> set:
    return set(_STRATEGIES)


init_reductions()
