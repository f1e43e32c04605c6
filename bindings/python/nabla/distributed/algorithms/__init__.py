"""nabla.distributed.algorithms: the Join context manager for uneven inputs, and DDP's communication hooks."""
from .join import Join, Joinable, JoinHook  # noqa: F401
