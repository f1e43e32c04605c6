"""nabla.amp: mixed precision (torch.amp): autocast regions and GradScaler for loss scaling.
Also provides nabla.cpu.amp and nabla.cuda.amp (PyTorch's device-specific spellings)."""
import sys as _sys
import types as _types

from .autocast_mode import autocast, cpu_autocast, cuda_autocast, is_autocast_available
from .grad_scaler import GradScaler, OptState

__all__ = ["autocast", "GradScaler", "OptState", "is_autocast_available"]


def _device_amp(name: str, autocast_cls) -> _types.ModuleType:
    mod = _types.ModuleType(name, f"{name}: torch's device-specific autocast and GradScaler spellings.")
    mod.autocast = autocast_cls
    mod.GradScaler = GradScaler
    _sys.modules[name] = mod
    return mod


cuda_amp = _device_amp("nabla.cuda.amp", cuda_autocast)
cpu_amp = _device_amp("nabla.cpu.amp", cpu_autocast)
