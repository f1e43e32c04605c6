"""nabla.backends.mps: Apple's Metal backend, which nabla does not have."""
from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
