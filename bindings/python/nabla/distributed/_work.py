"""Work: an asynchronous collective in flight (torch.distributed's Work)."""
from __future__ import annotations

from .._lib import ffi, lib
from ..futures import Future
from ._errors import raise_for


class Work:
    """Returned by a collective called with async_op=True: wait() blocks until it completes."""

    __slots__ = ("_w", "_result", "_exc", "_done", "_outputs")

    def __init__(self, handle, result=None, outputs=None) -> None:
        self._w = ffi.gc(handle, lib.nb_work_release)
        self._result = result  # what wait() hands back to callers that want values (recv's source)
        self._outputs = outputs  # the tensors the collective writes: result() and the future's value
        self._exc = None
        self._done = False

    def wait(self, timeout=None) -> bool:
        """Blocks until the work completes; raises its error (DistBackendError after the group's timeout)."""
        if not self._done:  # done: its error is known (an NCCL work's wait only orders the current stream)
            st = lib.nb_work_wait(self._w)
            if st:
                self._done = True
                try:
                    raise_for(st)
                except Exception as e:  # remembered: wait() and exception() report it again
                    self._exc = e
        if self._exc is not None:
            raise self._exc
        return True

    def is_completed(self) -> bool:
        """True when the work has finished (successfully or not); never blocks."""
        if self._done:
            return True
        done = ffi.new("int32_t*")
        st = lib.nb_work_test(self._w, done)
        if st:
            self._done = True
            try:
                raise_for(st)
            except Exception as e:
                self._exc = e
            return True
        return bool(done[0])

    def is_success(self) -> bool:
        return self.is_completed() and self._exc is None

    def exception(self):
        return self._exc

    def result(self):
        """The output tensors (a list) once the work completed."""
        self.wait()
        return self._outputs if self._outputs is not None else self._result

    def get_future(self):
        """A nabla.futures.Future of the output tensors (a list), completed when the work is: its wait(),
        done() and the futures then() chains to it drive the work; nothing blocks until one is waited on."""
        return _WorkFuture(self)


class _WorkFuture(Future):
    """The future of a Work: completes (running its then() callbacks) when someone sees the work finish."""

    def __init__(self, work: Work) -> None:
        super().__init__()
        self._work = work

    def _poll(self, block: bool) -> None:
        work = self._work
        if work is None or not (block or work.is_completed()):
            return
        self._work = None
        try:
            work.wait()
        except Exception as e:  # noqa: BLE001 - carried by the future
            self.set_exception(e)
            return
        self.set_result(work.result())


class _DoneWork(Work):
    """A Work that is already complete (a call that did nothing on this rank)."""

    def __init__(self, result=None) -> None:
        self._w = None
        self._result, self._outputs, self._exc, self._done = result, None, None, True
