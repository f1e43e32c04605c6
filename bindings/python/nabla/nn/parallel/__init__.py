"""nabla.nn.parallel: torch.nn.parallel's import path (DataParallel, DistributedDataParallel)."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
