"""nabla.backends.cudnn: torch.backends.cudnn's switches (enabled, benchmark, deterministic,
allow_tf32) with PyTorch's defaults. nabla's convolutions pick their algorithm without
benchmarking, so `benchmark` is recorded only; is_available() says whether a GPU is usable."""
from __future__ import annotations

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    from .. import cuda
    return cuda.is_available()


def version():
    """None: nabla does not report a cuDNN version (PyTorch's value without cuDNN)."""
    return None


def is_acceptable(tensor) -> bool:
    return is_available() and tensor.is_cuda
