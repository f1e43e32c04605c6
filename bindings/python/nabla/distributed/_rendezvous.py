"""The store of init_process_group(init_method=..., store=...). With the MPI backend the processes, their
ranks and the world size come from MPI; an init method (env://, tcp://host:port, file://path) or a store
gives the group a key-value store as well, which every rank joins before init_process_group returns (a
store-based barrier, so a rank pointed at another store fails within the timeout)."""
from __future__ import annotations

import os
import urllib.parse

from ._file_store import FileStore
from ._store import PrefixStore, Store
from ._tcp_store import TCPStore


def _env(name: str, how: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise ValueError(f"Error initializing torch.distributed using {how} rendezvous: environment variable "
                         f"{name} expected, but not set")
    return value


def _store_from(init_method: str, rank: int, world_size: int, timeout) -> Store:
    url = urllib.parse.urlparse(init_method)
    if url.scheme == "env":
        host, port = _env("MASTER_ADDR", "env://"), int(_env("MASTER_PORT", "env://"))
        return TCPStore(host, port, world_size, rank == 0, timeout)
    if url.scheme == "tcp":
        if not url.hostname or url.port is None:
            raise ValueError(f"tcp:// rendezvous needs a host and a port: tcp://host:port, got {init_method!r}")
        return TCPStore(url.hostname, url.port, world_size, rank == 0, timeout)
    if url.scheme == "file":
        path = urllib.parse.unquote(url.path)
        if not path:
            raise ValueError(f"file:// rendezvous needs a path: file:///path/to/file, got {init_method!r}")
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store
    raise ValueError(f"No rendezvous handler for {url.scheme}://")


def rendezvous(init_method, store, rank: int, world_size: int, timeout):
    """The default group's store (a PrefixStore "default_pg" over the given store or the init method's), once
    every rank has reached it; None when neither is given."""
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is None and init_method is None:
        return None
    if store is None:
        store = _store_from(init_method, rank, world_size, timeout)
    store.set_timeout(timeout)
    group_store = PrefixStore("default_pg", store)
    group_store.set(f"rank/{rank}", str(world_size))
    group_store.wait([f"rank/{r}" for r in range(world_size)], timeout)
    return group_store
