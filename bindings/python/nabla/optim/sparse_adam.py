"""SparseAdam: Adam for sparse gradients. nabla has no sparse tensors, so every gradient it meets is
dense and step() refuses it with PyTorch's error (PyTorch refuses dense gradients too)."""
from __future__ import annotations

from . import _checks
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Lazy Adam over the rows a sparse gradient touches; PyTorch's arguments and checks."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _checks.check_betas(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        """Raises for the first parameter with a (necessarily dense) gradient; returns closure() otherwise."""
        loss = self._closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
