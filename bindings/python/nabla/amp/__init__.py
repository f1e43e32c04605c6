"""nabla.amp: mixed precision (torch.amp): GradScaler for loss scaling."""
from .grad_scaler import GradScaler, OptState

__all__ = ["GradScaler", "OptState"]
