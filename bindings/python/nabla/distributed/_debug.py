"""Debugging aids with torch.distributed's names: the debug level (set_debug_level, set_debug_level_from_env),
a breakpoint on one rank while the others wait (breakpoint), and a profiler name for the collectives of a
block (record_comm)."""
from __future__ import annotations

import contextlib
import datetime
import os
import pdb
import sys
import traceback
import warnings

from .._lib import lib
from . import distributed_c10d as c10d

_ENV = "NABLA_DISTRIBUTED_DEBUG"
_AT_START = os.environ.get(_ENV)  # what set_debug_level_from_env goes back to
_breakpoint_counts: dict = {}


def set_debug_level(level) -> None:
    """Sets the debug level (a DebugLevel) for the process: DETAIL makes groups created afterwards check every
    collective's arguments across ranks (the C layer reads it when a communicator is made, as torch wraps
    groups when they are created)."""
    os.environ[_ENV] = c10d.DebugLevel(level).name


def set_debug_level_from_env() -> None:
    """Takes the debug level from the environment again (NABLA_DISTRIBUTED_DEBUG, else
    TORCH_DISTRIBUTED_DEBUG), undoing set_debug_level; ValueError for a value other than OFF, INFO, DETAIL."""
    if _AT_START is None:
        os.environ.pop(_ENV, None)
    else:
        os.environ[_ENV] = _AT_START
    for name in (_ENV, "TORCH_DISTRIBUTED_DEBUG"):
        value = os.environ.get(name)
        if value and value.upper() not in c10d.DebugLevel.__members__:
            raise ValueError(f"The value of {name} must be OFF, INFO, or DETAIL.")


class _DistributedPdb(pdb.Pdb):
    """pdb that reads the terminal even when the launcher gave the process another stdin."""

    def interaction(self, *args, **kwargs):
        saved = sys.stdin
        try:
            with open("/dev/stdin") as sys.stdin:
                super().interaction(*args, **kwargs)
        finally:
            sys.stdin = saved


def breakpoint(rank: int = 0, skip: int = 0, timeout_s=3600) -> None:  # noqa: A001 - torch's name
    """Stops in pdb on rank `rank` only; the other ranks wait in a barrier until it continues. The first `skip`
    calls do nothing; timeout_s (seconds, None: unchanged) becomes every group's timeout so the session is not
    cut short."""
    if skip > 0:
        key = hash(str(traceback.format_exc()))
        _breakpoint_counts[key] = count = _breakpoint_counts.get(key, 0) + 1
        if count <= skip:
            warnings.warn(f"Skip the breakpoint, counter={count}", stacklevel=2)
            return
    if timeout_s is not None:
        for g in c10d._groups:
            if g._c is not None:
                lib.nb_comm_set_timeout(g._c, float(timeout_s))
                g._timeout = datetime.timedelta(seconds=timeout_s)
    if c10d.get_rank() == rank:
        debugger = _DistributedPdb()
        debugger.message(f"\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                         f"dist.breakpoint(rank={rank})\n")
        debugger.set_trace(sys._getframe(1))
    c10d.barrier()


@contextlib.contextmanager
def record_comm(name: str):
    """Collectives issued in the block appear under `name` in a profile (a nabla.profiler range)."""
    from ..profiler import record_function
    with record_function(name):
        yield
