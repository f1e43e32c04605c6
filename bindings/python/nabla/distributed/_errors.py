"""torch.distributed's exception classes, raised for failed collectives."""
from __future__ import annotations

from .._lib import error, lib


class DistError(RuntimeError):
    """Base of the errors raised by nabla.distributed (torch.distributed.DistError)."""


class DistBackendError(DistError):
    """The communication backend failed: a timeout, a dead peer, MPI's own error."""


class DistNetworkError(DistError):
    """A network error."""


class DistStoreError(DistError):
    """A store error."""


class QueueEmptyError(DistStoreError):
    """A store's queue had nothing to pop (torch.distributed.QueueEmptyError)."""


def raise_for(status: int):
    """Raises the error of a failed nb_comm_* / nb_work_* call: DistBackendError for the backend's failures,
    the usual mapping (RuntimeError, ...) for bad arguments."""
    exc = error(status)
    if status == lib.NB_ERR_BACKEND and type(exc) is RuntimeError:
        new = DistBackendError(str(exc))
        new.status, new.status_name = exc.status, exc.status_name
        raise new
    raise exc
