"""DataLoader worker processes: the worker loop, get_worker_info, the fetchers,
and the channel that carries batches to the main process.

Each worker has one duplex Unix socket to the main process. Tasks go down as
small pickles; a batch comes back as a pickle whose tensors are replaced by
references to shared-memory file descriptors, which travel in the same socket
as SCM_RIGHTS ancillary data. So a batch costs one pickle of its metadata and
one descriptor per tensor, never a copy of its bytes, and no listener thread
or temporary file is involved."""
from __future__ import annotations

import io
import os
import pickle
import random
import signal
import socket
import struct
import sys
import traceback

from ..._tensor import Tensor

_HEADER = struct.Struct("<I")  # number of descriptors that follow the pickle
_WATCHDOG_S = 1.0  # how often an idle worker checks that the main process is alive


# ---- worker info ----

class WorkerInfo:
    """In a worker: id, num_workers, seed and dataset (this worker's copy)."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    __initialized = False

    def __init__(self, **kwargs) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self) -> str:
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's WorkerInfo in a DataLoader worker process; None in the main process."""
    return _worker_info


# ---- messages ----

class ExceptionWrapper:
    """An exception caught in a worker, re-raised in the main process with the
    worker's traceback in its message (PyTorch's format)."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """KeyError quotes its message; this keeps the traceback readable."""

    def __repr__(self) -> str:
        return self


class _IterableDatasetStopIteration:
    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class _ResumeIteration:
    """Starts a new epoch in a persistent worker; echoed back once the worker is ready."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed


# ---- the channel ----

class _Pickler(pickle.Pickler):
    def __init__(self, file, fds: list) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fds = fds

    def persistent_id(self, obj):
        if type(obj) is Tensor:
            from ...multiprocessing.reductions import shared_meta
            fd, meta = shared_meta(obj)
            self.fds.append(fd)
            return (len(self.fds) - 1, meta)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, fds: list) -> None:
        super().__init__(file)
        self.fds = fds

    def persistent_load(self, pid):
        from ...multiprocessing.reductions import rebuild_from_fd
        index, meta = pid
        return rebuild_from_fd(self.fds[index], *meta)


def send(conn, sock: socket.socket, obj) -> None:
    """Sends obj, its tensors as shared-memory descriptors."""
    fds: list = []
    buf = io.BytesIO()
    buf.write(_HEADER.pack(0))
    _Pickler(buf, fds).dump(obj)
    view = buf.getbuffer()
    _HEADER.pack_into(view, 0, len(fds))
    conn.send_bytes(view)
    del view
    if fds:  # the descriptors stay owned by the tensors' storages; the kernel dups them in flight
        socket.send_fds(sock, [b"\0"], fds)


def recv(conn, sock: socket.socket):
    data = conn.recv_bytes()
    (n,) = _HEADER.unpack_from(data)
    fds: list = []
    if n:
        _, fds, _, _ = socket.recv_fds(sock, 1, n)
        if len(fds) < n:  # the sender died between the pickle and its descriptors
            for fd in fds:
                os.close(fd)
            raise EOFError(f"the channel closed after {len(fds)} of {n} descriptors")
    try:
        return _Unpickler(io.BytesIO(memoryview(data)[_HEADER.size:]), fds).load()
    finally:
        for fd in fds:
            os.close(fd)


def socket_of(conn) -> socket.socket:
    """A socket object over the connection's descriptor (a duplicate: closing it leaves conn open)."""
    return socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)


# ---- fetchers ----

class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, drop_last

    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def create_fetcher(iterable: bool, dataset, auto_collation: bool, collate_fn, drop_last: bool):
    cls = _IterableDatasetFetcher if iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


# ---- the worker process ----

def _seed_everything(seed: int, base_seed: int, worker_id: int) -> None:
    from ... import manual_seed
    random.seed(seed)
    manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))


def worker_loop(iterable: bool, dataset, conn, auto_collation: bool, collate_fn, drop_last: bool, base_seed: int,
                init_fn, worker_id: int, num_workers: int) -> None:
    """Runs in a worker process: fetches the batches the main process asks for."""
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    from ... import set_num_threads
    set_num_threads(1)  # workers run side by side: one kernel thread each
    seed = (base_seed + worker_id) % (1 << 64)
    _seed_everything(seed, base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"
    sock = socket_of(conn)
    init_exception = None
    fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_exception = ExceptionWrapper(where=where)
    iteration_end = False
    parent = os.getppid()
    try:
        while True:
            try:
                # Other workers forked later hold copies of the main process's end of
                # this socket, so its death need not mean EOF here: watch the parent too.
                while not conn.poll(_WATCHDOG_S):
                    if os.getppid() != parent:
                        return
                msg = conn.recv()
            except (EOFError, OSError):  # the main process is gone
                break
            if msg is None:
                break
            if isinstance(msg, _ResumeIteration):
                send(conn, sock, (msg, None))
                iteration_end = False
                if init_exception is None:
                    fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if iteration_end:
                continue  # this worker's iterable is exhausted: the main process skips its tasks
            idx, index = msg
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=where)
            try:
                send(conn, sock, (idx, data))
            except (BrokenPipeError, ConnectionResetError):
                raise
            except Exception:  # the batch could not be sent (an unpicklable object, a cuda tensor)
                send(conn, sock, (idx, ExceptionWrapper(where=where)))
            del data
    except (BrokenPipeError, ConnectionResetError):
        pass  # the main process stopped listening
    finally:
        sock.close()
        conn.close()
