"""nabla.nn: neural-network building blocks (functional activations so far)."""
from . import functional  # noqa: F401
