"""nabla.backends.openmp: whether nabla's CPU kernels run on OpenMP threads."""
from __future__ import annotations


def is_available() -> bool:
    from .. import get_num_threads
    return get_num_threads() >= 1
