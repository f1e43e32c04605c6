"""Adafactor (Shazeer & Stern, 2018) with PyTorch's variant of it: lr caps the relative step size and
scales decoupled weight decay; eps1 stabilises the factored second moment at its last use. State keys
(step, row_var, col_var for matrices, variance for vectors) are PyTorch's."""
from __future__ import annotations

import math

from .._factory import zeros, zeros_like
from .._finfo import finfo
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["Adafactor"]


def _rms(t) -> float:
    return t.norm(2).item() / math.sqrt(t.numel())


class Adafactor(Optimizer):
    """Adafactor: the second moment of a matrix gradient kept as row and column means (sublinear memory)."""

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None, maximize: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    @staticmethod
    def _init_state(state: dict, grad) -> None:
        state["step"] = 0
        if grad.dim() > 1:
            shape = list(grad.shape)
            state["row_var"] = zeros(shape[:-1] + [1], dtype=grad.dtype, device=grad.device)
            state["col_var"] = zeros(shape[:-2] + [1, shape[-1]], dtype=grad.dtype, device=grad.device)
        else:
            state["variance"] = zeros_like(grad)

    def step(self, closure=None):
        """One Adafactor update of every parameter with a gradient; returns closure() when given."""
        loss = self._closure(closure)
        with no_grad():
            for group in self.param_groups:
                eps1, eps2 = group["eps"]
                lr, wd, d = float(group["lr"]), group["weight_decay"], group["d"]
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    if group["maximize"]:
                        grad = -grad
                    state = self.state[p]
                    if not state:
                        self._init_state(state, grad)
                    if eps1 is None:  # PyTorch takes it from the first parameter's dtype
                        eps1 = finfo(p.dtype).eps
                    state["step"] += 1
                    t = float(state["step"])
                    alpha = max(eps2, _rms(p)) * min(lr, 1 / t ** 0.5)
                    if wd != 0:
                        p.mul_(1 - lr * wd)
                    var = self._second_moment(state, grad, t ** group["beta2_decay"], eps1)
                    update = var.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
                    p.add_(update, alpha=-alpha / max(1.0, _rms(update) / d))
        return loss

    @staticmethod
    def _second_moment(state: dict, grad, weight: float, eps1: float):
        """The running second-moment estimate of grad (a fresh tensor): factored as row_var @ col_var over
        the mean of row_var for a matrix, the full running mean for a vector or scalar."""
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), weight)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), weight)
            return (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        variance = state["variance"]
        variance.lerp_(grad * grad, weight)
        return variance.clone()
