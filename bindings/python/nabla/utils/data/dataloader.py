"""DataLoader with PyTorch's signature, defaults and errors, in the main process
(num_workers=0) or with worker processes that deliver batches through shared
memory (see _worker.py)."""
from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.connection
import signal
import time
import warnings

from ... import cuda
from ..._dtype import int64
from ..._factory import empty
from . import _worker
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]

get_worker_info = _worker.get_worker_info
_JOIN_TIMEOUT_S = 5.0  # how long shutdown waits for a worker before terminating it


class _InfiniteConstantSampler(Sampler):
    """None forever: the index stream for an IterableDataset."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Combines a dataset and a sampler and iterates over batches.

    DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
    worker_init_fn=None, multiprocessing_context=None, generator=None, *,
    prefetch_factor=None, persistent_workers=False)."""

    __initialized = False

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind_iterable = True
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind_iterable = False
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self.__initialized = True

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind_iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def _get_shared_seed(self) -> int:
        """A base seed drawn from the loader's generator (the default one when None)."""
        return int(empty((), dtype=int64).random_(generator=self.generator).item())


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._iterable = loader._dataset_kind_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = loader._get_shared_seed()
        self._num_yielded = 0
        self._pin_memory = loader.pin_memory and cuda.is_available()
        if loader.pin_memory and not self._pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.")

    def __iter__(self):
        return self

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._pin_memory:
            data = _pin(data)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


def _pin(data):
    """Copies the batch's tensors into page-locked memory (Tensor.pin_memory), recursing into containers."""
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    if isinstance(data, dict):
        return type(data)({k: _pin(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(v) for v in data)
    return data


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = _worker.create_fetcher(self._iterable, self._dataset, self._auto_collation,
                                               self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._fetcher.fetch(index)  # may raise StopIteration


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Workers fetch batches; the main process hands out tasks round-robin, at
    most prefetch_factor per worker ahead, and reads each result from the worker
    that has it, so batches come back in sampler order."""

    _shutdown = True  # until workers exist: __del__ after a failed __init__ has nothing to stop

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._workers, self._conns, self._socks = [], [], []
        self._shutdown = False
        try:
            for worker_id in range(self._num_workers):
                parent, child = ctx.Pipe(duplex=True)
                w = ctx.Process(target=_worker.worker_loop, daemon=True,
                                args=(self._iterable, self._dataset, child, self._auto_collation, self._collate_fn,
                                      self._drop_last, self._base_seed, loader.worker_init_fn, worker_id,
                                      self._num_workers))
                w.start()
                child.close()
                self._workers.append(w)
                self._conns.append(parent)
                self._socks.append(_worker.socket_of(parent))
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker: dict[int, int] = {}
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: a new epoch
            seed = loader._get_shared_seed()
            for w in range(self._num_workers):
                self._send(w, _worker._ResumeIteration(seed))
            for w in range(self._num_workers):
                while True:  # drop what the last epoch left in flight
                    tag, _ = self._get(w)
                    if isinstance(tag, _worker._ResumeIteration):
                        break
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker = next(self._worker_cycle)
            if self._workers_status[worker]:
                break
        else:
            return
        self._send(worker, (self._send_idx, index))
        self._task_worker[self._send_idx] = worker
        self._send_idx += 1

    def _send(self, worker: int, msg) -> None:
        """Sends a message to a worker; one that died since it last answered (its result
        may still have been waiting in the channel) is reported as a worker failure."""
        try:
            self._conns[worker].send(msg)
        except OSError:  # BrokenPipeError, ConnectionResetError: the worker is gone
            self._worker_gone(worker)

    def _worker_gone(self, worker: int) -> None:
        """The channel to a worker broke: waits for its exit status and raises what ended it."""
        self._workers[worker].join(_JOIN_TIMEOUT_S)
        self._raise_worker_failure(force=True)

    def _get(self, worker: int):
        """The next message from a worker; raises if any worker died or the wait times out."""
        conn = self._conns[worker]
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            if conn.poll():
                try:
                    return _worker.recv(conn, self._socks[worker])
                except (EOFError, OSError):  # the worker is gone, maybe halfway through a message
                    self._worker_gone(worker)
            waitables = [conn] + [p.sentinel for p, up in zip(self._workers, self._workers_status) if up]
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(waitables, remaining)
            if not ready:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            if conn not in ready:
                self._raise_worker_failure()

    def _raise_worker_failure(self, force: bool = False) -> None:
        failed = [(p.pid, p.exitcode) for p, up in zip(self._workers, self._workers_status)
                  if (up or force) and not p.is_alive()]
        if not failed and not force:
            return
        self._shutdown_workers()
        for pid, code in failed:
            if code is not None and code < 0:
                raise RuntimeError(f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(-code)}.")
        pids = ", ".join(str(pid) for pid, _ in failed) or "?"
        codes = ", ".join(str(code) for _, code in failed)
        raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly (exit code {codes})")

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:  # skip tasks of workers whose iterable ended
                if self._workers_status[self._task_worker[self._rcvd_idx]]:
                    break
                del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            worker = self._task_worker.pop(self._rcvd_idx)
            idx, data = self._get(worker)
            self._rcvd_idx += 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                self._workers_status[worker] = False
                self._try_put_index()
                continue
            self._try_put_index()
            if isinstance(data, _worker.ExceptionWrapper):
                self._shutdown_workers()
                data.reraise()
            return data

    def _shutdown_workers(self) -> None:
        """Asks every worker to stop, waits a little, terminates stragglers; closes every channel."""
        if self._shutdown:
            return
        self._shutdown = True
        for conn in self._conns:
            try:
                conn.send(None)
            except OSError:
                pass
        for sock in self._socks:
            sock.close()
        for conn in self._conns:
            conn.close()  # a worker blocked on sending sees a broken pipe and exits
        for p in self._workers:
            p.join(_JOIN_TIMEOUT_S)
            if p.is_alive():
                p.terminate()
                p.join()
            p.close()

    def __del__(self) -> None:
        self._shutdown_workers()
