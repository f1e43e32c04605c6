"""nabla.backends: the switches PyTorch scripts set on its backends (torch.backends.cuda,
cudnn, mps, mkldnn, openmp). They hold PyTorch's defaults and read back what a script sets;
on a machine without the device, is_available() is False as in PyTorch."""
from __future__ import annotations

from . import cpu, cuda, cudnn, mkldnn, mps, openmp  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
