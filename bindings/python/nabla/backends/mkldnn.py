"""nabla.backends.mkldnn: oneDNN, which nabla does not use (its CPU kernels are its own)."""
from __future__ import annotations

enabled = True


def is_available() -> bool:
    return False
