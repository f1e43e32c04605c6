"""Rendezvous (torch.distributed.rendezvous): a URL names a handler (env://, tcp://host:port, file:///path, or
one registered with register_rendezvous_handler) that yields (store, rank, world_size). With the MPI backend
the processes, ranks and world size come from MPI; an init method or a store gives the default group a
key-value store as well, which every rank joins before init_process_group returns (a store-based barrier,
so a rank pointed at another store fails within the timeout)."""
from __future__ import annotations

import datetime
import numbers
import os
import urllib.parse

from ._file_store import FileStore
from ._store import PrefixStore
from ._tcp_store import TCPStore

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)
_handlers: dict = {}


def register_rendezvous_handler(scheme: str, handler) -> None:
    """Makes rendezvous() (and init_process_group's init_method) use handler(url, **kwargs) for scheme://
    URLs: a generator that yields (store, rank, world_size)."""
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _query(url) -> dict:
    return dict(pair.split("=", 1) for pair in url.query.split("&") if pair)


def rendezvous(url: str, rank: int = -1, world_size: int = -1, **kwargs):
    """The iterator of url's handler, yielding (store, rank, world_size); rank and world_size, when given, are
    added to the URL's query (as ?rank=..&world_size=..)."""
    if not isinstance(url, (str, bytes)):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    for name, value in (("rank", rank), ("world_size", world_size)):
        if not isinstance(value, numbers.Integral):
            raise RuntimeError(f"`{name}` must be an integer. {value}")
    parsed = urllib.parse.urlparse(url)
    if rank != -1 or world_size != -1:
        query = _query(parsed)
        if "rank" in query or "world_size" in query:
            raise AssertionError(f"The url: {url} has node-specific arguments(rank, world_size) already.")
        query.update({k: str(v) for k, v in (("rank", rank), ("world_size", world_size)) if v != -1})
        parsed = parsed._replace(query="&".join(f"{k}={v}" for k, v in query.items()))
        url = urllib.parse.urlunparse(parsed)
    if parsed.scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {parsed.scheme}://")
    return _handlers[parsed.scheme](url, **kwargs)


def _error(scheme: str, msg: str) -> ValueError:
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {msg}")


def _rank_and_size(scheme: str, query: dict, from_env: bool) -> tuple[int, int]:
    out = []
    for key, env, what in (("rank", "RANK", "rank parameter"), ("world_size", "WORLD_SIZE", "world size parameter")):
        value = query.get(key) or (os.environ.get(env) if from_env else None)
        if not value:
            raise _error(scheme, f"environment variable {env} expected, but not set" if from_env
                         else f"{what} missing")
        out.append(int(value))
    return out[0], out[1]


def _file_handler(url: str, timeout=_DEFAULT_TIMEOUT, **kwargs):
    parsed = urllib.parse.urlparse(url)
    path = urllib.parse.unquote(parsed.path)
    if not path:
        raise _error("file", "path missing")
    rank, world_size = _rank_and_size("file", _query(parsed), False)
    store = FileStore(path, world_size)
    store.set_timeout(timeout)
    yield store, rank, world_size
    raise RuntimeError("Unable to perform rerendezvous using file:// method")


def _tcp_handler(url: str, timeout=_DEFAULT_TIMEOUT, **kwargs):
    parsed = urllib.parse.urlparse(url)
    if parsed.port is None or not parsed.hostname:
        raise _error("tcp", "port number missing")
    rank, world_size = _rank_and_size("tcp", _query(parsed), False)
    yield TCPStore(parsed.hostname, parsed.port, world_size, rank == 0, timeout), rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _env_handler(url: str, timeout=_DEFAULT_TIMEOUT, **kwargs):
    rank, world_size = _rank_and_size("env", _query(urllib.parse.urlparse(url)), True)
    where = []
    for name in ("MASTER_ADDR", "MASTER_PORT"):
        if not os.environ.get(name):
            raise _error("env", f"environment variable {name} expected, but not set")
        where.append(os.environ[name])
    yield TCPStore(where[0], int(where[1]), world_size, rank == 0, timeout), rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("file", _file_handler)


def default_store(init_method, store, rank: int, world_size: int, timeout):
    """The default group's store (a PrefixStore "default_pg" over the given store or the init method's), once
    every rank has reached it; None when neither is given."""
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is None and init_method is None:
        return None
    if store is None:
        given = {"rank", "world_size"} & set(_query(urllib.parse.urlparse(init_method)))  # the URL says them
        ours = (-1, -1) if given else (rank, world_size)
        store, got_rank, got_size = next(rendezvous(init_method, *ours, timeout=timeout))
        if (got_rank, got_size) != (rank, world_size):
            raise ValueError(f"init_process_group: the rendezvous of {init_method} gave rank {got_rank} of "
                             f"{got_size}, but MPI started this process as rank {rank} of {world_size}")
    store.set_timeout(timeout)
    group_store = PrefixStore("default_pg", store)
    group_store.set(f"rank/{rank}", str(world_size))
    group_store.wait([f"rank/{r}" for r in range(world_size)], timeout)
    return group_store

