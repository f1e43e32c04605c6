"""nabla.futures: torch.futures.Future (a value that arrives later), collect_all and wait_all."""
from __future__ import annotations

import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A result set once (set_result / set_exception); wait() blocks for it, then() chains a callback."""

    def __init__(self, *, devices=None) -> None:
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._value = None
        self._exception = None
        self._callbacks: list = []
        self._upstreams: list = []  # the futures whose completion completes this one (then, collect_all)

    def __class_getitem__(cls, item):  # Future[Tensor] in annotations, as torch.futures.Future[T]
        import types
        return types.GenericAlias(cls, item)

    def _poll(self, block: bool) -> None:
        """Completes this future if its value comes from elsewhere and is there (or, with block, once it is):
        a chained future asks its upstream; a collective's future (nabla.distributed) asks its work."""
        if not self._done.is_set():
            for up in self._upstreams:
                up._poll(block)

    def done(self) -> bool:
        self._poll(False)
        return self._done.is_set()

    def wait(self):
        self._poll(True)
        self._done.wait()
        if self._exception is not None:
            raise self._exception
        return self._value

    def value(self):
        if not self.done():
            raise RuntimeError("Future.value(): the future is not completed yet")
        return self.wait()

    def _complete(self, value, exception) -> None:
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Future can only be marked completed once")
            self._value, self._exception = value, exception
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result) -> None:
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        self._complete(None, result)

    def add_done_callback(self, callback) -> None:
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback) -> "Future":
        """A future of callback(self), run when this one completes."""
        result = Future()
        result._upstreams = [self]

        def run(fut):
            try:
                result.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001 - carried by the chained future
                result.set_exception(e)

        self.add_done_callback(run)
        return result


def collect_all(futures: list) -> Future:
    """A future completed with the list of futures once all of them are."""
    out = Future()
    out._upstreams = list(futures)
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])
        return out

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(list(futures))

    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures: list) -> list:
    """The values of all futures (raising the first failure)."""
    return [f.wait() for f in futures]
